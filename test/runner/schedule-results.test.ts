// The runner's scheduling: reporter hooks, function checks, timeouts and retries, `expect`, and test reports.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Reporter } from '../../src/reporters/types.js'
import { node, protocolRunner } from '../helpers/run-protocol.js'

const { rootDir, verify } = protocolRunner()

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
