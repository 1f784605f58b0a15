// SIGKILL of verify while it writes the evidence (SPEC §5: written atomically, temporary file + rename): killed
// again and again at random moments around the end of a run, the evidence file is always a whole file — the old
// one or the new one — never a partial one.
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readEvidenceFile } from '../../src/evidence/store.js'
import { cleanup, diagnose, isAlive, sleep, processesWithEnv } from '../helpers/cli.js'
import { scenario } from '../helpers/scenario.js'

afterAll(cleanup)

const KILLS = 16

describe('SIGKILL of verify mid-write', { timeout: 120_000 }, () => {
  it(`leaves the old or the new whole file, ${KILLS} times at random moments`, async () => {
    const box = scenario()
    // What each of the 40 checks prints: 64 KiB of numbered lines.
    writeFileSync(join(box.dir, 'bulky.txt'), Array.from({ length: 4500 }, (_, i) => `output line ${i}`).join('\n'))
    const started = performance.now()
    const first = await box.verify(['bulky'])
    const fullRunMs = performance.now() - started
    expect(first.code, diagnose(first)).toBe(0)
    const runIds = new Set([box.evidence().runId])
    let replaced = 0
    let midWrite = 0
    const delays: number[] = []
    for (let i = 0; i < KILLS; i++) {
      // Around the end of the run, where the ~2.6 MB file is serialised, written, flushed and renamed.
      const delay = Math.round(fullRunMs * (0.8 + Math.random() * 0.3))
      delays.push(delay)
      const running = box.spawn(['bulky'])
      await sleep(delay)
      running.child.kill('SIGKILL')
      const result = await running.done
      // A temporary file left beside it: this kill landed inside the write, before the rename.
      const temporary = readdirSync(box.dir).filter((name) => /^evidence\.json\..+\.tmp$/.test(name))
      if (temporary.length > 0) midWrite++
      for (const name of temporary) rmSync(join(box.dir, name), { force: true })
      const read = await readEvidenceFile(box.evidencePath)
      expect(read.ok, `kill ${i + 1} after ${delay} ms (${result.signal ?? result.code}): ${read.ok ? '' : read.reason}`).toBe(true)
      if (!read.ok) return
      expect(read.file.checks).toHaveLength(40)
      if (!runIds.has(read.file.runId)) {
        replaced++
        runIds.add(read.file.runId)
      }
    }
    // Some kills land after the rename (a new whole file), the others before it (the old one): both happen.
    console.info(
      `evidence-atomic: ${KILLS} kills (${delays.join(', ')} ms; full run ${Math.round(fullRunMs)} ms): ${replaced} new files, ${KILLS - replaced} old ones (${midWrite} killed inside the write), 0 partial`,
    )
    await sleep(300)
    expect(processesWithEnv('E2E_TMP', box.dir).filter(isAlive)).toEqual([])
  })
})
