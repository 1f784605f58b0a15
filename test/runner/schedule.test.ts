// The runner's scheduling: order and concurrency, dependencies, skipping and cancelling.
import { setTimeout as delay } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import type { Reporter } from '../../src/reporters/types.js'
import { gauge, node, protocolRunner, statuses, traced } from '../helpers/run-protocol.js'

const { verify } = protocolRunner()

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
