// Test counts from the report a test command wrote during this run (SPEC §6.3): zero tests is not a pass.
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parseJestJson } from '../test-reports/jest-json.js'
import { projectPath } from '../test-reports/location.js'
import { UnreadableReportError, type ParsedReport } from '../test-reports/report.js'
import type { TestFailure, TestsRecord, TestsSpec } from '../types.js'

export { parseJestJson } from '../test-reports/jest-json.js'

/** `counts` whenever the report could be read, also when it fails the check. */
export type TestReportResult = { ok: true; counts: TestsRecord } | { ok: false; reason: string; counts?: TestsRecord }

const MAX_JUNIT_BYTES = 256 * 1024 * 1024
// JSON.parse holds the whole text and its objects in memory.
const MAX_JSON_BYTES = 64 * 1024 * 1024

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

async function readJUnit(path: string): Promise<ParsedReport> {
  // The XML parser is loaded by the first check with a JUnit report: no other command or check needs it.
  const { JUnitReader } = await import('../test-reports/junit.js')
  const reader = new JUnitReader()
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1024 * 1024 })) reader.write(chunk as string)
  return reader.close()
}

/**
 * Reads and judges the report; `since` is when the check started, so an old report never counts. A report that
 * cannot be read, or that is malformed or hostile, is a failure with the reason.
 */
export async function readTestReport(spec: TestsSpec, cwd: string, since: number): Promise<TestReportResult> {
  const junit = spec.junit !== undefined
  const kind = junit ? 'JUnit' : 'Vitest JSON'
  const shown = (spec.junit ?? spec.vitestJson) as string
  const path = resolve(cwd, shown)
  let info
  try {
    info = await stat(path)
  } catch {
    return { ok: false, reason: `the command wrote no ${kind} report at ${shown}` }
  }
  // Opening a FIFO blocks until something writes it (a thread no signal can free); a device may never end.
  if (!info.isFile()) return { ok: false, reason: `the ${kind} report at ${shown} is not a regular file (a FIFO, a device or a socket)` }
  // File systems with coarse (1 s) timestamps round down; allow that much, never a report from an earlier run.
  if (info.mtimeMs < since - 1000) return { ok: false, reason: `the ${kind} report at ${shown} is older than this run` }
  const max = junit ? MAX_JUNIT_BYTES : MAX_JSON_BYTES
  if (info.size > max) return { ok: false, reason: `the ${kind} report at ${shown} is larger than ${max / (1024 * 1024)} MiB` }
  let report: ParsedReport
  try {
    report = junit ? await readJUnit(path) : parseJestJson(await readFile(path, 'utf8'))
  } catch (error) {
    const why = error instanceof UnreadableReportError ? error.message : `it could not be read: ${(error as Error).message}`
    return { ok: false, reason: `the ${kind} report at ${shown} cannot be used: ${why}` }
  }
  const counts: TestsRecord = { ...report.counts }
  // A file that failed as a whole is named by its path: shown relative, like every path.
  const local = (f: TestFailure) => (f.file ? { ...f, file: projectPath(f.file, cwd), ...(f.name === f.file ? { name: projectPath(f.name, cwd) } : {}) } : f)
  if (report.failures.length) counts.failures = report.failures.map(local)
  const { passed, failed } = counts
  if (failed > 0) return { ok: false, reason: `${plural(failed, 'test')} failed according to ${shown}`, counts }
  if (passed < spec.min) {
    return {
      ok: false,
      reason: passed === 0 ? `no test ran according to ${shown}` : `only ${plural(passed, 'test')} passed, at least ${spec.min} required`,
      counts,
    }
  }
  return { ok: true, counts }
}
