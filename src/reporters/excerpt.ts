// The lines of a check's output that matter to someone fixing it: the failing tests (from the evidence's test report,
// else found in the output), error lines, then the tail. Every reporter takes its failure excerpt from here.
import { tailLines } from '../runner/capture.js'
import { failuresFromOutput, withoutCoverage } from '../test-reports/from-output.js'
import type { CheckResult, TestFailure } from '../types.js'
import { afterLastCR, plainLine } from './safe-text.js'
import { statusText } from './status.js'

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

// Control characters other than tab, LF and CR: invisible at best, garbling a terminal or a document at worst (C1
// included: U+009B is a CSI to many terminals).
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g

/** `text` without control characters other than tab, LF and CR. */
export function stripControl(text: string): string {
  return text.replace(CONTROL, '')
}

/** The line as a terminal would end up showing it (see plainLine), cut to `width` characters with an ellipsis. */
export function cutLine(line: string, width: number): string {
  const clean = plainLine(line)
  const chars = [...clean]
  return chars.length <= width ? clean : `${chars.slice(0, width - 1).join('')}…`
}

export function isErrorLine(line: string): boolean {
  return MATTERS.test(line) && !ALL_CLEAR.test(line)
}

/**
 * Picks the lines that matter out of `text`, bounded whatever the size of the output: all of it when it is
 * short; else the error lines (each once, in order), then the last lines.
 */
export function excerpt(text: string, options: ExcerptOptions = {}): Excerpt {
  const maxLines = options.maxLines ?? 30
  const maxMatches = Math.min(maxLines, options.maxMatches ?? Math.ceil(maxLines / 2))
  const width = options.width ?? 300
  const lines = text.split(/\r?\n/)
  while (lines.length && (lines.at(-1) as string).trim() === '') lines.pop()
  const cut = (line: string) => cutLine(line.trimEnd(), width)
  if (lines.length <= maxLines) return { matches: [], tail: lines.map(cut), total: lines.length }
  const seen = new Set<string>()
  const found = new Set<number>()
  for (let i = 0; i < lines.length && found.size < maxMatches; i++) {
    const key = afterLastCR(lines[i] as string).trim()
    if (key === '' || seen.has(key) || !isErrorLine(key)) continue
    seen.add(key)
    found.add(i)
  }
  const tail: string[] = []
  for (let i = lines.length - 1; i >= 0 && tail.length < maxLines - found.size; i--) {
    if (!found.has(i)) tail.unshift(cut(lines[i] as string))
  }
  return { matches: [...found].map((i) => cut(lines[i] as string)), tail, total: lines.length }
}

export interface FailureExcerptOptions extends ExcerptOptions {
  /** Failing tests shown, at most (default 5). */
  maxTests?: number
}

export interface FailureExcerpt extends Excerpt {
  /** The failing tests to show, first ones first. */
  tests: TestFailure[]
  /** Failing tests known but not in `tests`. */
  moreTests: number
}

/**
 * What a reporter shows of a failing check, bounded: its failing tests (from the parsed report when the evidence has
 * them, else as the output names them), then error lines (only when no test is named) and the tail, without
 * coverage tables.
 */
export function failureExcerpt(result: CheckResult, options: FailureExcerptOptions = {}): FailureExcerpt {
  const text = result.evidence?.output.text ?? ''
  const recorded = result.evidence?.tests
  const found = recorded?.failures?.length ? recorded.failures : failuresFromOutput(text)
  const maxTests = options.maxTests ?? 5
  const tests = found.slice(0, maxTests)
  const known = Math.max(found.length, recorded?.failures?.length ? recorded.failed : 0)
  const lines = withoutCoverage(text.split(/\r?\n/))
  // With the failing tests named, the error lines would mostly repeat them: only when asked for.
  const rest = excerpt(lines.join('\n'), { ...options, maxMatches: options.maxMatches ?? (tests.length ? 0 : undefined) })
  const total = excerpt(text, { maxLines: 0, maxMatches: 0 }).total
  // A line that only repeats a test's message says nothing new.
  const said = new Set(
    tests
      .flatMap((t) => [t.message, t.name])
      .filter((t): t is string => t !== undefined)
      .map((t) => plainLine(t).trim()),
  )
  const tail = rest.tail.filter((line) => !said.has(line.trim()))
  return { matches: rest.matches, tail, total, tests, moreTests: known - tests.length }
}

/** A failing test as lines: `name (file:line)`, then the first line of its message when known. */
export function failingTestLines(test: TestFailure, width: number): string[] {
  const where = test.file ? ` (${test.file}${test.line ? `:${test.line}` : ''})` : ''
  return [cutLine(`${test.name}${where}`, width), ...(test.message ? [cutLine(test.message, width)] : [])]
}

/** `… and 3 more failing tests`, or nothing. */
export function moreTestsLine(found: FailureExcerpt): string[] {
  return found.moreTests > 0 ? [`… and ${found.moreTests} more failing test${found.moreTests === 1 ? '' : 's'}`] : []
}

/** The last `n` non-blank-ended lines of a check's output, without coverage tables, each cut to `width`. */
export function outputTail(result: CheckResult, n: number, width = 1000): string[] {
  const text = result.evidence?.output.text ?? ''
  return tailLines(withoutCoverage(text.split('\n')).join('\n'), n).map((line) => cutLine(line, width))
}

/** How a settled check ended, in a few words: `exit code 3`, `timed out after 10s (SIGTERM)`, …. */
export function howItEnded(result: CheckResult): string {
  const e = result.evidence
  if (result.status === 'timed_out') return result.reason ?? `timed out${e?.signal ? ` (${e.signal})` : ''}`
  if (result.reason) return result.reason
  if (e?.signal) return `killed by ${e.signal}`
  if (e?.exitCode !== null && e?.exitCode !== undefined) return `exit code ${e.exitCode}`
  return statusText(result.status)
}
