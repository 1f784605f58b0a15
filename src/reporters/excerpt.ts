// The lines of a check's output that matter to someone fixing it: error lines first, then the tail.
import { tailLines } from '../runner/capture.js'
import type { CheckResult, CheckStatus } from '../types.js'

/** Statuses that make the verdict `rejected` when the check is required. */
export const FAILING: ReadonlySet<CheckStatus> = new Set(['failed', 'timed_out', 'error'])

// Words compilers, test runners and runtimes use when something went wrong.
const MATTERS =
  /\b(?:error|errors|err!|fail|failed|failing|failure|fatal|panic(?:ked)?|exception|assert(?:ion)?(?:error)?|traceback|expected|received|cannot|unable to|not found|segmentation fault|undefined reference)\b|[✗✖×❌]/i
// "0 failed", "no errors": counts that say nothing went wrong.
const ALL_CLEAR = /\b(?:0|no) (?:errors?|failures?|failed|failing)\b/i

export interface ExcerptOptions {
  /** Lines in all (default 30). */
  maxLines?: number
  /** Of those, at most this many error lines (default half of maxLines). */
  maxMatches?: number
  /** Characters per line; longer lines are cut with an ellipsis (default 300). */
  width?: number
}

export interface Excerpt {
  /** Error lines, in output order, each once. */
  matches: string[]
  /** The last lines, without those already in `matches`. */
  tail: string[]
  /** Lines of output in all. */
  total: number
}

export function cutLine(line: string, width: number): string {
  const chars = [...line]
  return chars.length <= width ? line : `${chars.slice(0, width - 1).join('')}…`
}

export function isErrorLine(line: string): boolean {
  return MATTERS.test(line) && !ALL_CLEAR.test(line)
}

/** Picks the lines that matter out of `text`: bounded whatever the size of the output. */
export function excerpt(text: string, options: ExcerptOptions = {}): Excerpt {
  const maxLines = options.maxLines ?? 30
  const maxMatches = Math.min(maxLines, options.maxMatches ?? Math.ceil(maxLines / 2))
  const width = options.width ?? 300
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  const seen = new Set<string>()
  const matches: string[] = []
  const matchIndexes = new Set<number>()
  for (let i = 0; i < lines.length && matches.length < maxMatches; i++) {
    const line = (lines[i] as string).trimEnd()
    const key = line.trim()
    if (key === '' || seen.has(key) || !isErrorLine(line)) continue
    seen.add(key)
    matches.push(cutLine(line, width))
    matchIndexes.add(i)
  }
  const tail: string[] = []
  const room = maxLines - matches.length
  for (let i = lines.length - 1; i >= 0 && tail.length < room; i--) {
    const line = (lines[i] as string).trimEnd()
    if (matchIndexes.has(i) || (tail.length === 0 && line.trim() === '')) continue
    tail.unshift(cutLine(line, width))
  }
  // The tail may run into the matches: drop tail lines already shown as matches.
  return { matches, tail: tail.filter((line) => !matches.includes(line) || line.trim() === ''), total: lines.length }
}

/** The last `n` non-blank-ended lines of a check's output, each cut to `width`. */
export function outputTail(result: CheckResult, n: number, width = 1000): string[] {
  return tailLines(result.evidence?.output.text ?? '', n).map((line) => cutLine(line, width))
}

/** How a settled check ended, in a few words: `exit code 3`, `timed out after 10s (SIGTERM)`, …. */
export function howItEnded(result: CheckResult): string {
  const e = result.evidence
  if (result.status === 'timed_out') return result.reason ?? `timed out${e?.signal ? ` (${e.signal})` : ''}`
  if (result.reason) return result.reason
  if (e?.signal) return `killed by ${e.signal}`
  if (e?.exitCode !== null && e?.exitCode !== undefined) return `exit code ${e.exitCode}`
  return result.status.replace('_', ' ')
}
