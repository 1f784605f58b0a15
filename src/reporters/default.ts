// The default reporter: a live task list in a terminal, one line per start and end elsewhere, then the summary.
import { relative } from 'node:path'
import pc from 'picocolors'
import { formatDuration, parseDuration } from '../duration.js'
import type { CheckResult, Checklist, ResolvedCheck } from '../types.js'
import { failingTestLines, failureExcerpt, moreTestsLine } from './excerpt.js'
import type { ReporterOptions } from './options.js'
import { firstLine, guardCommand, guardText, untrusted } from './safe-text.js'
import { carriedFailureNote, FAILING, flakyNote, ranAndReused, reusedNote, statusIcon, statusText, verdictLine } from './status.js'
import type { Reporter, RunOutcome } from './types.js'
import { fitWidth } from './width.js'

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
// A failing check shows at most MAX_TESTS failing tests (two lines each), then TAIL_LINES lines of its output.
const TAIL_LINES = 12
const MAX_TESTS = 5
const LINE_WIDTH = 300
// Without a known terminal width, a live row is cut to this; a line-mode row, to LINE_MODE_WIDTH.
const DEFAULT_COLUMNS = 80
const LINE_MODE_WIDTH = 400
// Without a live view, a check that runs this long gets a line saying so (and again each time as much more passes),
// so a CI log never sits silent for minutes. VERIFY_HEARTBEAT sets another interval (`10s`, `2m`; `0` for none).
const HEARTBEAT_MS = 30_000

function heartbeatInterval(env: NodeJS.ProcessEnv): number {
  const given = env.VERIFY_HEARTBEAT
  if (given === undefined || given === '') return HEARTBEAT_MS
  const ms = parseDuration(given)
  return ms === undefined ? HEARTBEAT_MS : ms
}

/** Renders the end-of-run summary: failing tails, counts, verdict, issues, next steps and where the evidence is. */
export function renderSummary(outcome: RunOutcome, options: ReporterOptions, checks: readonly ResolvedCheck[]): string {
  const c = pc.createColors(options.color)
  const { summary, checklist } = outcome
  const lines: string[] = ['']
  for (const result of checklist.results) {
    const check = checks.find((k) => k.id === result.id)
    if (!FAILING.has(result.status) || !result.evidence) continue
    // The output is the check's, not verify's: shown as a terminal would, and never as a workflow command.
    const found = failureExcerpt(result, { maxLines: TAIL_LINES, maxTests: MAX_TESTS, width: LINE_WIDTH })
    lines.push(c.red(c.bold(`✗ ${untrusted(result.name)}`)) + c.dim(` — ${result.reason ? firstLine(result.reason) : statusText(result.status)}`))
    if (check?.command !== undefined) lines.push(c.dim(`  $ ${untrusted(result.evidence.command ?? '')}`))
    for (const test of found.tests) {
      const [title, message] = failingTestLines(test, LINE_WIDTH)
      lines.push(`  ${c.red('✗')} ${c.bold(title as string)}`)
      if (message) lines.push(`    ${message}`)
    }
    for (const more of moreTestsLine(found)) lines.push(c.dim(`  ${more}`))
    const shown = [...found.matches, ...(found.matches.length && found.tail.length ? ['⋮'] : []), ...found.tail].filter((l) => l.trim() !== '')
    for (const line of shown) lines.push(c.dim('  │ ') + line)
    if (found.total === 0) lines.push(c.dim('  │ (no output)'))
    lines.push('')
  }
  const ms = Date.parse(checklist.finishedAt ?? '') - Date.parse(checklist.startedAt ?? '')
  const counts = [
    c.green(`${summary.passed} passed`),
    summary.failed ? c.red(`${summary.failed} failed`) : `${summary.failed} failed`,
    `${summary.skipped} skipped`,
    ...(summary.cancelled ? [c.yellow(`${summary.cancelled} cancelled`)] : []),
    summary.pending ? c.yellow(`${summary.pending} pending`) : `${summary.pending} pending`,
  ]
  const reuse = ranAndReused(checklist.results)
  const flaky = checklist.results.filter((r) => flakyNote(r)).map((r) => r.id)
  lines.push(`${c.dim(' Checks ')} ${counts.join(c.dim(' · '))} ${c.dim(`(${summary.total}${reuse ? `; ${reuse}` : ''})`)}`)
  if (flaky.length) lines.push(`${c.dim(' Flaky  ')} ${c.yellow(untrusted(flaky.join(', ')))} ${c.dim('passed only on a retry')}`)
  if (Number.isFinite(ms)) lines.push(`${c.dim(' Time   ')} ${formatDuration(ms)}`)
  // A shard's job answers for its share; the file's verdict, never approved for a share, waits for `verify merge`.
  const share = outcome.file.shard
  const verdict = share
    ? `${verdictLine(share.verdict, c)} ${c.dim(`for shard ${share.index}/${share.total}'s share (the protocol's: ${summary.verdict}, until the shards are merged)`)}`
    : verdictLine(summary.verdict, c)
  lines.push(`${c.dim(' Verdict')} ${verdict}`)
  for (const issue of summary.issues) lines.push(`   ${c.red('•')} ${untrusted(issue)}`)
  for (const warning of summary.warnings) lines.push(`   ${c.yellow('•')} ${untrusted(warning)}`)
  for (const recommendation of summary.recommendations) lines.push(`   ${c.cyan('→')} ${untrusted(recommendation)}`)
  const shownEvidence = untrusted(relative(options.cwd, outcome.evidencePath) || outcome.evidencePath)
  lines.push(`${c.dim(' Evidence')} ${outcome.notSaved ? c.red(`not saved to ${shownEvidence} (see below)`) : shownEvidence}`)
  return `${guardText(lines.join('\n'))}\n`
}

export function createDefaultReporter(options: ReporterOptions): Reporter {
  const c = pc.createColors(options.color)
  // Cursor movement is verify's own: past the output layer, which lets no such sequence through.
  const control = options.writeControl ?? options.write
  // Cursor movement only where a person watches a capable terminal: never in CI, a pipe, a file or a dumb terminal.
  const live = options.isTTY && !options.ci && options.env.TERM !== 'dumb'
  // A redraw moves up one line per row: a row wider than the terminal wraps and would take more. One column spare
  // for terminals that wrap a line exactly as wide as they are.
  const rowWidth = live ? Math.max(1, (options.columns ?? DEFAULT_COLUMNS) - 1) : LINE_MODE_WIDTH
  let checks: readonly ResolvedCheck[] = []
  let results: readonly CheckResult[] = []
  const started = new Map<string, number>()
  const ended = new Map<string, number>()
  let timer: NodeJS.Timeout | undefined
  let frame = 0
  let drawn = 0
  let done = 0
  let finished = false
  const width = 4

  const row = (result: CheckResult, pad: number): string => {
    const t0 = started.get(result.id)
    // A settled check shows what its evidence recorded; a running one, the time so far.
    const ms =
      result.evidence && ended.has(result.id) ? result.evidence.durationMs : t0 === undefined ? undefined : (ended.get(result.id) ?? performance.now()) - t0
    const reused = reusedNote(result)
    const carried = carriedFailureNote(result)
    const elapsed = ms === undefined || reused || carried ? '' : formatDuration(ms)
    const icon = reused ? c.cyan('↺') : result.status === 'running' ? c.cyan(SPINNER[frame % SPINNER.length] as string) : statusIcon(result.status, c)
    const label = reused ?? carried ?? (result.status === 'running' || result.status === 'pending' ? '' : statusText(result.status))
    const flaky = flakyNote(result)
    const note = flaky ? c.yellow(` (${flaky})`) : result.status === 'passed' || !result.reason ? '' : c.dim(` (${firstLine(result.reason)})`)
    return fitWidth(guardCommand(` ${icon} ${result.id.padEnd(pad)} ${c.dim(elapsed.padStart(7))} ${label}${note}`), rowWidth)
  }
  const draw = () => {
    const pad = Math.max(width, ...results.map((r) => r.id.length))
    const rows = options.rows ?? 40
    let visible = [...results]
    // Too many rows for the screen: keep what is running or failed, and say how many are hidden.
    if (visible.length > rows - 4) visible = visible.filter((r) => r.status === 'running' || FAILING.has(r.status))
    const lines = visible.map((r) => row(r, pad))
    lines.push(
      fitWidth(c.dim(` ${done}/${results.length} done${visible.length < results.length ? ` · ${results.length - visible.length} not shown` : ''}`), rowWidth),
    )
    if (drawn > 0) control(`\x1b[${drawn}A\x1b[0J`)
    options.write(`${lines.join('\n')}\n`)
    drawn = lines.length
  }
  // The last frame, once: after the checks `verify run` may ask a person to approve manual checks, and a redraw
  // would erase the question.
  const beat = heartbeatInterval(options.env)
  const heartbeat = () => {
    const now = performance.now()
    for (const result of results) {
      const t0 = started.get(result.id)
      if (result.status !== 'running' || t0 === undefined || now - t0 < beat) continue
      options.write(`${c.dim('…')} ${result.id} ${c.dim(`still running (${formatDuration(now - t0)})`)}\n`)
    }
  }
  const finish = () => {
    if (finished) return
    finished = true
    if (timer) clearInterval(timer)
    if (live) {
      draw()
      control('\x1b[?25h')
    }
  }

  return {
    onRunStart(checklist: Checklist) {
      checks = checklist.protocol.checks
      results = checklist.results
      options.write(
        `${c.bold('verify')} ${c.dim(`· protocol ${untrusted(checklist.protocol.name)} · ${checks.length} check${checks.length === 1 ? '' : 's'}`)}\n`,
      )
      if (live) {
        control('\x1b[?25l')
        draw()
        timer = setInterval(() => {
          frame++
          draw()
        }, 80)
        timer.unref()
      } else if (beat > 0) {
        timer = setInterval(heartbeat, beat)
        timer.unref()
      }
    },
    onCheckStart(check) {
      started.set(check.id, performance.now())
      if (!live) options.write(`${c.dim('▶')} ${check.id} ${c.dim('started')}\n`)
    },
    onCheckEnd(check, result) {
      ended.set(check.id, performance.now())
      done++
      if (live) return done >= results.length ? finish() : draw()
      const pad = Math.max(...results.map((r) => r.id.length))
      options.write(`${row(result, pad).trimStart()} ${c.dim(`[${done}/${results.length}]`)}\n`)
    },
    onRunEnd(outcome) {
      finish()
      options.write(renderSummary(outcome, options, checks))
    },
  }
}
