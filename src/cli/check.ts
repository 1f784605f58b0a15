// `verify check [protocol]`: is the stored evidence still proof? Validates it against the protocol and the code as
// they are now, runs nothing, prints why each check is or is not satisfied, and exits by the verdict.
import pc from 'picocolors'
import { readApprovals, trustedApprovals } from '../evidence/approvals.js'
import { inputsWarnings, trackedLeftOut } from '../evidence/fingerprint.js'
import { readEvidenceFile } from '../evidence/store.js'
import { formatDuration } from '../duration.js'
import { statusIcon, statusText, verdictLine } from '../reporters/status.js'
import { useColor } from '../reporters/select.js'
import { evidenceTime, ownFilesTrackedWarning } from '../verdict/check-evidence.js'
import { inContext } from '../verdict/invocation.js'
import { guardJson, untrusted } from '../reporters/safe-text.js'
import { summarize } from '../verdict/summary.js'
import type { CheckResult } from '../types.js'
import { acceptStoredEvidence } from '../verdict/validate.js'
import { duration, parse } from './args.js'
import { commandContext, maskedIO } from './context.js'
import { ExitCode, exitCodeOfVerdict } from './exit-code.js'
import { CHECK_FLAGS } from './flags.js'
import type { CliIO } from './io.js'
import { askRepo, commandWorkspace } from '../evidence/workspace.js'

/** Where evidence came from when verify did not run the check itself: `by vitest reporter, 412 tests, `. */
function provenance(result: CheckResult): string {
  const by = result.evidence?.recordedBy
  if (!by) return ''
  const tests = result.evidence?.tests
  const ran = tests ? tests.passed + tests.failed : 0
  return `by ${untrusted(by.runner)} reporter, ${ran} test${ran === 1 ? '' : 's'}, `
}

export async function checkCommand(argv: string[], rawIO: CliIO): Promise<number> {
  const { values, positionals } = parse('check', argv, CHECK_FLAGS)
  const maxAgeMs = duration('max-age', values['max-age'])
  const context = await commandContext(rawIO, values, positionals[0], maxAgeMs === undefined ? {} : { maxAgeMs })
  const io = maskedIO(rawIO, context.redact)
  const c = pc.createColors(useColor(io, values.color))
  const { protocol } = context.loaded
  const repo = askRepo(context)
  const stored = await readEvidenceFile(context.evidencePath)
  if (!stored.ok) {
    if (values.json) io.stdout(guardJson(`${JSON.stringify({ verdict: 'incomplete', reason: stored.reason }, null, 2)}\n`))
    else io.stdout(`${c.bold('verify check')} ${c.yellow('INCOMPLETE')}: ${untrusted(stored.reason)}\n`)
    return ExitCode.incomplete
  }
  const { file } = stored
  const requireSignature = values['require-signature'] ?? false
  const { workspace } = await commandWorkspace(context, { recorded: file, repo })
  // Under --require-signature only what the signed file holds counts; with a key, only approvals signed with it.
  const approvals = requireSignature ? new Map() : trustedApprovals(await readApprovals(context.approvalsPath), context.signingKey)
  const judged = await acceptStoredEvidence(protocol, file, workspace, {
    maxAgeMs: protocol.maxAgeMs,
    approvals,
    expect: { signingKey: context.signingKey, requireSignature },
  })
  const judgements = judged.checks
  const { results } = judged
  const summary = summarize(results, protocol.strictMode, judged.file ? { source: judged.file } : {})
  summary.warnings.push(...(await inputsWarnings(protocol.rootDir, protocol.checks, workspace)))
  const tracked = ownFilesTrackedWarning(protocol.rootDir, context.evidencePath, trackedLeftOut(workspace))
  if (tracked) summary.warnings.push(tracked)

  if (values.json) {
    const checks = protocol.checks.map((check) => {
      const j = judgements.get(check.id)
      return { id: check.id, status: j?.result.status, valid: j?.validity.valid ?? false, reason: j?.result.reason ?? null, issues: j?.validity.issues ?? [] }
    })
    io.stdout(guardJson(`${JSON.stringify({ protocol: protocol.name, evidence: context.evidencePath, verdict: summary.verdict, checks, summary }, null, 2)}\n`))
    return exitCodeOfVerdict(summary.verdict)
  }
  const now = Date.now()
  const pad = Math.max(...protocol.checks.map((check) => check.id.length))
  io.stdout(`${c.bold('verify check')} ${c.dim(`· protocol ${untrusted(protocol.name)} · ${untrusted(context.evidencePath)}`)}\n`)
  for (const result of results) {
    const at = result.evidence ? evidenceTime(result.evidence) : Number.NaN
    const age = Number.isNaN(at)
      ? ''
      : c.dim(
          ` (recorded ${provenance(result)}${formatDuration(Math.max(0, now - at))} ago${result.evidence?.approval ? ` by ${untrusted(result.evidence.approval.by)}` : ''})`,
        )
    const what = result.status === 'passed' ? c.green('valid') : statusText(result.status)
    const why = result.status === 'passed' || !result.reason ? '' : ` — ${untrusted(result.reason)}`
    io.stdout(` ${statusIcon(result.status, c)} ${result.id.padEnd(pad)} ${what}${why}${age}\n`)
  }
  io.stdout(` ${c.dim('Verdict')} ${verdictLine(summary.verdict, c)}\n`)
  for (const issue of summary.issues) io.stdout(`   ${c.red('•')} ${untrusted(issue)}\n`)
  const given = { protocol: positionals[0], config: values.config, cwd: values.cwd, evidence: values.evidence }
  for (const recommendation of summary.recommendations) io.stdout(`   ${c.cyan('→')} ${untrusted(inContext(recommendation, given))}\n`)
  for (const warning of summary.warnings) io.stdout(`   ${c.yellow('•')} ${untrusted(warning)}\n`)
  if (file.signature !== undefined && file.signature !== null && !context.signingKey && !requireSignature) {
    io.stdout(c.dim(`   The evidence is signed; set VERIFY_SIGNING_KEY (or pass --require-signature) to check it.\n`))
  }
  return exitCodeOfVerdict(summary.verdict)
}
