// Freshness (SPEC §6.1): the age of evidence is `now` minus the end of the run that recorded it, so a long run is
// fresh as a whole when it ends; age ≤ maxAge; no time more than 30 s in the future; times parsed, never compared as
// text. Reused evidence keeps the end of the run that really recorded it, so reuse never makes evidence younger.
import { afterAll, describe, expect, it } from 'vitest'
import { checkEvidence, FUTURE_TOLERANCE_MS } from '../../src/verdict/check-evidence.js'
import type { Evidence } from '../../src/types.js'
import { cleanup } from '../helpers/cli.js'
import { buildRecord } from '../helpers/evidence.js'
import { project, removeProjects, verifyInProcess } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const NOW = new Date('2026-12-01T12:00:00.000Z')
const MINUTE = 60_000
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString()
const check = { id: 'build', name: 'Build', evidenceType: 'build_success', kind: 'command' as const }
const context = { maxAgeMs: 5 * MINUTE, now: NOW }

function evidence(patch: Partial<Evidence> = {}): Evidence {
  return buildRecord(at(-MINUTE), patch)
}

describe('the age of evidence is counted from the end of the run that recorded it', () => {
  it('a check that ended 6 minutes ago in a run that ended 1 minute ago is fresh', () => {
    expect(checkEvidence(check, evidence({ timestamp: at(-6 * MINUTE), runFinishedAt: at(-MINUTE) }), context).valid).toBe(true)
  })

  it('older than maxAge from the run’s end is stale, with the age in the issue', () => {
    const validity = checkEvidence(check, evidence({ timestamp: at(-7 * MINUTE), runFinishedAt: at(-6 * MINUTE) }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues.join()).toMatch(/6m 00s old, older than maxAge 5m/)
    expect(validity.recommendations.join()).toMatch(/npx verify/)
  })

  it('a run end more than 30 s in the future is refused, whatever the check’s own time', () => {
    const validity = checkEvidence(check, evidence({ runFinishedAt: at(FUTURE_TOLERANCE_MS + 1000) }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues.join()).toMatch(/in the future/)
  })

  it('a run end that is not a time is refused; the later of the two times counts (a run never ends before its checks)', () => {
    expect(checkEvidence(check, evidence({ runFinishedAt: 'yesterday-ish' }), context).valid).toBe(false)
    const inverted = checkEvidence(check, evidence({ timestamp: at(FUTURE_TOLERANCE_MS + 1000), runFinishedAt: at(-MINUTE) }), context)
    expect(inverted.issues.join()).toMatch(/in the future/)
  })

  it('times are parsed: an offset time is compared as the instant it names', () => {
    // 13:59 at +02:00 is 11:59Z: one minute old, though as text it sorts after NOW.
    expect(checkEvidence(check, evidence({ timestamp: '2026-12-01T13:58:00.000+02:00', runFinishedAt: '2026-12-01T13:59:00.000+02:00' }), context).valid).toBe(
      true,
    )
  })
})

describe('a long run is fresh as a whole when it ends', { timeout: 90_000 }, () => {
  it('evidence of a check that ended long before the run did passes `verify check` right after the run', async () => {
    const p = project('validity-corrupt')
    // maxAge 3s; the first check ends at once, the second keeps the run going for 4 s.
    p.write(
      'verify.config.ts',
      `export default { maxAge: '3s', checks: { first: 'sh bin/count.sh', second: { command: 'node -e "setTimeout(() => {}, 4000)"', dependsOn: ['first'] } } }\n`,
    )
    const run = await verifyInProcess(p, ['run'])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const file = p.evidence()
    const first = p.check('first').evidence as Evidence & { runFinishedAt?: string }
    expect(Date.parse(file.finishedAt) - Date.parse(first.timestamp)).toBeGreaterThan(3000)
    expect(first.runFinishedAt).toBe(file.finishedAt)
    const checked = await verifyInProcess(p, ['check'])
    expect(checked.code, checked.stdout).toBe(0)
  })

  it('reused evidence keeps the end of the run that recorded it', async () => {
    const p = project('validity-corrupt')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    const recorded = (p.check('ok').evidence as Evidence & { runFinishedAt?: string }).runFinishedAt
    expect(recorded).toBe(p.evidence().finishedAt)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await verifyInProcess(p, ['run', '--reuse'])).code).toBe(0)
    const reused = p.check('ok').evidence as Evidence & { runFinishedAt?: string }
    expect(reused.reused).toBe(true)
    expect(reused.runFinishedAt).toBe(recorded)
    expect(p.evidence().finishedAt).not.toBe(recorded)
  })
})
