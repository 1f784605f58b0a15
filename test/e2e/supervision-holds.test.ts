// Supervision scenarios that hold and must keep holding (SPEC §4): a child that ignores SIGTERM, a child that
// "succeeds" on SIGTERM, grandchildren, and SIGINT / SIGTERM / SIGHUP to verify itself. Every process a run
// started carries the sandbox's E2E_TMP in its environment: none may be alive once verify has exited.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, diagnose, isAlive, readPids, survivors, waitForFile, processesWithEnv } from '../helpers/cli.js'
import { scenario } from '../helpers/scenario.js'

afterEach(cleanup)

function leftBehind(dir: string): number[] {
  return processesWithEnv('E2E_TMP', dir).filter(isAlive)
}

// A check that ignores SIGTERM, and one with a child and a grandchild: test/e2e/supervision.test.ts.
describe('a check that times out', { timeout: 30_000 }, () => {
  it('exiting 0 on SIGTERM: still timed_out, never passed (a signalled check never passes)', async () => {
    const box = scenario()
    const result = await box.verify(['term-exit0'])
    expect(result.code, diagnose(result)).toBe(1)
    const check = box.check('liar')
    expect(check.status).toBe('timed_out')
    expect(check.evidence).toMatchObject({ passed: false, timedOut: true })
    expect(check.evidence?.output.text).toContain('got SIGTERM, exiting 0')
    expect(box.evidence().summary.verdict).toBe('rejected')
    expect(leftBehind(box.dir)).toEqual([])
  })
})

describe('a signal to verify', { timeout: 30_000 }, () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s: exit %i, evidence written incomplete, every group killed', async (signal, code) => {
    const box = scenario()
    const running = box.spawn(['interrupt'])
    // Both long checks are up (one of them ignores SIGTERM) before the signal comes.
    await waitForFile(box.path('long.pids'))
    await waitForFile(box.path('stubborn.pid'))
    const sent = performance.now()
    running.child.kill(signal)
    const result = await running.done
    console.info(`supervision-holds: ${signal} → exit ${result.code} in ${Math.round(performance.now() - sent)} ms`)
    expect(result.code, diagnose(result)).toBe(code)
    expect(result.stderr).not.toMatch(/^\s+at /m)
    const evidence = box.evidence()
    expect(evidence.summary.verdict).toBe('incomplete')
    expect(evidence.interrupted).toBe(signal)
    for (const id of ['long', 'stubborn', 'after']) expect(box.check(id).status).toBe('cancelled')
    expect(evidence.summary).toMatchObject({ cancelled: 3, skipped: 0 })
    expect(result.stdout).toMatch(/0 skipped · 3 cancelled/)
    expect(await survivors([...readPids(box.path('long.pids')), ...readPids(box.path('stubborn.pid'))])).toEqual([])
    expect(leftBehind(box.dir)).toEqual([])
  })
})
