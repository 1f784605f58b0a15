// What every test report reader returns, and the error it throws: apart from the readers, so that knowing a report's
// shape does not load the XML parser (only a check with a JUnit report needs it).
import type { TestCounts, TestFailure } from '../types.js'

export interface ParsedReport {
  counts: TestCounts
  /** The first MAX_FAILURES failing tests. */
  failures: TestFailure[]
}

/** The report is not one verify can read: malformed, hostile or of another shape. */
export class UnreadableReportError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UnreadableReportError'
  }
}
