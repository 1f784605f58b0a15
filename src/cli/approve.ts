// `verify approve <checkId>`: a person's approval of a manual check, bound to the code and the check they saw.
import { execFileSync } from 'node:child_process'
import { userInfo } from 'node:os'
import { approvalsText, readApprovals, recordApproval, signApproval, trustedApprovals, type Approval } from '../evidence/approvals.js'
import { checkFingerprint } from '../evidence/binding.js'
import { checkDigest } from '../evidence/digest.js'
import { sealEvidence, SIGNING_KEY_ENV } from '../evidence/sign.js'
import { jsonText, readEvidenceFile, writeFilesAtomic } from '../evidence/store.js'
import { VerifyError, VerifyUsageError } from '../errors.js'
import type { Checklist, EvidenceFile, ResolvedCheck, WorkspaceInfo } from '../types.js'
import { untrusted } from '../reporters/safe-text.js'
import { keepRecorded } from '../verdict/restate.js'
import { summarize } from '../verdict/summary.js'
import { acceptStoredEvidence, approvalEvidence } from '../verdict/validate.js'
import { parse } from './args.js'
import { commandContext, maskedIO, type CommandContext } from './context.js'
import { ExitCode } from './exit-code.js'
import type { CliIO } from './io.js'
import { commandWorkspace } from '../evidence/workspace.js'
import { APPROVE_FLAGS } from './flags.js'
import { lockEvidence } from './lock.js'

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

/** A person's approval of one check, bound to the code and the check as they are now (signed with a key). */
async function newApproval(
  context: CommandContext,
  check: ResolvedCheck,
  workspace: WorkspaceInfo,
  by: string,
  note: string | null,
  tty: boolean,
): Promise<Approval> {
  const { rootDir } = context.loaded.protocol
  // approvals.json is written as is, never through the output's mask.
  const approval: Approval = {
    checkId: check.id,
    by: context.redact(by),
    note: note === null ? null : context.redact(note),
    timestamp: new Date().toISOString(),
    fingerprint: await checkFingerprint(check, rootDir, workspace),
    checkDigest: checkDigest(check, context.loaded.protocol),
    evidenceType: check.evidenceType,
    tty,
  }
  return signApproval(approval, context.signingKey)
}

type EvidenceUpdate = { refused: string[] } | { file: EvidenceFile | null }

/**
 * The evidence file with the approval taken into account, judged again by the acceptance rule against the code as it
 * is now: the file never claims more than holds. With a key, a file whose signature does not verify is refused: its
 * checks must not come out signed. A file that cannot be read, or is for another protocol or a shard, is left alone.
 */
async function updatedEvidence(context: CommandContext, workspace: WorkspaceInfo, approvals: ReadonlyMap<string, Approval>): Promise<EvidenceUpdate> {
  const { protocol } = context.loaded
  const stored = await readEvidenceFile(context.evidencePath)
  if (!stored.ok) return { file: null }
  const judged = await acceptStoredEvidence(protocol, stored.file, workspace, {
    maxAgeMs: protocol.maxAgeMs,
    approvals: trustedApprovals(approvals, context.signingKey),
    expect: { signingKey: context.signingKey },
  })
  if (judged.file?.tampered) return { refused: judged.file.issues }
  if (judged.file && !judged.file.accepted) return { file: null }
  // A check with no evidence keeps what the run recorded (skipped, cancelled…): `pending` is never written.
  const checks = keepRecorded(judged.results, stored.file.checks, 'no evidence recorded')
  return { file: sealEvidence({ ...stored.file, checks, summary: summarize(checks, protocol.strictMode) }, context.redact, context.signingKey) }
}

export async function approveCommand(argv: string[], rawIO: CliIO): Promise<number> {
  const { values, positionals } = parse('approve', argv, APPROVE_FLAGS)
  const [checkId, ...extra] = positionals
  if (!checkId || extra.length > 0) throw new VerifyUsageError('verify approve takes one check id: `verify approve <checkId> [--by name] [--note text]`')
  const context = await commandContext(rawIO, values, values.protocol)
  const io = maskedIO(rawIO, context.redact)
  const { protocol } = context.loaded
  const manual = protocol.checks.filter((c) => c.kind === 'manual').map((c) => c.id)
  const check = protocol.checks.find((c) => c.id === checkId)
  if (!check) {
    const hint = manual.length > 0 ? `Manual checks: ${manual.join(', ')}.` : 'It has no manual checks.'
    const others = context.loaded.protocolNames.filter((name) => name !== protocol.name)
    const elsewhere = others.length > 0 ? ` For a check of another protocol (${others.join(', ')}), pass \`--protocol <name>\`.` : ''
    throw new VerifyUsageError(`No check "${checkId}" in protocol "${protocol.name}". ${hint}${elsewhere}`)
  }
  if (check.kind !== 'manual') {
    throw new VerifyUsageError(`"${checkId}" is a ${check.kind} check: it proves itself by running, not by approval. Run \`npx verify run --only ${checkId}\`.`)
  }
  const atTerminal = io.isTTY && io.prompt !== undefined
  if (protocol.approvals === 'tty' && !atTerminal) {
    throw new VerifyUsageError(
      `Protocol "${protocol.name}" accepts only approvals given by a person at a terminal (approvals: 'tty'), and this one has no terminal on stdin and stdout. Run \`npx verify approve ${checkId}\` in an interactive terminal.`,
    )
  }
  // The approvals and the evidence file are written like a run writes them: one writer at a time.
  const lock = await lockEvidence(io, context.evidencePath, values.wait, `verify approve ${checkId}`)
  const endSignals = lock.exitOnSignals()
  try {
    if (lock.note) io.stderr(`verify: ${lock.note}\n`)
    return await approveLocked(context, check, io, values, atTerminal)
  } finally {
    endSignals()
    lock.release()
  }
}

async function approveLocked(
  context: CommandContext,
  check: ResolvedCheck,
  io: CliIO,
  values: { by?: string | undefined; note?: string | undefined },
  atTerminal: boolean,
): Promise<number> {
  const { protocol } = context.loaded
  const stored = await readEvidenceFile(context.evidencePath)
  const { workspace } = await commandWorkspace(context, { recorded: stored.ok ? stored.file : null })
  const note = values.note === undefined ? null : context.redact(values.note)
  const approval = await newApproval(context, check, workspace, values.by?.trim() || defaultApprover(protocol.rootDir), note, atTerminal)
  // Everything is read and judged first; then both files are replaced together, or neither is.
  const approvals = await readApprovals(context.approvalsPath)
  const update = await updatedEvidence(context, workspace, new Map(approvals).set(check.id, approval))
  if ('refused' in update) {
    io.stderr(
      context.redact(
        `verify: refused to approve "${check.id}": ${update.refused.join('; ')}. With ${SIGNING_KEY_ENV} set, verify signs only evidence it ` +
          `could verify. Nothing was written: record the evidence again with the key (\`npx verify run\`), then approve.\n`,
      ),
    )
    return ExitCode.rejected
  }
  const files = [{ target: context.approvalsPath, text: approvalsText(approvals, check.id, approval) }]
  if (update.file) files.push({ target: context.evidencePath, text: jsonText(update.file) })
  try {
    await writeFilesAtomic(files)
  } catch (error) {
    const which = files.map((f) => f.target).join(' and ')
    throw new VerifyError('E_EVIDENCE', `Could not write ${which}: ${(error as Error).message}. Nothing was written.`, { cause: error })
  }
  io.stdout(
    `Approved "${untrusted(check.name)}" (${check.evidenceType}) as ${untrusted(approval.by)}${approval.note ? ` — ${untrusted(approval.note)}` : ''}.\n` +
      `The approval is bound to the current code (${approval.fingerprint.slice(0, 19)}…); a change to the code or to the check makes it stale.\n`,
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
    // The question goes to the terminal directly, not through the output layer.
    const answer = await ask(context.redact(`\nApprove "${untrusted(check.name)}"? ${untrusted(check.manual ?? '')} [y/N] `))
    if (answer === null) {
      io.stdout(`Input closed: "${untrusted(check.name)}" and any other manual check stay unapproved.\n`)
      break
    }
    if (!/^y(es)?$/i.test(answer.trim())) continue
    const fallback = defaultApprover(checklist.protocol.rootDir)
    const name = await ask(context.redact(`Approved by [${untrusted(fallback)}]: `))
    // Closing the input at the name is a no, never an approval in the default name.
    if (name === null) {
      io.stdout(`Input closed before a name was given: "${untrusted(check.name)}" is not approved.\n`)
      break
    }
    const by = name.trim() || fallback
    const approval = await newApproval(context, check, workspace, by, null, true)
    await recordApproval(context.approvalsPath, check.id, approval)
    Object.assign(result, { status: 'passed', reason: null, evidence: approvalEvidence(approval) })
    changed = true
  }
  return changed
}
