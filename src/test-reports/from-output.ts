// Failing tests found in what a test runner printed, for checks without a typed report: Vitest's `FAIL file > test`,
// Jest's `● suite › test`, mocha's "N failing" section, pytest's `FAILED file::test`. Each with the first line of its
// message and the first location in the project. A heuristic: it names, it never judges.
import type { TestFailure } from '../types.js'
import { findLocation, MAX_FAILURES, testFailure } from './location.js'

// `FAIL  file > suite > test`, or `FAIL  file [ file ]` for a file that failed as a whole.
const VITEST = /^\s*FAIL\s+(\S+)\s+(?:>\s+(.+?)|\[\s*\S+\s*\])\s*$/
const JEST = /^\s*● (.+)$/
const MOCHA_FAILING = /^\s*\d+ failing\s*$/
const MOCHA_ENTRY = /^\s*(\d+)\) (.*)$/
const PYTEST = /^FAILED (\S+?)::(\S+)(?: - (.*))?$/
// Blocks of a failure end where the next begins, or after this many lines.
const BLOCK = 40

interface Found {
  name: string
  file?: string
  /** Index of the line after the header: where the message and the location are looked for. */
  from: number
  message?: string
}

/** The lines of `lines` from `from` until the next header or BLOCK lines. */
function block(lines: readonly string[], from: number, headers: ReadonlySet<number>): string[] {
  const out: string[] = []
  for (let i = from; i < lines.length && i < from + BLOCK && !headers.has(i); i++) out.push(lines[i] as string)
  return out
}

function vitest(lines: readonly string[]): Found[] {
  const found: Found[] = []
  for (const [i, line] of lines.entries()) {
    const m = VITEST.exec(line)
    if (m) found.push({ name: m[2] ?? (m[1] as string), file: m[1] as string, from: i + 1 })
  }
  return found
}

function jest(lines: readonly string[]): Found[] {
  const found: Found[] = []
  for (const [i, line] of lines.entries()) {
    const m = JEST.exec(line)
    // `● Console` heads what the tests logged, not a failure.
    if (m && (m[1] as string).trim() !== 'Console') found.push({ name: (m[1] as string).replace(/ › /g, ' > ').trim(), from: i + 1 })
  }
  return found
}

function mocha(lines: readonly string[]): Found[] {
  const start = lines.findIndex((line) => MOCHA_FAILING.test(line))
  if (start < 0) return []
  const found: Found[] = []
  for (let i = start + 1; i < lines.length; i++) {
    const m = MOCHA_ENTRY.exec(lines[i] as string)
    if (!m) continue
    // The title goes on over the next lines, indented, until one ends with a colon.
    const parts = [(m[2] as string).trim()]
    let j = i
    while (!(parts.at(-1) as string).endsWith(':') && j + 1 < lines.length && j < i + 10 && (lines[j + 1] as string).trim() !== '')
      parts.push((lines[++j] as string).trim())
    found.push({ name: parts.join(' ').replace(/:$/, ''), from: j + 1 })
    i = j
  }
  return found
}

function pytest(lines: readonly string[]): Found[] {
  const found: Found[] = []
  for (const [i, line] of lines.entries()) {
    const m = PYTEST.exec(line.trim())
    if (m) found.push({ name: m[2] as string, file: m[1] as string, from: i + 1, ...(m[3] ? { message: m[3] } : {}) })
  }
  return found
}

/** The failing tests `text` names, first ones first (at most MAX_FAILURES), or none when no runner's format is seen. */
export function failuresFromOutput(text: string): TestFailure[] {
  const lines = text.split(/\r?\n/)
  for (const finder of [vitest, jest, mocha, pytest]) {
    const found = finder(lines)
    if (found.length === 0) continue
    const headers = new Set(found.map((f) => f.from - 1))
    const seen = new Set<string>()
    const failures: TestFailure[] = []
    for (const f of found) {
      if (seen.has(f.name) || failures.length >= MAX_FAILURES) continue
      seen.add(f.name)
      const body = block(lines, f.from, headers)
      const at = findLocation(body.join('\n'), f.file)
      failures.push(testFailure(f.name, { file: f.file ?? at?.file, line: at?.line, message: f.message ?? body.join('\n') }))
    }
    return failures
  }
  return []
}

// A coverage table (nyc, c8, Vitest's v8/istanbul text reporter): rules of dashes and rows of `|` columns, or the
// text-summary block between `=== Coverage summary ===` and a line of `=`.
const TABLE_LINE = /^\s*(?:[-=|+\s]{3,}|.*\|.*\|.*)$/
const COVERAGE_HEADER = /%\s*(?:Stmts|Branch|Funcs|Lines)|Coverage summary|Uncovered Line/
const SUMMARY_START = /^=+ Coverage summary =+$/
const SUMMARY_END = /^=+$/

/** `lines` without coverage tables: they say nothing about a failure and push it out of a tail. */
export function withoutCoverage(lines: readonly string[]): string[] {
  const keep = lines.map(() => true)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (SUMMARY_START.test(line.trim())) {
      let j = i + 1
      while (j < lines.length && !SUMMARY_END.test((lines[j] as string).trim())) j++
      for (let k = i; k <= Math.min(j, lines.length - 1); k++) keep[k] = false
      i = j
      continue
    }
    if (!TABLE_LINE.test(line) || line.trim() === '') continue
    let j = i
    while (j + 1 < lines.length && TABLE_LINE.test(lines[j + 1] as string) && (lines[j + 1] as string).trim() !== '') j++
    if (lines.slice(i, j + 1).some((l) => COVERAGE_HEADER.test(l))) for (let k = i; k <= j; k++) keep[k] = false
    i = j
  }
  return lines.filter((_, i) => keep[i])
}
