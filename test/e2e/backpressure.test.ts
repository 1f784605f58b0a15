// Reliability: live output into a reader that cannot keep up (SPEC §13: peak RSS ≤ 150 MiB whatever the reporter and
// however slow the reader). What the reader cannot take of the live view is left out and said so; the evidence (byte
// count, SHA-256) and the log keep everything, and the documents and summaries are never cut.
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, test } from 'vitest'
import { boundLiveOutput } from '../../src/reporters/live-budget.js'
import type { Reporter } from '../../src/reporters/types.js'
import type { CheckResult, ResolvedCheck } from '../../src/types.js'
import { BIN, cleanup, fixture, readEvidence, sandbox } from '../helpers/cli.js'
import { MIB, watchPeakRss } from '../helpers/scenario.js'

afterAll(cleanup)

const FLOOD_BYTES = 256 * MIB

/** SHA-256 of what `fixtures/bin/flood.mjs <total>` prints. */
function floodSha(total: number): string {
  const line = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.repeat(2).slice(0, 99) + '\n'
  const block = Buffer.from(line.repeat(655))
  const hash = createHash('sha256')
  for (let left = total; left > 0; left -= block.length) hash.update(left >= block.length ? block : block.subarray(0, left))
  return hash.digest('hex')
}

interface ReaderReport {
  bytes: number
  notes: string[]
  tail: string
}

/** Runs verify with its stdout going into a slow reader; returns its exit code and its peak RSS (VmHWM). */
async function runIntoSlowReader(
  args: readonly string[],
  dir: string,
  slowForMs: number,
): Promise<{ code: number | null; peakMiB: number; report: ReaderReport }> {
  const reportFile = `${dir}/reader.json`
  const reader = spawn(process.execPath, [fixture('bin/slow-reader.mjs'), String(MIB), String(slowForMs), reportFile], { stdio: ['pipe', 'ignore', 'inherit'] })
  const verify = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', reader.stdin, 'ignore'],
    env: { ...process.env, NO_COLOR: '1', CI: '1', E2E_TMP: dir },
  })
  // The reader sees the end of its input only when no one else holds the pipe's writing end.
  reader.stdin.destroy()
  const peak = watchPeakRss(verify.pid as number)
  const deadline = setTimeout(() => verify.kill('SIGKILL'), 90_000)
  const code = await new Promise<number | null>((resolve) => verify.once('exit', (c) => resolve(c)))
  const peakKiB = peak.stop()
  clearTimeout(deadline)
  await new Promise((resolve) => reader.once('close', resolve))
  return { code, peakMiB: peakKiB / 1024, report: JSON.parse(readFileSync(reportFile, 'utf8')) as ReaderReport }
}

describe('a slow reader of live output', () => {
  test('--reporter verbose, a check printing 256 MiB, a reader taking 1 MiB/s: memory stays bounded, what was left out is said, the evidence is exact', async () => {
    const box = sandbox()
    const args = ['--cwd', fixture('backpressure'), '--reporter', 'verbose', '--evidence', box.evidencePath, '--no-color']
    // The budget is for the output path: the config's TypeScript transform is cached first, as after any first run.
    // (A first run after `npm ci` loads babel as well, and can exceed it under load: see docs/performance.md.)
    execFileSync(process.execPath, [BIN, 'list', '--cwd', fixture('backpressure')], { stdio: 'ignore', timeout: 30_000 })
    const { code, peakMiB, report } = await runIntoSlowReader(args, box.dir, 1500)
    expect(code).toBe(0)
    console.info(`backpressure: verify's peak RSS ${peakMiB.toFixed(1)} MiB`)
    expect(peakMiB).toBeLessThan(150)
    expect(report.notes.length, JSON.stringify({ ...report, tail: '…', peakMiB })).toBeGreaterThanOrEqual(1)
    expect(report.notes[0]).toMatch(
      /^flood │ \[… [\d.]+ (MiB|KiB) of live output not shown: the terminal could not keep up; full log in .*logs\/flood\.log …\]$/,
    )
    // Documents and summaries are never left out: the verdict line reaches the reader once it catches up.
    expect(report.tail).toContain('Verdict APPROVED')
    const file = readEvidence(box.evidencePath)
    const output = file.checks[0]?.evidence?.output
    expect(output?.bytes).toBe(FLOOD_BYTES)
    expect(output?.sha256).toBe(floodSha(FLOOD_BYTES))
  }, 120_000)
})

/** A reporter that records what reaches it, in order. */
function recorder(): { reporter: Reporter; seen: string[] } {
  const seen: string[] = []
  return {
    seen,
    reporter: {
      onCheckOutput: (_check, chunk) => seen.push(chunk),
      onCheckEnd: () => seen.push('<end>'),
      onRunEnd: () => void seen.push('<run end>'),
    },
  }
}

describe('boundLiveOutput', () => {
  const check = { id: 'c' } as ResolvedCheck
  const result = { id: 'c', status: 'passed' } as CheckResult

  test('above the high water live chunks are left out until the backlog falls below the low water; then one note says how much', () => {
    const { reporter, seen } = recorder()
    let backlog = 0
    const bounded = boundLiveOutput(reporter, { backlog: () => backlog, logFile: (id) => `.verify/logs/${id}.log`, highWater: 100, lowWater: 10 })
    bounded.onCheckOutput?.(check, 'shown\n', 'stdout')
    backlog = 101
    bounded.onCheckOutput?.(check, 'x'.repeat(2048), 'stdout')
    backlog = 50 // between the marks: still leaving out
    bounded.onCheckOutput?.(check, 'y'.repeat(1024), 'stdout')
    backlog = 5
    bounded.onCheckOutput?.(check, 'again\n', 'stdout')
    expect(seen).toEqual(['shown\n', '[… 3 KiB of live output not shown: the terminal could not keep up; full log in .verify/logs/c.log …]\n', 'again\n'])
  })

  test("the note comes before the check's end even when the reader is still behind, and every other hook goes through", () => {
    const { reporter, seen } = recorder()
    const bounded = boundLiveOutput(reporter, { backlog: () => 10 * MIB, logFile: (id) => `${id}.log` })
    bounded.onCheckOutput?.(check, 'z'.repeat(500), 'stderr')
    bounded.onCheckEnd?.(check, result)
    void bounded.onRunEnd?.({} as never)
    expect(seen).toEqual(['[… 500 bytes of live output not shown: the terminal could not keep up; full log in c.log …]\n', '<end>', '<run end>'])
  })
})
