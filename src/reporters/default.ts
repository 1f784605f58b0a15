// The default reporter: a live task list in a terminal, one line per start and end elsewhere, then the summary.
import { relative } from 'node:path'
import pc from 'picocolors'
import { formatDuration } from '../duration.js'
import { tailLines } from '../runner/capture.js'
import type { CheckResult, CheckStatus, Checklist, ResolvedCheck } from '../types.js'
import type { ReporterOptions } from './options.js'
import type { Reporter, RunOutcome } from './types.js'

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const TAIL_LINES = 15

export function statusIcon(status: CheckStatus, colors: ReturnType<typeof pc.createColors>): string {
  switch (status) {
    case 'passed':
      return colors.green('✓')
    case 'failed':
    case 'error':
      return colors.red('✗')
    case 'timed_out':
      return colors.red('⏱')
    case 'pending_manual':
    case 'stale':
      return colors.yellow('?')
    case 'skipped':
    case 'cancelled':
      return colors.dim('↓')
    default:
      return colors.dim('·')
  }
}

export function statusLabel(result: CheckResult): string {
  return result.status.replace('_', ' ')
}

export function verdictLine(verdict: string, colors: ReturnType<typeof pc.createColors>): string {
  const text = verdict.toUpperCase()
  return verdict === 'approved' ? colors.bold(colors.green(text)) : verdict === 'rejected' ? colors.bold(colors.red(text)) : colors.bold(colors.yellow(text))
}

/** Renders the end-of-run summary: failing tails, counts, verdict, issues, next steps and where the evidence is. */
export function renderSummary(outcome: RunOutcome, options: ReporterOptions, checks: readonly ResolvedCheck[]): string {
  const c = pc.createColors(options.color)
  const { summary, checklist } = outcome
  const lines: string[] = ['']
  for (const result of checklist.results) {
    const check = checks.find((k) => k.id === result.id)
    if (!['failed', 'timed_out', 'error'].includes(result.status) || !result.evidence) continue
    const tail = tailLines(result.evidence.output.text, TAIL_LINES).filter((l) => l.trim() !== '')
    lines.push(c.red(c.bold(`✗ ${result.name}`)) + c.dim(` — ${result.reason ?? statusLabel(result)}`))
    if (check?.command !== undefined) lines.push(c.dim(`  $ ${result.evidence.command}`))
    for (const line of tail) lines.push(c.dim('  │ ') + line)
    if (tail.length === 0) lines.push(c.dim('  │ (no output)'))
    lines.push('')
  }
  const ms = Date.parse(checklist.finishedAt ?? '') - Date.parse(checklist.startedAt ?? '')
  const counts = [
    c.green(`${summary.passed} passed`),
    summary.failed ? c.red(`${summary.failed} failed`) : `${summary.failed} failed`,
    `${summary.skipped} skipped`,
    summary.pending ? c.yellow(`${summary.pending} pending`) : `${summary.pending} pending`,
  ]
  lines.push(`${c.dim(' Checks ')} ${counts.join(c.dim(' · '))} ${c.dim(`(${summary.total})`)}`)
  if (Number.isFinite(ms)) lines.push(`${c.dim(' Time   ')} ${formatDuration(ms)}`)
  lines.push(`${c.dim(' Verdict')} ${verdictLine(summary.verdict, c)}`)
  for (const issue of summary.issues) lines.push(`   ${c.red('•')} ${issue}`)
  for (const warning of summary.warnings) lines.push(`   ${c.yellow('•')} ${warning}`)
  for (const recommendation of summary.recommendations) lines.push(`   ${c.cyan('→')} ${recommendation}`)
  lines.push(`${c.dim(' Evidence')} ${relative(options.cwd, outcome.evidencePath) || outcome.evidencePath}`)
  return `${lines.join('\n')}\n`
}

export function createDefaultReporter(options: ReporterOptions): Reporter {
  const c = pc.createColors(options.color)
  // Cursor movement only where a person watches a capable terminal: never in CI, a pipe, a file or a dumb terminal.
  const live = options.isTTY && !options.ci && options.env.TERM !== 'dumb'
  let checks: readonly ResolvedCheck[] = []
  let results: readonly CheckResult[] = []
  const started = new Map<string, number>()
  const ended = new Map<string, number>()
  let timer: NodeJS.Timeout | undefined
  let frame = 0
  let drawn = 0
  let done = 0
  const width = 4

  const row = (result: CheckResult, pad: number): string => {
    const t0 = started.get(result.id)
    // A settled check shows what its evidence recorded; a running one, the time so far.
    const ms = result.evidence && ended.has(result.id) ? result.evidence.durationMs : t0 === undefined ? undefined : (ended.get(result.id) ?? performance.now()) - t0
    const elapsed = ms === undefined ? '' : formatDuration(ms)
    const icon = result.status === 'running' ? c.cyan(SPINNER[frame % SPINNER.length] as string) : statusIcon(result.status, c)
    const label = result.status === 'running' || result.status === 'pending' ? '' : statusLabel(result)
    const note = result.status === 'passed' || !result.reason ? '' : c.dim(` (${result.reason.split('\n')[0]})`)
    return ` ${icon} ${result.id.padEnd(pad)} ${c.dim(elapsed.padStart(7))} ${label}${note}`.slice(0, 400)
  }
  const draw = () => {
    const pad = Math.max(width, ...results.map((r) => r.id.length))
    const rows = options.rows ?? 40
    let visible = [...results]
    // Too many rows for the screen: keep what is running or failed, and say how many are hidden.
    if (visible.length > rows - 4) visible = visible.filter((r) => r.status === 'running' || ['failed', 'timed_out', 'error'].includes(r.status))
    const lines = visible.map((r) => row(r, pad))
    lines.push(c.dim(` ${done}/${results.length} done${visible.length < results.length ? ` · ${results.length - visible.length} not shown` : ''}`))
    const clear = drawn > 0 ? `\x1b[${drawn}A\x1b[0J` : ''
    options.write(`${clear}${lines.join('\n')}\n`)
    drawn = lines.length
  }

  return {
    onRunStart(checklist: Checklist) {
      checks = checklist.protocol.checks
      results = checklist.results
      options.write(`${c.bold('verify')} ${c.dim(`· protocol ${checklist.protocol.name} · ${checks.length} check${checks.length === 1 ? '' : 's'}`)}\n`)
      if (live) {
        options.write('\x1b[?25l')
        draw()
        timer = setInterval(() => {
          frame++
          draw()
        }, 80)
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
      if (live) return draw()
      const pad = Math.max(...results.map((r) => r.id.length))
      options.write(`${row(result, pad).trimStart()} ${c.dim(`[${done}/${results.length}]`)}\n`)
    },
    onRunEnd(outcome) {
      if (timer) clearInterval(timer)
      if (live) {
        draw()
        options.write('\x1b[?25h')
      }
      options.write(renderSummary(outcome, options, checks))
    },
  }
}
