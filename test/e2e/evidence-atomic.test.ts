// SIGKILL of verify while it writes the evidence (SPEC §5: written atomically, temporary file + rename): killed at
// random moments of the write itself — from the temporary file's creation to a little past the rename — the evidence
// file is always a whole file, the old one or the new one, never a partial one.
import { readdirSync, rmSync, watch, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readEvidenceFile } from '../../src/evidence/store.js'
import { cleanup, diagnose, isAlive, sleep, processesWithEnv, type Sandbox, type RunningCli } from '../helpers/cli.js'
import { scenario } from '../helpers/scenario.js'

afterAll(cleanup)

const KILLS = 8
/** The evidence's temporary file (`evidence.json.<pid>.<random>.tmp`), not the lock's (`evidence.json.lock.…`). */
const TEMPORARY = /^evidence\.json\.\d+\.[0-9a-f]+\.tmp$/

/**
 * Starts `verify run bulky` and calls `onWrite` when its evidence's temporary file appears; resolves with the time from
 * then until the evidence file was renamed into place (null if it never was), once the run has ended.
 */
async function runWatchingTheWrite(box: Sandbox & { spawn(args: readonly string[]): RunningCli }, onWrite: (running: RunningCli) => void) {
  let opened: number | null = null
  let renamed: number | null = null
  const watcher = watch(box.dir, (_event, name) => {
    if (opened === null && name !== null && TEMPORARY.test(name)) {
      opened = performance.now()
      onWrite(running)
    } else if (opened !== null && renamed === null && name === 'evidence.json') renamed = performance.now()
  })
  const running = box.spawn(['bulky'])
  try {
    const result = await running.done
    return { result, writeMs: opened !== null && renamed !== null ? renamed - opened : null }
  } finally {
    watcher.close()
  }
}

describe('SIGKILL of verify mid-write', { timeout: 120_000 }, () => {
  it(`leaves the old or the new whole file, killed ${KILLS} times inside the write`, async () => {
    const box = scenario()
    // What each of the 40 checks prints: 64 KiB of numbered lines, for an evidence file of ~2.6 MB.
    writeFileSync(join(box.dir, 'bulky.txt'), Array.from({ length: 4500 }, (_, i) => `output line ${i}`).join('\n'))
    // The write's length, from two whole runs: the first, on cold caches, may take several times longer than the
    // next ones (53 ms once, when the next ones took a few): kills spread over it all landed after the rename.
    const writes: number[] = []
    for (let i = 0; i < 2; i++) {
      const whole = await runWatchingTheWrite(box, () => {})
      expect(whole.result.code, diagnose(whole.result)).toBe(0)
      expect(whole.writeMs).not.toBeNull()
      writes.push(whole.writeMs ?? 0)
    }
    const windowMs = Math.max(Math.min(...writes), 5)
    const runIds = new Set([box.evidence().runId])
    let replaced = 0
    let midWrite = 0
    const delays: number[] = []
    for (let i = 0; i < KILLS; i++) {
      // From the temporary file's creation to a little past the rename, one kill at random in each eighth of that.
      const delay = Math.round(((i + Math.random()) / KILLS) * windowMs * 1.3)
      delays.push(delay)
      const { result } = await runWatchingTheWrite(box, (running) => setTimeout(() => running.child.kill('SIGKILL'), delay))
      // A temporary file left beside it: this kill landed inside the write, before the rename.
      const temporary = readdirSync(box.dir).filter((name) => TEMPORARY.test(name))
      if (temporary.length > 0) midWrite++
      for (const name of temporary) rmSync(join(box.dir, name), { force: true })
      const read = await readEvidenceFile(box.evidencePath)
      expect(read.ok, `kill ${i + 1}, ${delay} ms into the write (${result.signal ?? result.code}): ${read.ok ? '' : read.reason}`).toBe(true)
      if (!read.ok) return
      expect(read.file.checks).toHaveLength(40)
      if (!runIds.has(read.file.runId)) {
        replaced++
        runIds.add(read.file.runId)
      }
    }
    console.info(
      `evidence-atomic: ${KILLS} kills (${delays.join(', ')} ms into a write of ${Math.round(windowMs)} ms): ${midWrite} inside the write, ${replaced} after the rename, 0 partial`,
    )
    // The kills did land inside the write: otherwise this test would prove nothing.
    expect(midWrite).toBeGreaterThan(0)
    await sleep(300)
    expect(processesWithEnv('E2E_TMP', box.dir).filter(isAlive)).toEqual([])
  })
})
