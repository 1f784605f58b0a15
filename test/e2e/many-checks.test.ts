// Many checks (SPEC §4): 300 checks at concurrency 2 finish, each with its evidence, and verify holds no more
// files open at the end than at the start — no descriptor leaks per check. The first check and the last (which
// waits for every other) count the entries of /proc/<verify's pid>/fd.
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose } from '../helpers/cli.js'
import { scenario } from '../helpers/scenario.js'

afterAll(cleanup)

describe('300 checks at concurrency 2', { timeout: 60_000 }, () => {
  it('all pass, in bounded time, with no file descriptor leaked', async () => {
    const box = scenario()
    const started = performance.now()
    const result = await box.verify(['many'], { timeoutMs: 50_000 })
    const ms = performance.now() - started
    expect(result.code, diagnose(result)).toBe(0)
    const evidence = box.evidence()
    expect(evidence.checks).toHaveLength(300)
    expect(evidence.summary).toMatchObject({ total: 300, passed: 300, verdict: 'approved' })
    const first = Number(readFileSync(box.path('fds.first'), 'utf8'))
    const last = Number(readFileSync(box.path('fds.last'), 'utf8'))
    console.info(`many-checks: 300 checks in ${Math.round(ms)} ms; verify's open fds ${first} at the first check, ${last} at the last`)
    expect(first).toBeGreaterThan(0)
    // A leak per check would leave hundreds open. A few may differ either way: at the first check another one may be
    // running beside it (its pipes open), and at the last a finished check's log may still be closing.
    expect(last).toBeLessThanOrEqual(first + 4)
  })
})
