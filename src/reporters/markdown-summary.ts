// The markdown summary shared by the `markdown` and `github-actions` reporters: verdict, a table of checks,
// the output tails of failing checks in <details>, kept within a byte budget (tails shrink first, then rows).
import { relative } from 'node:path'
import { formatDuration } from '../duration.js'
import type { CheckResult } from '../types.js'
import { failingTestLines, failureExcerpt, howItEnded, moreTestsLine, outputTail } from './excerpt.js'
import { guardCommand, guardText, untrusted } from './safe-text.js'
import { ownShare } from './scope.js'
import { carriedFailureNote, FAILING, ranAndReused, reusedNote, STATUS_EMOJI, statusText, VERDICT_EMOJI } from './status.js'
import type { RunOutcome } from './types.js'

export interface MarkdownSummaryOptions {
  /** The summary never takes more bytes of UTF-8 than this. */
  maxBytes: number
  /** How the limit is named in the notes (default: `maxBytes` in KiB / MiB). */
  limitLabel?: string
  /** Output lines shown per failing check, at most (default 50). */
  tailLines?: number
  /** The folder the evidence path is shown relative to. */
  cwd: string
  /** For stdout, maybe a CI log: no line may read as a workflow command (see guardText); counted in `maxBytes`. */
  guardCommands?: boolean
}

// Below this many bytes a failing check's tail is not worth showing; fewer checks get a readable one instead.
const MIN_DETAIL_BYTES = 1024
// Room kept for the notes that say what was left out.
const NOTE_RESERVE = 512
const MAX_RECOMMENDATIONS = 10
const MAX_TESTS = 5

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`
  return `${bytes} bytes`
}

/** Text for a markdown table cell or paragraph: untrusted text, no HTML, no table pipes, no emphasis. */
export function escapeMarkdown(text: string): string {
  return untrusted(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~#])/g, '\\$1')
}

function escapeHtml(text: string): string {
  return untrusted(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** A fenced code block that no line of `lines` can close early. */
function codeBlock(lines: readonly string[]): string {
  const longest = Math.max(2, ...lines.map((line) => Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length))))
  const fence = '`'.repeat(longest + 1)
  return `${fence}text\n${lines.join('\n')}\n${fence}`
}

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8')
const lineCount = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0))

function checkLabel(result: CheckResult): string {
  return result.name === result.id ? `\`${result.id}\`` : `${escapeMarkdown(result.name)} (\`${result.id}\`)`
}

function statusCell(result: CheckResult): string {
  const status = statusText(result.status)
  const why = result.status === 'passed' ? '' : result.reason ? ` — ${escapeMarkdown(result.reason.split('\n')[0] ?? '')}` : ''
  const notes = [
    result.required ? '' : 'optional',
    reusedNote(result) ?? '',
    carriedFailureNote(result) ? 'not run now' : '',
    result.evidence?.flaky ? 'flaky' : '',
  ].filter(Boolean)
  return `${status}${why}${notes.length ? ` _(${notes.join(', ')})_` : ''}`
}

function row(result: CheckResult): string {
  const duration = result.evidence && !result.evidence.reused ? formatDuration(result.evidence.durationMs) : '—'
  return `| ${STATUS_EMOJI[result.status]} ${checkLabel(result)} | ${statusCell(result)} | ${duration} |\n`
}

/** The failing tests of a check as a markdown list, shown above its output so a collapsed block hides none. */
function testList(result: CheckResult): string {
  const found = failureExcerpt(result, { maxLines: 0, maxTests: MAX_TESTS })
  if (found.tests.length === 0) return ''
  const items = found.tests.map((test) => {
    const [title, message] = failingTestLines(test, 300)
    return `- ❌ ${escapeMarkdown(title as string)}${message ? ` — ${escapeMarkdown(message)}` : ''}\n`
  })
  return `\`${result.id}\` failing tests:\n\n${items.join('')}${moreTestsLine(found)
    .map((l) => `- ${escapeMarkdown(l)}\n`)
    .join('')}\n`
}

function detail(result: CheckResult, lines: readonly string[], of: number, tests = ''): string {
  const shown = lines.length < of ? `last ${lines.length} of ${of} lines` : `${lines.length} line${lines.length === 1 ? '' : 's'}`
  const title = `${STATUS_EMOJI[result.status]} <code>${result.id}</code> ${escapeHtml(result.name === result.id ? '' : result.name)} — ${escapeHtml(howItEnded(result))} (${shown})`
  const body = lines.length ? codeBlock(lines) : '_(no output)_'
  return `${tests}<details><summary>${title.replace(/ {2,}/g, ' ')}</summary>\n\n${body}\n\n</details>\n\n`
}

/** Keeps as many of the last lines as fit in `maxBytes` once rendered; null when not even the frame fits. */
function fitDetail(result: CheckResult, lines: readonly string[], maxBytes: number, tests: string): string | null {
  let low = 0
  let high = lines.length
  if (bytesOf(detail(result, [], lines.length, tests)) > maxBytes) return tests ? fitDetail(result, lines, maxBytes, '') : null
  // Binary search on how many trailing lines fit.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (bytesOf(detail(result, lines.slice(-mid), lines.length, tests)) <= maxBytes) low = mid
    else high = mid - 1
  }
  return detail(result, low ? lines.slice(-low) : [], lines.length, tests)
}

function cutUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8')
  if (buf.length <= maxBytes) return text
  let at = Math.max(0, maxBytes)
  while (at > 0 && ((buf[at] ?? 0) & 0xc0) === 0x80) at--
  return buf.toString('utf8', 0, at)
}

/** Renders the run as GitHub-flavoured markdown of at most `maxBytes` bytes, saying what it had to leave out. */
export function renderMarkdownSummary(run: RunOutcome, options: MarkdownSummaryOptions): string {
  const outcome = ownShare(run)
  const { summary, checklist } = outcome
  const shard = outcome.file.shard
  const results = checklist.results
  const limit = options.limitLabel ?? formatBytes(options.maxBytes)
  const ms = Date.parse(checklist.finishedAt ?? '') - Date.parse(checklist.startedAt ?? '')
  const reuse = ranAndReused(results)
  const counts = `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped, ${summary.cancelled ? `${summary.cancelled} cancelled, ` : ''}${summary.pending} pending${reuse ? ` (${reuse})` : ''}`
  const head =
    `### ${VERDICT_EMOJI[summary.verdict]} verify${shard ? ` shard ${shard.index}/${shard.total}` : ''}: ${summary.verdict}\n\n` +
    `${shard ? `Shard ${shard.index}/${shard.total} of protocol` : 'Protocol'} \`${escapeMarkdown(checklist.protocol.name).replace(/`/g, '')}\` · ${summary.total} check${summary.total === 1 ? '' : 's'}: ${counts}` +
    `${Number.isFinite(ms) ? ` · ${formatDuration(ms)}` : ''}\n\n` +
    (outcome.interrupted ? `**Interrupted by ${outcome.interrupted}**: unfinished checks were cancelled.\n\n` : '') +
    (shard ? `This job ran its share of the checks; the protocol's verdict comes from \`verify merge\` of every shard's evidence.\n\n` : '')
  const tableHead = '| Check | Status | Duration |\n| :-- | :-- | --: |\n'
  // Recommendations are verify's own words, with commands in backticks: kept as markdown, never as HTML.
  const recommendations = summary.recommendations.slice(0, MAX_RECOMMENDATIONS).map((r) => `- ${escapeHtml(r)}\n`)
  if (summary.recommendations.length > MAX_RECOMMENDATIONS) recommendations.push(`- … and ${summary.recommendations.length - MAX_RECOMMENDATIONS} more\n`)
  const next = recommendations.length ? `**Next**\n\n${recommendations.join('')}\n` : ''
  const evidence = relative(options.cwd, outcome.evidencePath) || outcome.evidencePath
  const foot = `<sub>Evidence: <code>${escapeHtml(evidence)}</code> · full logs beside it in <code>logs/</code></sub>\n`

  const rows = results.map(row)
  const failing = results.filter((r) => FAILING.has(r.status) && r.evidence)
  const guard = options.guardCommands ? guardText : (text: string) => text
  const tails = failing.map((r) => outputTail(r, options.tailLines ?? 50).map(options.guardCommands ? guardCommand : (line: string) => line))
  const totals = failing.map((r) => lineCount(r.evidence?.output.text ?? ''))
  const lists = failing.map(testList)
  const compose = (keptRows: readonly string[], details: readonly string[], notes: readonly string[]) =>
    guard(
      head +
        tableHead +
        keptRows.join('') +
        '\n' +
        next +
        (details.length ? `**Failing output**\n\n${details.join('')}` : '') +
        notes.map((n) => `_${n}_\n\n`).join('') +
        foot,
    )

  const full = compose(
    rows,
    failing.map((r, i) => detail(r, tails[i] ?? [], totals[i] ?? 0, lists[i])),
    [],
  )
  if (bytesOf(full) <= options.maxBytes) return full

  // 1. Shorten the tails: share what the rest leaves among the failing checks, each a readable size.
  const fixed = bytesOf(compose(rows, [], [])) + NOTE_RESERVE
  const budget = options.maxBytes - fixed
  if (budget >= 0) {
    const shown = Math.min(failing.length, Math.max(0, Math.floor(budget / MIN_DETAIL_BYTES)))
    const details: string[] = []
    for (let i = 0; i < shown; i++) {
      const fitted = fitDetail(failing[i] as CheckResult, tails[i] ?? [], Math.floor(budget / shown), lists[i] ?? '')
      if (fitted) details.push(fitted)
    }
    const left = failing.length - details.length
    const note = `Output tails were shortened${left ? ` and ${left} of ${failing.length} left out` : ''} to keep this summary under ${limit}; the full logs are in the evidence folder.`
    return cutUtf8(compose(rows, details, [note]), options.maxBytes)
  }

  // 2. Even the table is too big: no tails, and rows of failing checks first, passing ones last.
  const room = options.maxBytes - bytesOf(compose([], [], [])) - NOTE_RESERVE
  const order = results.map((_, i) => i).toSorted((a, b) => rank(results[a] as CheckResult) - rank(results[b] as CheckResult) || a - b)
  const keep = new Set<number>()
  let used = 0
  for (const i of order) {
    const size = bytesOf(rows[i] as string)
    if (used + size > room) break
    keep.add(i)
    used += size
  }
  const kept = rows.filter((_, i) => keep.has(i))
  const dropped = results.length - kept.length
  const note = `${dropped} of ${results.length} checks and every output tail were left out to keep this summary under ${limit}; the evidence file lists them all.`
  return cutUtf8(compose(kept, [], [note]), options.maxBytes)
}

// Which rows to keep first when they cannot all be shown.
function rank(result: CheckResult): number {
  if (FAILING.has(result.status)) return result.required ? 0 : 2
  return result.status === 'passed' ? 3 : 1
}
