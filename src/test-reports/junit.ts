// JUnit XML read by a conforming XML parser (saxes: entities, CDATA, comments, strict well-formedness), streamed so
// a huge report costs no more memory than its failures. Counted by testcase, as GitLab, Jenkins and
// action-junit-report count (docs/configuration.md, "Test reports"):
// - a testcase with <failure> or <error> (or status="failed"/"error") failed — also when it carries a skip marker too;
// - else with <skipped> or status="disabled"/"skipped"/"ignored"/"notrun"/"pending"/"todo" it was skipped;
// - else it passed.
// `tests` and `skipped` attributes are not trusted over the testcases. A suite whose `failures` + `errors`
// attributes declare more failures than its testcases show, or a <failure>/<error> directly in a suite (a hook or a
// file that failed to load), adds those failures: a report never hides one.
import { SaxesParser, type SaxesTagPlain } from 'saxes'
import type { TestCounts, TestFailure } from '../types.js'
import { findLocation, MAX_FAILURES, testFailure } from './location.js'
import { UnreadableReportError, type ParsedReport } from './report.js'

export { UnreadableReportError, type ParsedReport } from './report.js'

const FAILED = new Set(['failed', 'failure', 'fail', 'error', 'errored'])
const SKIPPED = new Set(['skipped', 'skip', 'disabled', 'ignored', 'notrun', 'pending', 'todo'])
// A classname that is a source file (Vitest writes the test file there); a dotted class path is not.
const SOURCE_FILE = /^[^\s]+\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kt|cs|php|swift|exs?|dart|scala)$/
// Failure text kept per failure to find a location and a message in.
const MAX_DETAIL = 16 * 1024

interface Suite {
  name: string
  /** failures + errors, as the suite's attributes declare them. */
  declared: number | undefined
  failed: number
}

interface Case {
  attrs: Record<string, string>
  failed: boolean
  skipped: boolean
  message: string | undefined
  detail: string
}

/** A streaming JUnit reader: `write` the report in pieces, then `close` for the counts. Throws UnreadableReportError. */
export class JUnitReader {
  private readonly parser = new SaxesParser({ xmlns: false, position: true })
  private readonly counts: TestCounts = { passed: 0, failed: 0, skipped: 0 }
  private readonly failures: TestFailure[] = []
  private readonly open: string[] = []
  private readonly suites: Suite[] = []
  private testcase: Case | undefined
  /** Collects the text of the first <failure>/<error> of the testcase or suite open now. */
  private collecting: { detail: string } | undefined
  private suiteFailure: { suite: Suite; message: string | undefined; detail: string } | undefined
  private sawRoot = false

  constructor() {
    const p = this.parser
    p.on('doctype', () => {
      throw new UnreadableReportError('it declares a DOCTYPE; test reports never need one, and verify does not expand the entities one may define')
    })
    p.on('opentag', (tag) => this.onOpen(tag as SaxesTagPlain))
    p.on('closetag', (tag) => this.onClose(tag.name))
    p.on('text', (text) => this.onText(text))
    p.on('cdata', (text) => this.onText(text))
  }

  write(chunk: string): void {
    this.guard(() => this.parser.write(chunk))
  }

  close(): ParsedReport {
    this.guard(() => this.parser.close())
    if (!this.sawRoot) throw new UnreadableReportError('it holds no XML element')
    return { counts: { ...this.counts }, failures: [...this.failures] }
  }

  private guard(step: () => void): void {
    try {
      step()
    } catch (error) {
      if (error instanceof UnreadableReportError) throw error
      throw new UnreadableReportError(`it is not well-formed XML (${(error as Error).message})`)
    }
  }

  private onOpen(tag: SaxesTagPlain): void {
    const { name, attributes: attrs } = tag
    const parent = this.open.at(-1)
    if (parent === undefined) {
      if (name !== 'testsuites' && name !== 'testsuite') throw new UnreadableReportError(`its root element is <${name}>, not <testsuites> or <testsuite>`)
      this.sawRoot = true
    }
    this.open.push(name)
    if (name === 'testsuite' || name === 'testsuites') {
      if (this.testcase) throw new UnreadableReportError(`a <${name}> is inside a <testcase>`)
      const failures = count(attrs.failures)
      const errors = count(attrs.errors)
      this.suites.push({
        name: attrs.name ?? '',
        declared: failures === undefined && errors === undefined ? undefined : (failures ?? 0) + (errors ?? 0),
        failed: 0,
      })
    } else if (name === 'testcase') {
      if (this.testcase) throw new UnreadableReportError('a <testcase> is inside another <testcase>')
      this.testcase = { attrs, failed: false, skipped: false, message: undefined, detail: '' }
    } else if ((name === 'failure' || name === 'error') && parent === 'testcase' && this.testcase) {
      if (!this.testcase.failed) {
        this.testcase.message = withType(attrs.message, attrs.type)
        this.collecting = this.testcase
      }
      this.testcase.failed = true
    } else if (name === 'skipped' && parent === 'testcase' && this.testcase) {
      this.testcase.skipped = true
    } else if ((name === 'failure' || name === 'error') && (parent === 'testsuite' || parent === 'testsuites') && !this.testcase) {
      this.suiteFailure = { suite: this.suites.at(-1) as Suite, message: withType(attrs.message, attrs.type), detail: '' }
      this.collecting = this.suiteFailure
    }
  }

  private onText(text: string): void {
    if (this.collecting && this.collecting.detail.length < MAX_DETAIL) this.collecting.detail += text.slice(0, MAX_DETAIL - this.collecting.detail.length)
  }

  private onClose(name: string): void {
    const parent = this.open.length > 1 ? this.open[this.open.length - 2] : undefined
    this.open.pop()
    if ((name === 'failure' || name === 'error') && this.collecting) {
      if (this.suiteFailure && parent !== 'testcase') {
        const { suite, message, detail } = this.suiteFailure
        suite.failed++
        this.fail(suite.name || 'test suite', message ?? detail, detail, undefined)
        this.suiteFailure = undefined
      }
      this.collecting = undefined
    } else if (name === 'testcase' && this.testcase) {
      this.closeCase(this.testcase)
      this.testcase = undefined
    } else if (name === 'testsuite' || name === 'testsuites') {
      const suite = this.suites.pop() as Suite
      if (suite.declared !== undefined && suite.declared > suite.failed) {
        const hidden = suite.declared - suite.failed
        this.fail(
          suite.name || 'test suite',
          `the report declares ${suite.declared} failing test(s) here but ${suite.failed} failing testcase(s)`,
          '',
          undefined,
          hidden,
        )
        suite.failed = suite.declared
      }
      const outer = this.suites.at(-1)
      if (outer) outer.failed += suite.failed
    }
  }

  private closeCase(testcase: Case): void {
    const status = (testcase.attrs.status ?? '').toLowerCase()
    if (testcase.failed || FAILED.has(status)) {
      const suite = this.suites.at(-1)
      if (suite) suite.failed++
      const { attrs } = testcase
      const classname = attrs.classname ?? ''
      const file = attrs.file || (SOURCE_FILE.test(classname) ? classname : undefined)
      this.fail(attrs.name || classname, testcase.message ?? testcase.detail, `${testcase.message ?? ''}\n${testcase.detail}`, { file, line: attrs.line })
    } else if (testcase.skipped || SKIPPED.has(status)) {
      this.counts.skipped++
    } else {
      this.counts.passed++
    }
  }

  private fail(
    name: string,
    message: string | undefined,
    detail: string,
    where: { file: string | undefined; line: string | undefined } | undefined,
    n = 1,
  ): void {
    this.counts.failed += n
    if (this.failures.length >= MAX_FAILURES) return
    const line = count(where?.line)
    const found = line === undefined ? findLocation(detail, where?.file) : undefined
    const file = where?.file ?? found?.file
    this.failures.push(testFailure(name, { file, line: line ?? found?.line, message }))
  }
}

/** `AssertionError: expected 11 to be 12`, as the runner printed it: the message with its error type. */
function withType(message: string | undefined, type: string | undefined): string | undefined {
  if (!message) return undefined
  return type && /^[\w.$]+$/.test(type) && !message.startsWith(type) ? `${type}: ${message}` : message
}

/** A non-negative integer attribute, or undefined. */
function count(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined
  return Number(value)
}

/** Parses a whole JUnit report held in memory. Throws UnreadableReportError. */
export function parseJUnit(xml: string): ParsedReport {
  const reader = new JUnitReader()
  reader.write(xml)
  return reader.close()
}

/** Counts the testcases of a JUnit report (see the rules above). Throws UnreadableReportError. */
export function countJUnit(xml: string): TestCounts {
  return parseJUnit(xml).counts
}
