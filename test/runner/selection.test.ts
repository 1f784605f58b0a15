// Through the CLI, in process: dependencies and selection (SPEC §4, §9) — dependsOn skips with a reason, --sequential keeps
// declaration order, --only pulls in dependencies, --skip, --skip-optional, and "nothing ran" is incomplete.
// Every check of fixtures/deps appends its id to $E2E_TMP/order when it runs.
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, sandbox, type Sandbox } from '../helpers/cli.js'

afterAll(cleanup)

const DEPS = fixture('deps')

function ran(box: Sandbox): string[] {
  const file = box.path('order')
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
}

describe.concurrent('dependencies and selection', () => {
  test('a check whose dependency failed is skipped with a reason naming it; the others still run', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', DEPS])
    expect(result.code, diagnose(result)).toBe(1)
    expect(box.evidence().summary.verdict).toBe('rejected')
    expect(box.check('b').status).toBe('failed')
    const c = box.check('c')
    expect(c.status).toBe('skipped')
    expect(c.reason).toContain('"b"')
    expect(c.evidence).toBeNull()
    expect(box.check('d').status).toBe('passed')
    expect(ran(box).toSorted()).toEqual(['a', 'b', 'd', 'opt'])
    // d ran only after a passed.
    expect(ran(box).indexOf('d')).toBeGreaterThan(ran(box).indexOf('a'))
  })

  test('--sequential runs one check at a time in declaration order', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['order', '--sequential', '--cwd', DEPS])
    expect(result.code, diagnose(result)).toBe(0)
    // `slow` sleeps 400 ms before it records itself: only a sequential run keeps it first.
    expect(ran(box)).toEqual(['slow', 'fast', 'third'])
    const checks = box.evidence().checks
    for (let i = 1; i < checks.length; i++) {
      const previousEnd = Date.parse(checks[i - 1]?.evidence?.timestamp ?? '')
      const start = Date.parse(checks[i]?.evidence?.timestamp ?? '') - (checks[i]?.evidence?.durationMs ?? 0)
      expect(start).toBeGreaterThanOrEqual(previousEnd - 5)
    }
  })

  test('without --sequential the same checks overlap (the control for the test above)', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['order', '--concurrency', '3', '--cwd', DEPS])
    expect(result.code, diagnose(result)).toBe(0)
    expect(ran(box).indexOf('fast')).toBeLessThan(ran(box).indexOf('slow'))
  })

  test('--only runs the named check and its dependencies; the rest are skipped as not selected', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--only', 'd', '--cwd', DEPS])
    // Required checks without evidence make the run incomplete (SPEC §6.2).
    expect(result.code, diagnose(result)).toBe(3)
    expect(ran(box)).toEqual(['a', 'd'])
    expect(box.check('a').status).toBe('passed')
    expect(box.check('d').status).toBe('passed')
    for (const id of ['b', 'c', 'opt']) {
      expect(box.check(id).status, id).toBe('skipped')
      expect(box.check(id).reason, id).toMatch(/--only/)
    }
    expect(box.evidence().summary.verdict).toBe('incomplete')
  })

  test('--skip leaves a check out, and what depends on it is skipped', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--skip', 'b', '--cwd', DEPS])
    expect(result.code, diagnose(result)).toBe(3)
    expect(ran(box).toSorted()).toEqual(['a', 'd', 'opt'])
    expect(box.check('b')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/--skip/) })
    expect(box.check('c')).toMatchObject({ status: 'skipped', reason: expect.stringContaining('"b"') })
    expect(box.evidence().summary.verdict).toBe('incomplete')
  })

  test('--skip-optional does not run optional checks and still approves', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['optional', '--skip-optional', '--cwd', DEPS])
    expect(result.code, diagnose(result)).toBe(0)
    expect(ran(box)).toEqual(['a'])
    expect(box.check('opt')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/optional/) })
    const { summary } = box.evidence()
    expect(summary.verdict).toBe('approved')
    expect(summary.issues).toEqual([])
    expect(summary.warnings.some((w) => w.includes('opt'))).toBe(true)
  })

  test('nothing ran (every check optional and skipped): exit 3, incomplete', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['all-optional', '--skip-optional', '--cwd', DEPS])
    expect(result.code, diagnose(result)).toBe(3)
    expect(ran(box)).toEqual([])
    const { summary } = box.evidence()
    expect(summary.verdict).toBe('incomplete')
    expect(summary.passed).toBe(0)
    expect(summary.issues.some((i) => /no check ran/i.test(i))).toBe(true)
  })
})
