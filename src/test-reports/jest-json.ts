// The JSON report Jest writes with `--json` and Vitest with `--reporter=json` (the same shape). Counted by test
// (`testResults[].assertionResults[]`) when the report lists them, else from its totals; any sign of failure counts:
// `numFailedTests`, a failed test, a test file that failed without a failing test (it did not load, a hook threw),
// `numRuntimeErrorTestSuites`, `success: false`.
import type { TestCounts, TestFailure } from '../types.js'
import { type ParsedReport, UnreadableReportError } from './report.js'
import { findLocation, MAX_FAILURES, testFailure } from './location.js'

const SKIPPED = new Set(['skipped', 'pending', 'todo', 'disabled'])

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const num = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined)
const str = (v: unknown) => (typeof v === 'string' ? v : undefined)

/** Parses a Jest/Vitest JSON report. Throws UnreadableReportError. */
export function parseJestJson(text: string): ParsedReport {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new UnreadableReportError(`it is not valid JSON (${(error as Error).message})`)
  }
  if (!isObject(data)) throw new UnreadableReportError('it is not a JSON object')
  const counts: TestCounts = { passed: 0, failed: 0, skipped: 0 }
  const failures: TestFailure[] = []
  const fail = (failure: TestFailure, n = 1) => {
    counts.failed += n
    if (failures.length < MAX_FAILURES) failures.push(failure)
  }
  const files = Array.isArray(data.testResults) ? data.testResults.filter(isObject) : undefined
  if (files && files.length > 0) {
    for (const file of files) {
      const path = str(file.name) ?? str(file.testFilePath)
      const tests = Array.isArray(file.assertionResults) ? file.assertionResults.filter(isObject) : []
      let failedHere = 0
      for (const test of tests) {
        const status = str(test.status) ?? ''
        if (status === 'passed') counts.passed++
        else if (SKIPPED.has(status)) counts.skipped++
        else {
          failedHere++
          const messages = Array.isArray(test.failureMessages) ? test.failureMessages.filter((m): m is string => typeof m === 'string') : []
          const stack = messages.join('\n')
          const at = isObject(test.location) ? num(test.location.line) : undefined
          const found = at === undefined ? findLocation(stack, path) : undefined
          const name =
            str(test.fullName) ??
            [...(Array.isArray(test.ancestorTitles) ? test.ancestorTitles : []), test.title].filter((t) => typeof t === 'string').join(' > ')
          const message = status === 'failed' ? (messages[0] ?? str(test.failureMessage)) : `the test's status is "${status || 'missing'}"`
          fail(testFailure(name, { file: path, line: at ?? found?.line, message }))
        }
      }
      // A file that failed without a failing test: it did not load, or a hook threw.
      const fileFailed = str(file.status) === 'failed' || str(file.testExecError) !== undefined || isObject(file.testExecError)
      if (fileFailed && failedHere === 0) {
        const message =
          str(file.message) ||
          str(file.failureMessage) ||
          (isObject(file.testExecError) ? str(file.testExecError.message) : undefined) ||
          'the test file failed'
        const found = findLocation(message, path)
        fail(testFailure(path ?? 'test file', { file: path, line: found?.line, message }))
      }
    }
  } else {
    const passed = num(data.numPassedTests)
    const failed = num(data.numFailedTests)
    if (passed === undefined || failed === undefined)
      throw new UnreadableReportError('it has no test counts (numPassedTests, numFailedTests) and no testResults')
    counts.passed = passed
    counts.skipped = (num(data.numPendingTests) ?? 0) + (num(data.numTodoTests) ?? 0)
    if (failed > 0) fail(testFailure('(unnamed tests)', { message: `the report declares ${failed} failed test(s) without naming them` }), failed)
  }
  // The totals may say more than the list shows: the larger number counts.
  const declared = num(data.numFailedTests) ?? 0
  if (declared > counts.failed)
    fail(testFailure('(unnamed tests)', { message: `the report declares ${declared} failed test(s), ${counts.failed} listed` }), declared - counts.failed)
  const runtimeErrors = num(data.numRuntimeErrorTestSuites) ?? 0
  if (runtimeErrors > 0 && counts.failed === 0) fail(testFailure('(test suites)', { message: `${runtimeErrors} test suite(s) could not run` }))
  if (data.success === false && counts.failed === 0) fail(testFailure('(test run)', { message: 'the report says the run did not succeed (success: false)' }))
  return { counts, failures }
}
