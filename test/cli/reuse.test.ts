// `verify run --reuse` and partial runs (SPEC §7), counting real executions: every check of fixtures/validity-reuse
// appends its id to a counter file outside the workspace when it really runs. `a` and `b` are bound to the whole
// workspace, `c` to docs/** only.
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose } from '../helpers/cli.js'
import { project, removeProjects, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

/** A git project after one full, passing run. */
async function afterFullRun(): Promise<{ p: Project; timestamps: Record<string, string | undefined> }> {
  const p = project('validity-reuse', { git: true })
  const run = await p.verify('run')
  expect(run.code, diagnose(run)).toBe(0)
  expect(p.executions().toSorted()).toEqual(['a', 'b', 'c'])
  const timestamps = Object.fromEntries(p.evidence().checks.map((c) => [c.id, c.evidence?.timestamp]))
  return { p, timestamps }
}

describe.concurrent('verify run --reuse', { timeout: 90_000 }, () => {
  it('on an unchanged workspace runs nothing and reuses every check, keeping the original timestamps', async () => {
    const { p, timestamps } = await afterFullRun()
    const reuse = await p.verify('run', ['--reuse'])
    expect(reuse.code, diagnose(reuse)).toBe(0)
    expect(p.executions()).toHaveLength(3)
    const file = p.evidence()
    expect(file.summary.verdict).toBe('approved')
    for (const check of file.checks) {
      expect(check.status, check.id).toBe('passed')
      expect(check.evidence?.reused, check.id).toBe(true)
      // Reused evidence ages from when it was recorded, not from the reuse.
      expect(check.evidence?.timestamp, check.id).toBe(timestamps[check.id])
    }
    // And `verify check` agrees the reused evidence is proof.
    expect((await p.verify('check')).code).toBe(0)
  })

  it('after an edit re-runs the checks bound to what changed, and only those', async () => {
    const { p } = await afterFullRun()
    p.write('src/app.ts', 'export const app = 2\n')
    const reuse = await p.verify('run', ['--reuse'])
    expect(reuse.code, diagnose(reuse)).toBe(0)
    // c is bound to docs/**, which did not change.
    expect(p.executions().slice(3).toSorted()).toEqual(['a', 'b'])
    expect(p.check('a').evidence?.reused).toBeUndefined()
    expect(p.check('b').evidence?.reused).toBeUndefined()
    expect(p.check('c').evidence?.reused).toBe(true)

    p.write('docs/guide.md', '# Guide, edited\n')
    const again = await p.verify('run', ['--reuse'])
    expect(again.code, diagnose(again)).toBe(0)
    expect(p.executions().slice(5).toSorted()).toEqual(['a', 'b', 'c'])
    expect(p.evidence().checks.some((c) => c.evidence?.reused)).toBe(false)
  })

  it('re-runs a check whose evidence records a failure, reusing the passing ones', async () => {
    const p = project('validity-reuse', { git: true })
    // An ignored file: it makes b fail without changing the fingerprint.
    p.write('ignored/fail-b', '')
    const first = await p.verify('run')
    expect(first.code, diagnose(first)).toBe(1)
    const reuse = await p.verify('run', ['--reuse'])
    expect(reuse.code, diagnose(reuse)).toBe(1)
    expect(p.executions().slice(3)).toEqual(['b'])
    expect(p.check('b')).toMatchObject({ status: 'failed' })
    expect(p.check('b').evidence?.reused).toBeUndefined()
  })

  it('re-runs everything when the evidence is older than --max-age', async () => {
    const { p } = await afterFullRun()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const reuse = await p.verify('run', ['--reuse', '--max-age', '1ms'])
    expect(reuse.code, diagnose(reuse)).toBe(0)
    expect(p.executions()).toHaveLength(6)
  })

  it('without --reuse a run never carries old evidence: everything runs again with new timestamps', async () => {
    const { p, timestamps } = await afterFullRun()
    const again = await p.verify('run')
    expect(again.code, diagnose(again)).toBe(0)
    expect(p.executions()).toHaveLength(6)
    for (const check of p.evidence().checks) {
      expect(check.evidence?.reused, check.id).toBeUndefined()
      expect(Date.parse(check.evidence?.timestamp ?? '')).toBeGreaterThan(Date.parse(timestamps[check.id] ?? ''))
    }
  })

  it('without --reuse a failure is recorded even though passing evidence for the same code exists', async () => {
    const { p } = await afterFullRun()
    p.write('ignored/fail-b', '')
    const again = await p.verify('run')
    expect(again.code, diagnose(again)).toBe(1)
    expect(p.check('b').status).toBe('failed')
  })
})

describe.concurrent('partial runs keep other checks only while their evidence is valid', { timeout: 90_000 }, () => {
  it('`--only a` after a full run reuses b and c (valid) and approves', async () => {
    const { p, timestamps } = await afterFullRun()
    const only = await p.verify('run', ['--only', 'a'])
    expect(only.code, diagnose(only)).toBe(0)
    expect(p.executions().slice(3)).toEqual(['a'])
    expect(p.check('a').evidence?.reused).toBeUndefined()
    for (const id of ['b', 'c']) {
      expect(p.check(id).status, id).toBe('passed')
      expect(p.check(id).evidence?.reused, id).toBe(true)
      expect(p.check(id).evidence?.timestamp, id).toBe(timestamps[id])
    }
    expect(p.evidence().summary.verdict).toBe('approved')
  })

  it('`--only a` after an edit marks b stale (never passed) without running it', async () => {
    const { p } = await afterFullRun()
    p.write('src/app.ts', 'export const app = 2\n')
    const only = await p.verify('run', ['--only', 'a'])
    expect(only.code, diagnose(only)).toBe(3)
    expect(p.executions().slice(3)).toEqual(['a'])
    expect(p.check('a').status).toBe('passed')
    const b = p.check('b')
    expect(b.status).toBe('stale')
    expect(b.reason).toMatch(/code changed.*src\/app\.ts/)
    expect(b.evidence?.reused).toBeUndefined()
    // c is bound to docs/** only: still valid, so still carried.
    expect(p.check('c')).toMatchObject({ status: 'passed', evidence: expect.objectContaining({ reused: true }) })
    expect(p.evidence().summary.verdict).toBe('incomplete')
  })

  it('`--skip b` after b failed keeps the failure, shown as recorded earlier and not run now', async () => {
    const p = project('validity-reuse', { git: true })
    p.write('ignored/fail-b', '')
    expect((await p.verify('run')).code).toBe(1)
    const failedAt = p.check('b').evidence?.timestamp
    const skip = await p.verify('run', ['--skip', 'b'])
    // The failure is still bound to this code: the verdict stays rejected.
    expect(skip.code, diagnose(skip)).toBe(1)
    expect(p.executions().slice(3).toSorted()).toEqual(['a', 'c'])
    expect(p.check('b')).toMatchObject({ status: 'failed', evidence: expect.objectContaining({ reused: true, timestamp: failedAt }) })
    expect(skip.stdout).toMatch(/^✗ b\s+failed \(recorded \S+ ago, not run now\)/m)
    const agent = await p.verify('run', ['--skip', 'b', '--reporter', 'agent'])
    expect(agent.stdout).toMatch(/^ {2}exit code 1, \S+, recorded \S+ ago, not run now$/m)
    // Nothing passing was reused: no "reused" in the counts.
    expect(skip.stdout).toMatch(/ pending \(3\)\n/)
  })

  it('`--skip b` after an edit marks b stale as well', async () => {
    const { p } = await afterFullRun()
    p.write('src/app.ts', 'export const app = 2\n')
    const skip = await p.verify('run', ['--skip', 'b'])
    expect(skip.code, diagnose(skip)).toBe(3)
    expect(p.executions().slice(3).toSorted()).toEqual(['a', 'c'])
    expect(p.check('b').status).toBe('stale')
  })
})
