// Floods (SPEC §4): 256 MiB on stdout, 96 MiB on stdout and stderr at once, one 200 MB line without a newline, and
// 120 MB that a function check returns as its output: each more than verify's whole memory budget, so that holding
// any of them would show (the 1 GiB case of SPEC §13 is measured by bench/output-rss.mjs).
// The evidence counts and hashes every byte exactly, keeps a bounded head and tail, caps the log, and verify's
// own memory stays under the 150 MiB budget (VmHWM of the verify process, sampled while it runs).
import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, isAlive, processesWithEnv } from '../helpers/cli.js'
import { floodSha256, MIB, scenario, watchPeakRss } from '../helpers/scenario.js'

afterAll(cleanup)

describe('floods', { timeout: 120_000 }, () => {
  it('256 MiB, 2 × 96 MiB at once, a 200 MB line and 120 MB returned by a function: exact count and SHA-256, bounded memory, capped logs', async () => {
    const box = scenario()
    const started = performance.now()
    const running = box.spawn(['floods'], { timeoutMs: 100_000 })
    const rss = watchPeakRss(running.child.pid as number)
    // Computed while verify works: the bytes the fixture writes, rebuilt.
    const expected = {
      stdout: floodSha256(256 * MIB),
      both: floodSha256(192 * MIB, true),
      line: floodSha256(200_000_000, true),
      returned: floodSha256(120_000_000, true),
    }
    const result = await running.done
    const peakKiB = rss.stop()
    const seconds = (performance.now() - started) / 1000
    expect(result.code, diagnose(result)).toBe(0)
    const bytes = { stdout: 256 * MIB, both: 192 * MIB, line: 200_000_000, returned: 120_000_000 }
    for (const id of ['stdout', 'both', 'line', 'returned'] as const) {
      const output = box.check(id).evidence?.output
      expect(output, id).toMatchObject({ bytes: bytes[id], sha256: expected[id], truncated: true })
      // Head and tail only: 16 KiB + 48 KiB and the omission marker.
      expect(Buffer.byteLength(output?.text ?? '', 'utf8'), id).toBeLessThan(65 * 1024)
      expect(output?.text, id).toMatch(/\[… \d+ bytes omitted …\]/)
      const log = join(box.logDir, `${id}.log`)
      expect(statSync(log).size, id).toBeLessThan(50 * MIB + 1024)
      expect(tail(log, 200), id).toMatch(/log truncated at \d+ bytes/)
    }
    console.info(`floods: 768 MB through verify in ${seconds.toFixed(1)} s, verify's peak RSS ${(peakKiB / 1024).toFixed(0)} MiB`)
    expect(peakKiB).toBeGreaterThan(0)
    expect(peakKiB).toBeLessThan(150 * 1024)
    expect(processesWithEnv('E2E_TMP', box.dir).filter(isAlive)).toEqual([])
  })
})

/** The last `bytes` bytes of a file, as text: the logs are up to 50 MiB, and reading them whole would grow this worker by that. */
function tail(file: string, bytes: number): string {
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(bytes)
    const read = readSync(fd, buffer, 0, bytes, Math.max(0, statSync(file).size - bytes))
    return buffer.subarray(0, read).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
