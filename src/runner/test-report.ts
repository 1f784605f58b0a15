// Test counts from the report a test command wrote during this run (SPEC §6.3): zero tests is not a pass.
import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { TestCounts, TestsSpec } from '../types.js'

export type TestReportResult = { ok: true; counts: TestCounts } | { ok: false; reason: string; counts?: TestCounts }

const MAX_REPORT_BYTES = 256 * 1024 * 1024

/** Counts testcases in JUnit XML: a testcase with <failure> or <error> failed, with <skipped> was skipped. */
export function countJUnit(xml: string): TestCounts {
  const counts: TestCounts = { passed: 0, failed: 0, skipped: 0 }
  const testcase = /<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g
  for (const match of xml.matchAll(testcase)) {
    const body = match[2] ?? ''
    if (/<(failure|error)\b/.test(body)) counts.failed++
    else if (/<skipped\b/.test(body)) counts.skipped++
    else counts.passed++
  }
  return counts
}

/** Counts from Vitest's (Jest-compatible) JSON reporter. */
export function countVitestJson(json: string): TestCounts | undefined {
  const data = JSON.parse(json) as Record<string, unknown>
  const n = (key: string) => (typeof data[key] === 'number' ? (data[key] as number) : undefined)
  const passed = n('numPassedTests')
  const failed = n('numFailedTests')
  if (passed === undefined || failed === undefined) return undefined
  return { passed, failed, skipped: (n('numPendingTests') ?? 0) + (n('numTodoTests') ?? 0) }
}

/** Reads and judges the report; `since` is when the check started, so an old report never counts. */
export async function readTestReport(spec: TestsSpec, cwd: string, since: number): Promise<TestReportResult> {
  const kind = spec.junit !== undefined ? 'JUnit' : 'Vitest JSON'
  const path = resolve(cwd, (spec.junit ?? spec.vitestJson) as string)
  let info
  try {
    info = await stat(path)
  } catch {
    return { ok: false, reason: `the command wrote no ${kind} report at ${path}` }
  }
  // File systems with coarse (1 s) timestamps round down; allow that much, never a report from an earlier run.
  if (info.mtimeMs < since - 1000) return { ok: false, reason: `the ${kind} report at ${path} is older than this run` }
  if (info.size > MAX_REPORT_BYTES) return { ok: false, reason: `the ${kind} report at ${path} is larger than 256 MiB` }
  let counts: TestCounts | undefined
  try {
    const text = await readFile(path, 'utf8')
    counts = spec.junit !== undefined ? countJUnit(text) : countVitestJson(text)
  } catch (error) {
    return { ok: false, reason: `the ${kind} report at ${path} could not be read: ${(error as Error).message}` }
  }
  if (!counts) return { ok: false, reason: `the ${kind} report at ${path} has no test counts` }
  if (counts.failed > 0) return { ok: false, reason: `${counts.failed} test(s) failed according to ${path}`, counts }
  const ran = counts.passed
  if (ran < spec.min) {
    return { ok: false, reason: ran === 0 ? `no test ran according to ${path}` : `only ${ran} test(s) passed, at least ${spec.min} required`, counts }
  }
  return { ok: true, counts }
}
