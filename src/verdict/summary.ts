// Counts, the verdict, and for each unsatisfied check an issue and a recommendation a person can act on.
import { VERIFY_DIR } from '../defaults.js'
import type { CheckResult, Checklist, Summary } from '../types.js'
import type { FileJudgement } from './evidence-file.js'
import { isFailing } from '../status.js'
import { computeVerdict, isBlocking } from './verdict.js'

export interface SummaryOptions {
  interrupted?: boolean
  /** The judgement of the stored file the results were read from: its issues lead, and a tampered file rejects. */
  source?: FileJudgement
  /** The results are a shard's share of the protocol: they never approve it. */
  partial?: boolean
  /** Where full logs are, relative to the project, for recommendations. */
  logDir?: string
  /** How users run verify here, for recommendations. */
  command?: string
}

/** A summary made now sets every count: `cancelled` is optional only for files of earlier versions. */
type CountedSummary = Summary & { cancelled: number }

/** The log the run wrote for the check's last attempt; none when the check printed nothing (no log is opened). */
function logFile(result: CheckResult, logDir: string): string | null {
  const evidence = result.evidence
  if (!evidence || evidence.output.bytes === 0) return null
  const attempt = evidence.attempts && evidence.attempts > 1 ? `.attempt-${evidence.attempts}` : ''
  return `${logDir}/${result.id}${attempt}.log`
}

function describe(result: CheckResult, options: Required<Pick<SummaryOptions, 'logDir' | 'command'>>): { issue: string; recommendation: string } {
  const why = result.reason ? ` (${result.reason})` : ''
  const log = logFile(result, options.logDir)
  switch (result.status) {
    case 'failed':
      return {
        issue: `Check failed: ${result.name}${why}`,
        recommendation: log
          ? `Fix what ${log} shows for "${result.id}", then run \`${options.command}\` again`
          : `Fix "${result.id}" (it printed nothing), then run \`${options.command}\` again`,
      }
    case 'timed_out':
      return {
        issue: `Check timed out: ${result.name}${why}`,
        recommendation: `Find why "${result.id}" hangs${log ? ` (see ${log})` : ' (it printed nothing)'} or raise its \`timeout\``,
      }
    case 'error':
      return {
        issue: `Check could not run: ${result.name}${why}`,
        recommendation: `Fix the definition of "${result.id}" in the config or install what it needs`,
      }
    case 'cancelled':
      return {
        issue: `Check cancelled: ${result.name}${why}`,
        // Cancelled by an interrupt, nothing to fix; by --fail-fast, after a failure that is listed too.
        recommendation: /^interrupted\b/.test(result.reason ?? '')
          ? `Run \`${options.command}\` again: it was interrupted before "${result.id}" finished`
          : `Run \`${options.command}\` again once the failures above are fixed`,
      }
    case 'skipped':
      return { issue: `Check skipped: ${result.name}${why}`, recommendation: skippedAdvice(result, options.command) }
    case 'pending_manual':
      return {
        issue: `Waiting for approval: ${result.name}${why}`,
        recommendation: `A person approves it with \`npx verify approve ${result.id} --by <name>\``,
      }
    case 'stale':
      if (result.evidence?.approval) {
        return {
          issue: `Approval is no longer valid: ${result.name}${why}`,
          recommendation: `A person approves it again with \`npx verify approve ${result.id} --by <name>\``,
        }
      }
      return {
        issue: `Evidence is no longer valid: ${result.name}${why}`,
        recommendation: `Run \`${options.command} run --reuse\` to re-run only what is not valid`,
      }
    case 'pending':
      return { issue: `No evidence: ${result.name}${why}`, recommendation: `Run \`${options.command}\` to record it` }
    case 'running':
      return { issue: `Check did not finish: ${result.name}`, recommendation: `Run \`${options.command}\` again` }
    case 'passed':
      return { issue: '', recommendation: '' }
  }
}

/** What records a skipped check's evidence, by why it was skipped (the reasons runner/schedule.ts and shards give). */
function skippedAdvice(result: CheckResult, command: string): string {
  const reason = result.reason ?? ''
  const id = result.id
  const dependency = /^its dependency "([^"]+)" did not pass/.exec(reason)?.[1]
  if (dependency !== undefined) return `Fix "${dependency}", then run \`${command}\` again: "${id}" runs once it passes`
  if (reason.startsWith('its dependencies can never run')) return `Fix the \`dependsOn\` of "${id}" in the config: what it waits for can never run`
  if (reason === 'left out with --skip') return `Run \`${command} --only ${id}\` (or the run without --skip ${id}) to record its evidence`
  if (reason === 'not selected with --only') return `Run \`${command} --only ${id}\` (or the run without --only) to record its evidence`
  if (reason.startsWith('optional check skipped')) return `Run \`${command}\` without --skip-optional (or skipOptional: false) to record it`
  if (reason === "its shard's evidence was not merged")
    return `Merge the evidence of the shard that runs "${id}" as well: \`npx verify merge <every shard's file>\``
  if (reason.startsWith('runs in another shard')) return `The shard that runs "${id}" records it: \`npx verify merge\` every shard's evidence`
  return `Run \`${command}\` to record the evidence of "${id}"`
}

// Processes a check left that verify had to kill outside its group, or that held its output open (SPEC §4).
function supervisionWarnings(result: CheckResult): string[] {
  const evidence = result.evidence
  if (!evidence || evidence.reused) return []
  const escaped = evidence.metadata?.escaped
  const held = evidence.metadata?.outputHeld === true
  const parts: string[] = []
  if (Array.isArray(escaped) && escaped.length > 0) {
    const named = escaped.map((p: { pid?: unknown; command?: unknown }) => `${p.pid}${p.command ? ` \`${p.command}\`` : ''}`).join(', ')
    const what = escaped.length === 1 ? 'a process' : `${escaped.length} processes`
    parts.push(`left ${what} outside its process group (setsid or a double fork), found by verify's environment tag and killed: ${named}`)
  }
  if (held) parts.push('what it left held its output open after it exited, so verify stopped reading at the end of the drain window (the output may be cut)')
  return parts.length > 0 ? [`"${result.id}" ${parts.join('; ')}`] : []
}

/** Summarises a checklist's results. Pure: the same results always give the same summary. */
export function summarize(results: readonly CheckResult[], strictMode: boolean, options: SummaryOptions = {}): CountedSummary {
  const opts = { logDir: options.logDir ?? `${VERIFY_DIR}/logs`, command: options.command ?? 'npx verify' }
  const verdict = computeVerdict(results, {
    strictMode,
    interrupted: options.interrupted ?? false,
    tampered: options.source?.tampered ?? false,
    partial: options.partial ?? false,
  })
  const summary: CountedSummary = {
    total: results.length,
    passed: 0,
    failed: 0,
    skipped: 0,
    cancelled: 0,
    pending: 0,
    verdict,
    issues: [],
    recommendations: [],
    warnings: [],
  }
  for (const result of results) {
    if (result.status === 'passed') summary.passed++
    else if (isFailing(result.status)) summary.failed++
    else if (result.status === 'skipped') summary.skipped++
    else if (result.status === 'cancelled') summary.cancelled++
    else summary.pending++
    if (result.status === 'passed') continue
    const { issue, recommendation } = describe(result, opts)
    // An optional check only warns, unless strictMode makes its failure fatal.
    if (!isBlocking(result, strictMode)) {
      summary.warnings.push(`Optional: ${issue}`)
      continue
    }
    summary.issues.push(issue)
    if (!summary.recommendations.includes(recommendation)) summary.recommendations.push(recommendation)
  }
  for (const result of results) {
    const why = result.evidence?.output.logTruncated
    if (why && !result.evidence?.reused)
      summary.warnings.push(`The log of "${result.id}" is incomplete (${why}); its evidence keeps the head and tail of the output, its byte count and SHA-256.`)
  }
  if (options.source && !options.source.accepted) {
    summary.issues.unshift(...options.source.issues.map((issue) => issue.charAt(0).toUpperCase() + issue.slice(1)))
    summary.recommendations.unshift(...options.source.recommendations.filter((r, i, all) => all.indexOf(r) === i && !summary.recommendations.includes(r)))
  }
  for (const result of results) summary.warnings.push(...supervisionWarnings(result))
  if (options.interrupted) {
    // A signal after the last check settled (while the run looked at the workspace again) still ends the run unfinished.
    const settledAll = results.every((result) => result.status !== 'cancelled' && result.status !== 'running' && result.status !== 'pending')
    summary.issues.unshift(
      settledAll ? 'The run was interrupted after its checks settled, before it was done: run it again' : 'The run was interrupted before every check settled',
    )
  }
  if (summary.passed + summary.failed === 0 && verdict === 'incomplete' && summary.issues.length === 0) {
    summary.issues.push('No check ran')
  }
  return summary
}

/** The seed's entry point: the summary of a checklist as it stands. */
export function generateSummary(checklist: Checklist, options: SummaryOptions = {}): CountedSummary {
  return summarize(checklist.results, checklist.protocol.strictMode, options)
}
