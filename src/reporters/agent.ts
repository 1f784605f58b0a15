// The `agent` reporter: a compact digest a coding agent can act on — what failed, how, the lines that matter
// and the next command to run. Bounded whatever the checks printed.
import { join, relative } from 'node:path'
import { logDirOf } from '../defaults.js'
import { formatDuration } from '../duration.js'
import type { CheckResult } from '../types.js'
import { isBlocking } from '../verdict/verdict.js'
import { cutLine, failingTestLines, failureExcerpt, howItEnded, moreTestsLine } from './excerpt.js'
import type { ReporterOptions } from './options.js'
import { writeReport } from './output.js'
import { untrusted } from './safe-text.js'
import { ownShare, scopeLabel } from './scope.js'
import { carriedWhen, FAILING, flakyNote, ranAndReused, statusGlyph, statusText } from './status.js'
import type { Reporter, RunOutcome } from './types.js'

/** Failing checks shown with their output; the rest get one line each. */
const DETAILED = 8
const ONE_LINERS = 20
const LINES_PER_CHECK = 30
const LINE_WIDTH = 300

const checks = (n: number) => `${n} check${n === 1 ? '' : 's'}`

function detail(result: CheckResult, logFile: string): string[] {
  const lines = [
    `${statusGlyph(result.status)} ${result.id}${result.name === result.id ? '' : ` (${result.name})`} — ${statusText(result.status)}: ${howItEnded(result)}`,
  ]
  const e = result.evidence
  if (e) {
    lines.push(`  $ ${cutLine(e.command ?? '(function check)', LINE_WIDTH)}`)
    const how = [
      e.exitCode !== null ? `exit code ${e.exitCode}` : '',
      e.signal ? `signal ${e.signal}` : '',
      e.timedOut ? 'timed out' : '',
      formatDuration(e.durationMs),
      // Left out of this run (`--only`, `--skip`): what an earlier run recorded for this code.
      carriedWhen(result) ?? '',
    ]
    lines.push(`  ${how.filter(Boolean).join(', ')}`)
    const found = failureExcerpt(result, { maxLines: LINES_PER_CHECK, maxMatches: LINES_PER_CHECK / 2, maxTests: 5, width: LINE_WIDTH })
    for (const test of found.tests) lines.push(...failingTestLines(test, LINE_WIDTH).map((line, i) => (i === 0 ? `  ✗ ${line}` : `    ${line}`)))
    lines.push(...moreTestsLine(found).map((line) => `  ${line}`))
    const { matches, tail, total } = found
    if (total === 0) lines.push('  (no output)')
    for (const line of matches) lines.push(`  │ ${line}`)
    if (matches.length && tail.length) lines.push('  ⋮')
    for (const line of tail) lines.push(`  │ ${line}`)
    if (total > matches.length + tail.length) lines.push(`  (${total} lines in all; full log: ${logFile})`)
  }
  return lines
}

/**
 * `verify approve <id>` for the same protocol, config, folder and evidence as `run` (`… run deploy --config x` gives
 * `… approve <id> --by <name> --protocol deploy --config x`).
 */
function approveCommand(run: string, id: string): string {
  const parts = /^(.*?\bverify) run(?: ([^\s-]\S*))?(.*)$/.exec(run)
  if (!parts) return `npx verify approve ${id} --by <name>`
  const [, bin, protocol, flags] = parts
  return `${bin} approve ${id} --by <name>${protocol ? ` --protocol ${protocol}` : ''}${flags}`
}

export interface AgentDigestOptions {
  /** The folder paths are shown relative to. */
  cwd: string
  /** The command that ran the protocol (see ReporterOptions.invocation). */
  invocation?: string
}

/** The digest of a finished run, as text. */
export function renderAgentDigest(run: RunOutcome, options: AgentDigestOptions): string {
  const { cwd } = options
  const outcome = ownShare(run)
  const { checklist, summary } = outcome
  const strict = checklist.protocol.strictMode
  const rel = (path: string) => relative(cwd, path) || path
  const logDir = logDirOf(outcome.evidencePath)
  const ms = Date.parse(checklist.finishedAt ?? '') - Date.parse(checklist.startedAt ?? '')
  const reuse = ranAndReused(checklist.results)
  const counts = [
    `${summary.passed} passed${reuse ? ` (${reuse})` : ''}`,
    summary.failed && `${summary.failed} failed`,
    summary.skipped && `${summary.skipped} skipped`,
    summary.cancelled && `${summary.cancelled} cancelled`,
    summary.pending && `${summary.pending} pending`,
  ]
  const out = [
    `verify: ${summary.verdict.toUpperCase()} — ${counts.filter(Boolean).join(', ')} of ${checks(summary.total)} (${scopeLabel(outcome)}${Number.isFinite(ms) ? `, ${formatDuration(ms)}` : ''})`,
  ]
  if (outcome.interrupted) out.push(`Interrupted by ${outcome.interrupted}: unfinished checks were cancelled.`)

  const blocking = checklist.results.filter((r) => isBlocking(r, strict))
  const failing = blocking.filter((r) => FAILING.has(r.status))
  const others = blocking.filter((r) => !FAILING.has(r.status))
  for (const result of failing.slice(0, DETAILED)) out.push('', ...detail(result, rel(join(logDir, `${result.id}.log`))))
  const oneLiners = [...failing.slice(DETAILED), ...others]
  if (oneLiners.length) out.push('')
  for (const result of oneLiners.slice(0, ONE_LINERS)) {
    out.push(
      cutLine(
        `${statusGlyph(result.status)} ${result.id} — ${statusText(result.status)}${result.reason ? `: ${result.reason.split('\n')[0]}` : ''}${carriedWhen(result) ? ` (${carriedWhen(result)})` : ''}`,
        LINE_WIDTH,
      ),
    )
  }
  if (oneLiners.length > ONE_LINERS) out.push(`… and ${oneLiners.length - ONE_LINERS} more`)
  const optional = checklist.results.filter((r) => FAILING.has(r.status) && !isBlocking(r, strict))
  if (optional.length) out.push('', `Warnings (optional checks, not blocking): ${optional.map((r) => `${r.id} ${statusText(r.status)}`).join(', ')}`)
  const flaky = checklist.results.filter((r) => flakyNote(r))
  if (flaky.length) out.push('', `Flaky (passed only on a retry): ${flaky.map((r) => `${r.id}, attempt ${r.evidence?.attempts ?? 2}`).join('; ')}`)

  const next: string[] = []
  const again = options.invocation ?? `npx verify run${checklist.protocol.name === 'default' ? '' : ` ${checklist.protocol.name}`}`
  // --reuse runs exactly the checks without valid evidence and keeps the rest: the failures, what they held back.
  if (blocking.some((r) => FAILING.has(r.status))) next.push(`fix the failures above, then: ${again} --reuse`)
  // Nothing failed, but some checks did not finish (an interrupt, the hook's time budget) or have no evidence yet.
  else if (blocking.some((r) => r.status !== 'pending_manual')) next.push(`run what did not finish: ${again} --reuse`)
  for (const result of blocking.filter((r) => r.status === 'pending_manual').slice(0, 5)) {
    next.push(`ask a person to approve: ${approveCommand(again, result.id)}`)
  }
  if (next.length === 0 && summary.verdict !== 'approved') next.push(again)
  if (next.length) out.push('', 'Next:', ...next.map((line) => `  ${line}`))
  out.push(outcome.notSaved ? `Evidence: not saved to ${rel(outcome.evidencePath)} (${outcome.notSaved})` : `Evidence: ${rel(outcome.evidencePath)}`)
  // Printed on stdout, maybe in a CI log: names, reasons and output lines are untrusted, each line defused.
  return `${untrusted(out.join('\n'), 'lines')}\n`
}

export function createAgentReporter(options: ReporterOptions): Reporter {
  return {
    onRunStart(checklist) {
      if (!options.file) options.write(`verify: running protocol ${untrusted(checklist.protocol.name)} (${checks(checklist.results.length)})…\n`)
    },
    onRunEnd(outcome) {
      writeReport(options, renderAgentDigest(outcome, { cwd: options.cwd, ...(options.invocation ? { invocation: options.invocation } : {}) }))
    },
  }
}
