// `verify approve <checkId>`: a person's approval of a manual check, bound to the code and the check they saw.
import { execFileSync } from 'node:child_process'
import { userInfo } from 'node:os'
import { readApprovals, recordApproval, signApproval, trustedApprovals, type Approval } from '../evidence/approvals.js'
import { checkDigest } from '../evidence/digest.js'
import { readEvidenceFile } from '../evidence/store.js'
import { VerifyUsageError } from '../errors.js'
import type { CheckResult, Checklist, ResolvedCheck, WorkspaceInfo } from '../types.js'
import { summarize } from '../verdict/summary.js'
import { approvalEvidence, currentFingerprint, judgeStoredEvidence } from '../verdict/validate.js'
import { parse } from './args.js'
import { CONFIG_OPTIONS, commandContext, saveEvidence, type CommandContext } from './context.js'
import { ExitCode } from './exit-code.js'
import type { CliIO } from './io.js'
import { commandWorkspace } from './workspace.js'

export const APPROVE_OPTIONS = {
  by: { type: 'string' },
  note: { type: 'string' },
  protocol: { type: 'string' },
  ...CONFIG_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const

/** Who is approving, when `--by` is not given: git's user.name, else the login name. */
function defaultApprover(cwd: string): string {
  try {
    const name = execFileSync('git', ['config', 'user.name'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    if (name) return name
  } catch {
    // Not a git repository, or no name configured.
  }
  try {
    return userInfo().username
  } catch {
    return 'unknown'
  }
}

async function approve(context: CommandContext, check: ResolvedCheck, workspace: WorkspaceInfo, by: string, note: string | null, tty: boolean): Promise<Approval> {
  const { rootDir } = context.loaded.protocol
  const approval: Approval = {
    by,
    note,
    timestamp: new Date().toISOString(),
    fingerprint: await currentFingerprint(check, rootDir, workspace),
    checkDigest: checkDigest(check, rootDir),
    evidenceType: check.evidenceType,
    tty,
  }
  await recordApproval(context.approvalsPath, check.id, signApproval(approval, context.signingKey))
  return approval
}

export async function approveCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse('approve', argv, APPROVE_OPTIONS)
  const [checkId, ...extra] = positionals
  if (!checkId || extra.length > 0) throw new VerifyUsageError('verify approve takes one check id: `verify approve <checkId> [--by name] [--note text]`')
  const context = await commandContext(io, values, values.protocol)
  const { protocol } = context.loaded
  const manual = protocol.checks.filter((c) => c.kind === 'manual').map((c) => c.id)
  const check = protocol.checks.find((c) => c.id === checkId)
  if (!check) {
    const hint = manual.length > 0 ? `Manual checks: ${manual.join(', ')}.` : 'It has no manual checks.'
    throw new VerifyUsageError(`No check "${checkId}" in protocol "${protocol.name}". ${hint}`)
  }
  if (check.kind !== 'manual') {
    throw new VerifyUsageError(
      `"${checkId}" is a ${check.kind} check: it proves itself by running, not by approval. Run \`npx verify run --only ${checkId}\`.`,
    )
  }
  const atTerminal = io.isTTY && io.prompt !== undefined
  if (protocol.approvals === 'tty' && !atTerminal) {
    throw new VerifyUsageError(
      `Protocol "${protocol.name}" accepts only approvals given by a person at a terminal (approvals: 'tty'), and this one has no terminal on stdin and stdout. Run \`npx verify approve ${checkId}\` in an interactive terminal.`,
    )
  }
  const stored = await readEvidenceFile(context.evidencePath)
  const { workspace } = await commandWorkspace(context, { recorded: stored.ok ? stored.file : null })
  const note = values.note === undefined ? null : context.redact(values.note)
  const approval = await approve(context, check, workspace, values.by?.trim() || defaultApprover(protocol.rootDir), note, atTerminal)

  // Keep the evidence file in step, so `verify check` sees the approval without another run. Every check is judged
  // again against the code as it is now: the file never claims more than holds.
  if (stored.ok && stored.file.protocol?.name === protocol.name) {
    const approvals = trustedApprovals(await readApprovals(context.approvalsPath), context.signingKey)
    const judged = await judgeStoredEvidence(protocol, stored.file, workspace, { maxAgeMs: protocol.maxAgeMs, approvals })
    // A check with no evidence keeps what the run recorded (skipped, cancelled…): `pending` is never written.
    const recorded = new Map(stored.file.checks.map((r) => [r.id, r]))
    const checks = protocol.checks.flatMap((c): CheckResult[] => {
      const result = judged.get(c.id)?.result
      if (!result) return []
      if (result.status !== 'pending') return [result]
      return [recorded.get(c.id) ?? { ...result, status: 'skipped', reason: 'no evidence recorded' }]
    })
    await saveEvidence(context, { ...stored.file, checks, summary: summarize(checks, protocol.strictMode) })
  }
  io.stdout(
    context.redact(
      `Approved "${check.name}" (${check.evidenceType}) as ${approval.by}${approval.note ? ` — ${approval.note}` : ''}.\n` +
        `The approval is bound to the current code (${approval.fingerprint.slice(0, 19)}…); a change to the code or to the check makes it stale.\n`,
    ),
  )
  return ExitCode.approved
}

/** Prompts are for people at a terminal: never in CI, never without a TTY on both ends. */
export function canPrompt(io: CliIO): boolean {
  const ci = Boolean(io.env.CI) && io.env.CI !== 'false'
  return !ci && io.isTTY && io.prompt !== undefined
}

/** Offers to approve each manual check still waiting; returns true when any was approved. */
export async function promptApprovals(context: CommandContext, checklist: Checklist, workspace: WorkspaceInfo, io: CliIO): Promise<boolean> {
  const ask = io.prompt
  if (!ask) return false
  let changed = false
  for (const result of checklist.results) {
    const check = checklist.protocol.checks.find((c) => c.id === result.id)
    if (!check || check.kind !== 'manual' || (result.status !== 'pending_manual' && result.status !== 'stale')) continue
    const answer = await ask(`\nApprove "${check.name}"? ${check.manual ?? ''} [y/N] `)
    if (answer === null) {
      io.stdout(`Input closed: "${check.name}" and any other manual check stay unapproved.\n`)
      break
    }
    if (!/^y(es)?$/i.test(answer.trim())) continue
    const fallback = defaultApprover(checklist.protocol.rootDir)
    const name = await ask(`Approved by [${fallback}]: `)
    // Closing the input at the name is a no, never an approval in the default name.
    if (name === null) {
      io.stdout(`Input closed before a name was given: "${check.name}" is not approved.\n`)
      break
    }
    const by = name.trim() || fallback
    const approval = await approve(context, check, workspace, by, null, true)
    Object.assign(result, { status: 'passed', reason: null, evidence: approvalEvidence(approval) })
    changed = true
  }
  return changed
}
