import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import type { ProtocolDefinition } from '../../src/config/define.js'
import { resolveProtocol, type ProtocolOverrides } from '../../src/config/resolve.js'
import type { Reporter } from '../../src/reporters/types.js'
import { runVerification } from '../../src/api.js'
import { createChecklist, type RunOptions } from '../../src/runner/schedule.js'
import type { CheckResult, Checklist, FunctionCheckResult } from '../../src/types.js'

const rootDir = mkdtempSync(join(tmpdir(), 'verify-schedule-'))
afterAll(() => rmSync(rootDir, { recursive: true, force: true }))

const WORKSPACE = { fingerprint: 'sha256:test', git: null }

async function verify(raw: ProtocolDefinition, options: RunOptions & { overrides?: ProtocolOverrides } = {}) {
  const { overrides, ...runOptions } = options
  const protocol = resolveProtocol(raw, { rootDir, ...(overrides ? { overrides } : {}) })
  const checklist = createChecklist(protocol)
  const summary = await runVerification(checklist, { logDir: null, workspace: WORKSPACE, ...runOptions })
  const byId = (id: string): CheckResult => {
    const found = checklist.results.find((r) => r.id === id)
    if (!found) throw new Error(`no result for ${id}`)
    return found
  }
  return { summary, checklist, byId }
}

const statuses = (checklist: Checklist) => Object.fromEntries(checklist.results.map((r) => [r.id, r.status]))

/** A function check that records when it starts and ends. */
function traced(log: string[], id: string, ms = 20, result: boolean | FunctionCheckResult = true) {
  return async () => {
    log.push(`${id}:start`)
    await delay(ms)
    log.push(`${id}:end`)
    return result
  }
}

/** Function checks that count how many of them run at once. */
function gauge() {
  let now = 0
  const state = { max: 0 }
  const run = async () => {
    now++
    state.max = Math.max(state.max, now)
    await delay(25)
    now--
    return true
  }
  return { state, run }
}

const node = (script: string) => [process.execPath, '-e', script]

describe('runVerification: order and concurrency', () => {
  it('starts a check only after its dependencies passed', async () => {
    const log: string[] = []
    const { summary } = await verify({
      checks: {
        test: { run: traced(log, 'test'), dependsOn: ['build', 'codegen'] },
        build: { run: traced(log, 'build', 40) },
        codegen: { run: traced(log, 'codegen', 10) },
        e2e: { run: traced(log, 'e2e'), dependsOn: ['test'] },
      },
    })
    expect(summary.verdict).toBe('approved')
    const at = (event: string) => log.indexOf(event)
    expect(at('test:start')).toBeGreaterThan(at('build:end'))
    expect(at('test:start')).toBeGreaterThan(at('codegen:end'))
    expect(at('e2e:start')).toBeGreaterThan(at('test:end'))
    // Independent checks run in parallel by default.
    expect(at('codegen:start')).toBeLessThan(at('build:end'))
  })

  it('runs at most `concurrency` checks at once', async () => {
    const { state, run: fn } = gauge()
    const checks = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`c${i}`, { run: fn }]))
    const { summary } = await verify({ concurrency: 2, checks })
    expect(summary.passed).toBe(6)
    expect(state.max).toBe(2)
  })

  it('runs one at a time with `sequential`', async () => {
    const { state, run: fn } = gauge()
    const checks = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`c${i}`, { run: fn }]))
    const { summary } = await verify({ concurrency: 4, checks }, { sequential: true })
    expect(summary.passed).toBe(4)
    expect(state.max).toBe(1)
  })

  it('runs one at a time with `parallel: false`', async () => {
    const { state, run: fn } = gauge()
    const checks = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`c${i}`, { run: fn }]))
    await verify({ parallel: false, concurrency: 4, checks })
    expect(state.max).toBe(1)
  })

  it('keeps declaration order when sequential (dependencies still first)', async () => {
    const log: string[] = []
    await verify(
      {
        checks: {
          zeta: { run: traced(log, 'zeta', 5) },
          test: { run: traced(log, 'test', 5), dependsOn: ['build'] },
          build: { run: traced(log, 'build', 15) },
          alpha: { run: traced(log, 'alpha', 5) },
          mid: { run: traced(log, 'mid', 5) },
        },
      },
      { sequential: true },
    )
    const starts = log.filter((e) => e.endsWith(':start')).map((e) => e.split(':')[0])
    expect(starts).toEqual(['zeta', 'build', 'test', 'alpha', 'mid'])
    for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(log[i]?.replace(':start', ':end'))
  })

  it('runs real commands: exit 0 passes, non-zero fails with the exit code', async () => {
    const { summary, byId } = await verify({ checks: { ok: 'true', ko: { command: node('process.exit(3)') } } })
    expect(byId('ok').status).toBe('passed')
    expect(byId('ko')).toMatchObject({ status: 'failed', reason: 'exit code 3' })
    expect(byId('ko').evidence).toMatchObject({ passed: false, exitCode: 3, fingerprint: 'sha256:test', type: 'command_success' })
    expect(summary.verdict).toBe('rejected')
  })
})

describe('runVerification: skipping and cancelling', () => {
  it('skips the dependents of a failed check, transitively, with a reason', async () => {
    const { summary, byId, checklist } = await verify({
      checks: {
        build: 'false',
        test: { command: 'true', dependsOn: ['build'] },
        e2e: { command: 'true', dependsOn: ['test'] },
        lint: 'true',
      },
    })
    expect(statuses(checklist)).toEqual({ build: 'failed', test: 'skipped', e2e: 'skipped', lint: 'passed' })
    expect(byId('test').reason).toContain('"build"')
    expect(byId('e2e').reason).toContain('"test"')
    expect(byId('test').evidence).toBeNull()
    expect(summary.verdict).toBe('rejected')
  })

  it('failFast cancels running and unstarted checks and the verdict is rejected', async () => {
    const started = performance.now()
    const { summary, byId, checklist } = await verify({
      failFast: true,
      concurrency: 2,
      killGrace: '1s',
      checks: {
        broken: { run: async () => (await delay(30), false) },
        slow: 'sleep 5',
        later: 'true',
        last: { run: () => true },
      },
    })
    expect(performance.now() - started).toBeLessThan(4000)
    expect(statuses(checklist)).toEqual({ broken: 'failed', slow: 'cancelled', later: 'cancelled', last: 'cancelled' })
    for (const id of ['slow', 'later', 'last']) expect(byId(id).reason).toMatch(/fail-fast/)
    expect(byId('slow').reason).toContain('"broken"')
    expect(summary.verdict).toBe('rejected')
  })

  it('failFast does not stop the run for an optional failure', async () => {
    const { checklist } = await verify({
      failFast: true,
      concurrency: 1,
      checks: { optional: { command: 'false', required: false }, after: 'true' },
    })
    expect(statuses(checklist)).toEqual({ optional: 'failed', after: 'passed' })
  })

  it('an external AbortSignal cancels running and unstarted checks; the verdict is incomplete', async () => {
    const controller = new AbortController()
    // Interrupt once `slow` is under way, as a SIGINT would.
    const reporter: Reporter = { onCheckStart: (check) => void (check.id === 'slow' && setTimeout(() => controller.abort('SIGINT'), 50)) }
    const started = performance.now()
    const { summary, byId, checklist } = await verify(
      { concurrency: 1, killGrace: '1s', checks: { quick: 'true', slow: 'sleep 5', never: 'true' } },
      { signal: controller.signal, reporter },
    )
    expect(performance.now() - started).toBeLessThan(4000)
    expect(statuses(checklist)).toEqual({ quick: 'passed', slow: 'cancelled', never: 'cancelled' })
    expect(byId('slow').reason).toMatch(/interrupted/)
    expect(byId('never').reason).toMatch(/interrupted/)
    expect(summary.verdict).toBe('incomplete')
    expect(summary.issues.join('\n')).toMatch(/interrupted/)
  })

  it('a signal aborted before the run starts runs nothing', async () => {
    let ran = false
    const { summary, checklist } = await verify({ checks: { a: { run: () => (ran = true) } } }, { signal: AbortSignal.abort() })
    expect(ran).toBe(false)
    expect(statuses(checklist)).toEqual({ a: 'cancelled' })
    expect(summary.verdict).toBe('incomplete')
  })

  it('skipOptional skips optional checks with a reason and still approves', async () => {
    let ran = false
    const { summary, byId } = await verify(
      { checks: { build: 'true', docs: { run: () => (ran = true), required: false } } },
      { overrides: { skipOptional: true } },
    )
    expect(ran).toBe(false)
    expect(byId('docs').status).toBe('skipped')
    expect(byId('docs').reason).toMatch(/optional/)
    expect(summary.verdict).toBe('approved')
  })

  it('`only` runs the selected checks and what they depend on, transitively', async () => {
    const ran: string[] = []
    const fn = (id: string) => () => (ran.push(id), true)
    const { byId, checklist } = await verify(
      {
        checks: {
          a: { run: fn('a') },
          b: { run: fn('b'), dependsOn: ['a'] },
          c: { run: fn('c'), dependsOn: ['b'] },
          d: { run: fn('d') },
        },
      },
      { only: ['c'] },
    )
    expect(ran.toSorted()).toEqual(['a', 'b', 'c'])
    expect(statuses(checklist)).toEqual({ a: 'passed', b: 'passed', c: 'passed', d: 'skipped' })
    expect(byId('d').reason).toMatch(/--only/)
  })

  it('`skip` leaves checks out with a reason', async () => {
    const { byId, checklist } = await verify({ checks: { a: 'true', b: 'true', c: { command: 'true', dependsOn: ['b'] } } }, { skip: ['b'] })
    expect(statuses(checklist)).toEqual({ a: 'passed', b: 'skipped', c: 'skipped' })
    expect(byId('b').reason).toMatch(/--skip/)
    expect(byId('c').reason).toContain('"b"')
  })

  it('manual checks are pending_manual with their instructions, and the verdict is incomplete', async () => {
    const { summary, byId } = await verify({ checks: { build: 'true', review: { manual: 'Read the design doc' } } })
    expect(byId('review')).toMatchObject({ status: 'pending_manual', reason: 'Read the design doc', evidence: null })
    expect(summary.verdict).toBe('incomplete')
    expect(summary.pending).toBe(1)
  })
})

describe('runVerification: reporter hooks', () => {
  it('calls onRunStart first, then onCheckStart/onCheckEnd per check; each check ends exactly once', async () => {
    const events: string[] = []
    const reporter: Reporter = {
      onRunStart: (checklist) => void events.push(`run:${checklist.results.length}`),
      onCheckStart: (check, result) => void events.push(`start:${check.id}:${result.status}`),
      onCheckEnd: (check, result) => void events.push(`end:${check.id}:${result.status}`),
    }
    await verify(
      {
        checks: {
          build: 'true',
          test: { command: 'false', dependsOn: ['build'] },
          e2e: { command: 'true', dependsOn: ['test'] },
          review: { manual: true },
          fn: { run: () => true },
        },
      },
      { reporter },
    )
    expect(events[0]).toBe('run:5')
    for (const id of ['build', 'test', 'e2e', 'review', 'fn']) {
      expect(events.filter((e) => e.startsWith(`end:${id}:`))).toHaveLength(1)
    }
    for (const id of ['build', 'test', 'fn']) {
      expect(events).toContain(`start:${id}:running`)
      expect(events.indexOf(`start:${id}:running`)).toBeLessThan(events.findIndex((e) => e.startsWith(`end:${id}:`)))
    }
    expect(events).toContain('end:build:passed')
    expect(events).toContain('end:test:failed')
    expect(events).toContain('end:e2e:skipped')
    expect(events).toContain('end:review:pending_manual')
    expect(events.some((e) => e.startsWith('start:e2e') || e.startsWith('start:review'))).toBe(false)
    expect(events.indexOf('end:build:passed')).toBeLessThan(events.indexOf('start:test:running'))
  })

  it('each check ends exactly once under fail-fast', async () => {
    const ends: string[] = []
    await verify(
      { failFast: true, concurrency: 2, killGrace: '1s', checks: { bad: 'false', slow: 'sleep 5', a: 'true', b: 'true' } },
      { reporter: { onCheckEnd: (check) => void ends.push(check.id) } },
    )
    expect(ends.toSorted()).toEqual(['a', 'b', 'bad', 'slow'])
  })

  it('streams output to onCheckOutput', async () => {
    const chunks: string[] = []
    await verify(
      { checks: { hello: { command: node('console.log("hello from the check")') } } },
      { reporter: { onCheckOutput: (_, chunk) => void chunks.push(chunk) } },
    )
    expect(chunks.join('')).toContain('hello from the check')
  })
})

describe('runVerification: function checks, timeouts and retries', () => {
  it('a function check that ignores its signal still times out on time', async () => {
    const started = performance.now()
    const { byId } = await verify({ checks: { hang: { timeout: 100, run: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 1500)) } } })
    expect(performance.now() - started).toBeLessThan(1200)
    expect(byId('hang').status).toBe('timed_out')
    expect(byId('hang').evidence).toMatchObject({ timedOut: true, passed: false })
  })

  it('a function check that honours its signal and runs past its timeout is timed_out, and the verdict rejected', async () => {
    let sawAbort = false
    const { byId, summary } = await verify({
      checks: {
        hang: {
          timeout: '100ms',
          run: ({ signal }) =>
            new Promise<boolean>((resolve) => {
              signal.addEventListener('abort', () => {
                sawAbort = true
                resolve(false)
              })
            }),
        },
      },
    })
    expect(sawAbort).toBe(true)
    expect(byId('hang').status).toBe('timed_out')
    expect(byId('hang').reason).toMatch(/timed out/)
    expect(summary.verdict).toBe('rejected')
  })

  it('a command that runs past its timeout is timed_out and killed', async () => {
    const started = performance.now()
    const { byId, summary } = await verify({ killGrace: '1s', checks: { hang: { command: 'sleep 5', timeout: '200ms' } } })
    expect(performance.now() - started).toBeLessThan(3000)
    expect(byId('hang').status).toBe('timed_out')
    expect(byId('hang').evidence).toMatchObject({ timedOut: true, passed: false })
    expect(summary.verdict).toBe('rejected')
  })

  it('a function that throws is an error, and the run goes on', async () => {
    const { byId } = await verify({
      checks: {
        boom: {
          run: () => {
            throw new Error('kaput')
          },
        },
        other: 'true',
      },
    })
    expect(byId('boom').status).toBe('error')
    expect(byId('boom').reason).toContain('kaput')
    expect(byId('other').status).toBe('passed')
  })

  it('a function that fails once then passes is passed, flaky, after 2 attempts', async () => {
    let calls = 0
    const { byId } = await verify({ checks: { flaky: { retries: 2, run: () => ++calls > 1 } } })
    expect(calls).toBe(2)
    expect(byId('flaky').status).toBe('passed')
    expect(byId('flaky').evidence).toMatchObject({ passed: true, attempts: 2, flaky: true })
  })

  it('a check that fails every attempt is failed, not flaky', async () => {
    let calls = 0
    const { byId } = await verify({ checks: { broken: { retries: 2, run: () => (calls++, false) } } })
    expect(calls).toBe(3)
    expect(byId('broken').status).toBe('failed')
    expect(byId('broken').evidence).toMatchObject({ passed: false, attempts: 3, flaky: false })
  })

  it('a check that passes at once records no retry', async () => {
    const { byId } = await verify({ checks: { ok: { retries: 2, run: () => true } } })
    expect(byId('ok').evidence?.attempts ?? 1).toBe(1)
    expect(byId('ok').evidence?.flaky ?? false).toBe(false)
  })

  it('a function check gets its cwd, id and signal, and its output and metadata are kept', async () => {
    const { byId } = await verify({
      checks: {
        smoke: {
          evidenceType: 'functionality_verified',
          run: ({ cwd, checkId, signal }) => ({ passed: true, output: `cwd=${cwd} id=${checkId} aborted=${signal.aborted}`, metadata: { pages: 3 } }),
        },
      },
    })
    expect(byId('smoke').evidence).toMatchObject({ type: 'functionality_verified', passed: true, metadata: { pages: 3 } })
    expect(byId('smoke').evidence?.output.text).toBe(`cwd=${rootDir} id=smoke aborted=false`)
  })
})

describe('runVerification: expect', () => {
  it('expect.output must match the output', async () => {
    const { byId } = await verify({
      checks: {
        string: { command: node('console.log("all 12 tests ok")'), expect: { output: 'tests ok' } },
        regex: { run: () => ({ passed: true, output: 'all 12 tests ok' }), expect: { output: /\d+ tests ok/ } },
        missing: { command: node('console.log("nothing to see")'), expect: { output: /tests ok/ } },
      },
    })
    expect(byId('string').status).toBe('passed')
    expect(byId('regex').status).toBe('passed')
    expect(byId('missing').status).toBe('failed')
    expect(byId('missing').reason).toMatch(/does not match/)
  })

  it('expect.notOutput must not match the output', async () => {
    const { byId } = await verify({
      checks: {
        clean: { command: node('console.log("fine")'), expect: { notOutput: /error/i } },
        dirty: { command: node('console.error("Error: deprecated API")'), expect: { notOutput: /error/i } },
        'dirty-string': { run: () => ({ passed: true, output: 'WARN: x' }), expect: { notOutput: 'WARN' } },
      },
    })
    expect(byId('clean').status).toBe('passed')
    expect(byId('dirty').status).toBe('failed')
    expect(byId('dirty').reason).toMatch(/forbidden/)
    expect(byId('dirty-string').status).toBe('failed')
  })
})

// JUnit XML as test runners write it.
const junit = (cases: string) => `<?xml version="1.0"?><testsuites><testsuite name="s">${cases}</testsuite></testsuites>`
const ok = (name: string) => `<testcase name="${name}" classname="c"/>`
const failing = (name: string) => `<testcase name="${name}" classname="c"><failure message="boom">trace</failure></testcase>`
const skipped = (name: string) => `<testcase name="${name}" classname="c"><skipped/></testcase>`

describe('runVerification: test reports (SPEC §6.3)', () => {
  let n = 0
  /** A command that writes `xml` to a fresh report path; returns the path and the check. */
  const writer = (xml: string, extra: { min?: number } = {}) => {
    const file = `reports/junit-${++n}.xml`
    const script = `const fs = require('fs'); fs.mkdirSync('reports', { recursive: true }); fs.writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(xml)})`
    return { command: node(script), tests: { junit: file, ...extra } }
  }

  it('a report with zero tests is failed: no test ran', async () => {
    const { byId } = await verify({ checks: { test: writer(junit('')) } })
    expect(byId('test').status).toBe('failed')
    expect(byId('test').reason).toMatch(/no test ran/)
  })

  it('a report with failures is failed, with the counts in the evidence', async () => {
    const { byId } = await verify({ checks: { test: writer(junit(ok('a') + failing('b') + ok('c'))) } })
    expect(byId('test').status).toBe('failed')
    expect(byId('test').reason).toMatch(/1 test failed according to reports\/junit-\d+\.xml/)
    expect(byId('test').evidence?.tests).toEqual({ passed: 2, failed: 1, skipped: 0, failures: [{ name: 'b', message: 'boom' }] })
  })

  it('a failing command that wrote a report still records the counts and names the failing tests', async () => {
    const check = writer(junit(ok('a') + failing('cart > adds up') + skipped('c')))
    const { byId } = await verify({ checks: { test: { ...check, command: [...check.command.slice(0, 2), `${check.command[2]}; process.exitCode = 1`] } } })
    expect(byId('test').status).toBe('failed')
    expect(byId('test').reason).toMatch(/^exit code 1; 1 test failed according to reports\/junit-\d+\.xml$/)
    expect(byId('test').evidence?.tests).toEqual({ passed: 1, failed: 1, skipped: 1, failures: [{ name: 'cart > adds up', message: 'boom' }] })
  })

  it('a failing command with a report left over from before the run records no counts', async () => {
    mkdirSync(join(rootDir, 'reports'), { recursive: true })
    writeFileSync(join(rootDir, 'reports', 'old-fail.xml'), junit(failing('old')))
    const past = new Date(Date.now() - 60_000)
    utimesSync(join(rootDir, 'reports', 'old-fail.xml'), past, past)
    const { byId } = await verify({ checks: { test: { command: 'false', tests: { junit: 'reports/old-fail.xml' } } } })
    expect(byId('test').reason).toBe('exit code 1')
    expect(byId('test').evidence?.tests).toBeUndefined()
  })

  it('failing test names and messages are masked like output', async () => {
    const xml = junit(`<testcase name="login as hunter2-secret-token"><failure message="token hunter2-secret-token rejected"/></testcase>`)
    const { byId } = await verify({ redact: [/hunter2-[a-z-]+/], checks: { test: writer(xml) } })
    expect(JSON.stringify(byId('test').evidence?.tests)).not.toContain('hunter2')
    expect(byId('test').evidence?.tests?.failures?.[0]?.name).toMatch(/^login as \S+$/)
  })

  it('a report with at least `min` passing tests is passed, with the counts in the evidence', async () => {
    const { byId, summary } = await verify({ checks: { test: writer(junit(ok('a') + ok('b') + ok('c') + skipped('d')), { min: 3 }) } })
    expect(byId('test').status).toBe('passed')
    expect(byId('test').evidence).toMatchObject({ type: 'test_pass', passed: true, tests: { passed: 3, failed: 0, skipped: 1 } })
    expect(summary.verdict).toBe('approved')
  })

  it('fewer passing tests than `min` is failed', async () => {
    const { byId } = await verify({ checks: { test: writer(junit(ok('a') + ok('b')), { min: 5 }) } })
    expect(byId('test').status).toBe('failed')
    expect(byId('test').reason).toMatch(/2/)
  })

  it('a report left over from before the run is failed', async () => {
    mkdirSync(join(rootDir, 'reports'), { recursive: true })
    const file = join(rootDir, 'reports', 'stale.xml')
    writeFileSync(file, junit(ok('a') + ok('b')))
    const past = new Date(Date.now() - 60_000)
    utimesSync(file, past, past)
    const { byId } = await verify({ checks: { test: { command: 'true', tests: { junit: 'reports/stale.xml' } } } })
    expect(byId('test').status).toBe('failed')
    expect(byId('test').reason).toMatch(/older than this run/)
  })

  it('a missing report is failed', async () => {
    const { byId } = await verify({ checks: { test: { command: 'true', tests: { junit: 'reports/never-written.xml' } } } })
    expect(byId('test').status).toBe('failed')
    expect(byId('test').reason).toMatch(/no JUnit report/)
  })

  it('reads a Vitest JSON report', async () => {
    const report = JSON.stringify({ numPassedTests: 4, numFailedTests: 0, numPendingTests: 1, numTodoTests: 1 })
    const script = `require('fs').writeFileSync('vitest-report.json', ${JSON.stringify(report)})`
    const { byId } = await verify({ checks: { test: { command: node(script), tests: { vitestJson: 'vitest-report.json' } } } })
    expect(byId('test').status).toBe('passed')
    expect(byId('test').evidence?.tests).toEqual({ passed: 4, failed: 0, skipped: 2 })
  })
})
