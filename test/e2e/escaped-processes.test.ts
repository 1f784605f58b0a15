// Reliability: processes that leave their check's process group (setsid, a new session) and hold its output open
// (SPEC §4). The timeout covers the whole check, the drain after the main process is bounded, and whatever escaped
// is found by verify's environment tag and killed, the evidence saying so. Nothing may outlive verify: every test
// looks for its processes by the sandbox folder in their environment, not only by the pids they wrote.
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, readPids, sandbox, sleep, survivors, waitForFile, type Sandbox, processesWithEnv } from '../helpers/cli.js'

afterAll(cleanup)

const ESCAPED = fixture('escaped')

/** Live processes started for this sandbox (they all carry E2E_TMP=<dir>), after giving them `withinMs` to die. */
async function leftBehind(box: Sandbox, withinMs = 500): Promise<number[]> {
  return survivors(processesWithEnv('E2E_TMP', box.dir), withinMs)
}

describe('escaped processes', () => {
  test('`setsid sleep 43 &` and a new session holding the pipe: the check ends within its timeout, the escapees are killed and named', async () => {
    const box = sandbox()
    const result = await box.run(['detach', '--sequential', '--cwd', ESCAPED], { timeoutMs: 30_000 })
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(0)
    // Checks of 1 s, 1 s and 5 s timeouts (each drained for at most 2 s), one after the other: far from 3 × 43 s.
    expect(result.durationMs).toBeLessThan(12_000)
    for (const [id, timeoutMs] of [
      ['setsid', 1000],
      ['setsid-shell', 1000],
      ['new-session', 5000],
    ] as const) {
      const check = box.check(id)
      expect(check.status, id).toBe('passed')
      // The drain after the main process ends within the check's timeout.
      expect(check.evidence?.durationMs, id).toBeLessThan(timeoutMs + 1500)
      const escaped = check.evidence?.metadata.escaped as { pid: number; command: string }[]
      const [pid] = readPids(box.path(`${id}.pid`))
      expect(
        escaped.map((p) => p.pid),
        id,
      ).toContain(pid)
      expect(check.evidence?.metadata.outputHeld, id).toBe(true)
      expect(box.evidence().summary.warnings.join('\n')).toContain(`"${id}" left`)
    }
    // Named by its command line (caught before or after `setsid` became `sleep`).
    expect(box.check('setsid').evidence?.metadata.escaped).toEqual([{ pid: expect.any(Number), command: expect.stringMatching(/sleep 43$/) }])
    expect(box.check('new-session').evidence?.output.text).toContain('escaped ')
    expect(await leftBehind(box)).toEqual([])
  })

  test('a retry that passes keeps what the failed attempt left in the record: its escapee, killed and named', async () => {
    const box = sandbox()
    const result = await box.run(['retried', '--cwd', ESCAPED], { timeoutMs: 30_000 })
    expect(result.code, diagnose(result)).toBe(0)
    const check = box.check('retried')
    expect(check.evidence?.flaky).toBe(true)
    const [pid] = readPids(box.path('retried.pid'))
    const escaped = (check.evidence?.metadata.escaped ?? []) as { pid: number }[]
    expect(escaped.map((p) => p.pid)).toContain(pid)
    expect(await leftBehind(box)).toEqual([])
  })

  test('an escapee that holds no pipe is found by the sweep all the same', async () => {
    const box = sandbox()
    const result = await box.run(['quiet', '--cwd', ESCAPED])
    expect(result.code, diagnose(result)).toBe(0)
    const check = box.check('quiet')
    expect(check.evidence?.metadata.escaped).toEqual([{ pid: readPids(box.path('quiet.pid'))[0], command: expect.stringMatching(/sleep 43$/) }])
    expect(check.evidence?.metadata.outputHeld).toBeUndefined()
    expect(result.durationMs).toBeLessThan(5000)
    expect(await leftBehind(box)).toEqual([])
  })

  test('a timeout ends a check whose escapee holds the pipe and ignores SIGTERM: timed_out in about the timeout, nothing left', async () => {
    const box = sandbox()
    const result = await box.run(['hang', '--cwd', ESCAPED])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(1)
    const check = box.check('hang')
    expect(check.status).toBe('timed_out')
    expect(check.evidence?.timedOut).toBe(true)
    // 5 s timeout + 300 ms grace + a short drain: never the escapee's lifetime.
    expect(check.evidence?.durationMs).toBeLessThan(7500)
    expect((check.evidence?.metadata.escaped as { pid: number }[] | undefined)?.map((p) => p.pid)).toEqual(readPids(box.path('hang.pid')))
    expect(await leftBehind(box)).toEqual([])
  })

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`the first ${signal} to verify ends the run although an escapee holds the pipe and ignores signals`, async () => {
      const box = sandbox()
      const running = box.start(['interrupt', '--cwd', ESCAPED])
      await waitForFile(box.path('hang.pid'))
      await sleep(300)
      const sent = performance.now()
      running.child.kill(signal)
      const result = await running.done
      expect(result.killedByTest).toBe(false)
      expect(result.code, diagnose(result)).toBe(signal === 'SIGINT' ? 130 : 143)
      expect(performance.now() - sent).toBeLessThan(4000)
      expect(box.check('hang').status).toBe('cancelled')
      expect(box.evidence().summary.verdict).toBe('incomplete')
      expect(await leftBehind(box)).toEqual([])
    })
  }
})
