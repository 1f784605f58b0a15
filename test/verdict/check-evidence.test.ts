import { describe, expect, it } from 'vitest'
import type { Evidence } from '../../src/types.js'
import { checkEvidence, FUTURE_TOLERANCE_MS } from '../../src/verdict/check-evidence.js'
import { buildRecord } from '../helpers/evidence.js'

const NOW = new Date('2026-11-30T12:00:00.000Z')
const MAX_AGE = 5 * 60_000
const check = { id: 'build', name: 'Build', evidenceType: 'build_success' }

function evidence(patch: Partial<Evidence> = {}): Evidence {
  return buildRecord(new Date(NOW.getTime() - 60_000).toISOString(), {
    durationMs: 1200,
    output: { text: 'ok', bytes: 2, truncated: false, sha256: 'x' },
    ...patch,
  })
}

const context = { maxAgeMs: MAX_AGE, now: NOW, fingerprint: 'sha256:workspace', checkDigest: 'sha256:check' }
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString()

describe('checkEvidence (SPEC §6.1)', () => {
  it('accepts typed, passing, fresh, bound evidence', () => {
    expect(checkEvidence(check, evidence(), context)).toEqual({ valid: true, issues: [], recommendations: [] })
  })

  it('rejects evidence of another type, naming both types', () => {
    const validity = checkEvidence(check, evidence({ type: 'test_pass' }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toHaveLength(1)
    expect(validity.issues[0]).toContain('"test_pass"')
    expect(validity.issues[0]).toContain('"build_success"')
    expect(validity.recommendations.length).toBeGreaterThan(0)
  })

  it('rejects evidence that records a failure', () => {
    const validity = checkEvidence(check, evidence({ passed: false, exitCode: 1 }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toEqual([expect.stringMatching(/failure/)])
    expect(validity.recommendations).toEqual([expect.stringContaining('"build"')])
  })

  it('rejects evidence older than maxAge, saying how old it is', () => {
    const validity = checkEvidence(check, evidence({ timestamp: at(-MAX_AGE - 1000) }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toHaveLength(1)
    expect(validity.issues[0]).toMatch(/old/)
    expect(validity.issues[0]).toContain('5m 01s')
    expect(validity.recommendations[0]).toContain('--only build')
  })

  it('accepts evidence exactly maxAge old, rejects it one millisecond later', () => {
    expect(checkEvidence(check, evidence({ timestamp: at(-MAX_AGE) }), context).valid).toBe(true)
    expect(checkEvidence(check, evidence({ timestamp: at(-MAX_AGE - 1) }), context).valid).toBe(false)
  })

  it('honours the maxAge it is given', () => {
    const e = evidence({ timestamp: at(-10_000) })
    expect(checkEvidence(check, e, { ...context, maxAgeMs: 60_000 }).valid).toBe(true)
    expect(checkEvidence(check, e, { ...context, maxAgeMs: 5_000 }).valid).toBe(false)
  })

  it('rejects evidence dated 31 s in the future, accepts 10 s (clock skew)', () => {
    const future = checkEvidence(check, evidence({ timestamp: at(31_000) }), context)
    expect(future.valid).toBe(false)
    expect(future.issues).toEqual([expect.stringMatching(/future/)])
    expect(future.recommendations[0]).toMatch(/clock/)
    expect(checkEvidence(check, evidence({ timestamp: at(10_000) }), context).valid).toBe(true)
    expect(checkEvidence(check, evidence({ timestamp: at(FUTURE_TOLERANCE_MS) }), context).valid).toBe(true)
  })

  it('compares a timestamp read back from JSON as a time, not as a string', () => {
    const old = JSON.parse(JSON.stringify(evidence({ timestamp: at(-10 * 60_000) }))) as Evidence
    expect(typeof old.timestamp).toBe('string')
    expect(checkEvidence(check, old, context).valid).toBe(false)
    const fresh = JSON.parse(JSON.stringify(evidence({ timestamp: at(-1000) }))) as Evidence
    expect(checkEvidence(check, fresh, context).valid).toBe(true)
  })

  it('reads timestamps with a time zone offset as the instant they denote', () => {
    // 12:59 at +01:00 is 11:59Z: one minute old. Compared as strings it would look an hour in the future.
    expect(checkEvidence(check, evidence({ timestamp: '2026-11-30T12:59:00.000+01:00' }), context).valid).toBe(true)
    // 06:50 at -05:00 is 11:50Z: ten minutes old.
    expect(checkEvidence(check, evidence({ timestamp: '2026-11-30T06:50:00.000-05:00' }), context).valid).toBe(false)
  })

  it('uses the current time when no `now` is given', () => {
    const live = { maxAgeMs: MAX_AGE, fingerprint: context.fingerprint, checkDigest: context.checkDigest }
    expect(checkEvidence(check, evidence({ timestamp: new Date().toISOString() }), live).valid).toBe(true)
    expect(checkEvidence(check, evidence({ timestamp: new Date(Date.now() - MAX_AGE - 5000).toISOString() }), live).valid).toBe(false)
  })

  it('rejects a timestamp that is not a time', () => {
    const validity = checkEvidence(check, evidence({ timestamp: 'yesterday' }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toEqual([expect.stringMatching(/timestamp/)])
  })

  it('rejects evidence bound to another workspace fingerprint, naming the changed files', () => {
    const validity = checkEvidence(check, evidence({ fingerprint: 'sha256:before' }), { ...context, changedFiles: ['src/a.ts', 'src/b.ts'] })
    expect(validity.valid).toBe(false)
    expect(validity.issues).toHaveLength(1)
    expect(validity.issues[0]).toMatch(/code changed/)
    expect(validity.issues[0]).toContain('src/a.ts')
    expect(validity.issues[0]).toContain('src/b.ts')
  })

  it('names at most a few changed files and counts the rest', () => {
    const changedFiles = Array.from({ length: 8 }, (_, i) => `f${i}.ts`)
    const validity = checkEvidence(check, evidence({ fingerprint: 'sha256:before' }), { ...context, changedFiles })
    expect(validity.issues[0]).toContain('f0.ts')
    expect(validity.issues[0]).toContain('3 more')
    expect(validity.issues[0]).not.toContain('f7.ts')
  })

  it('rejects evidence recorded under another check definition', () => {
    const validity = checkEvidence(check, evidence({ checkDigest: 'sha256:old-definition' }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toEqual([expect.stringMatching(/definition changed/)])
  })

  it('does not check the binding when the context leaves it out', () => {
    const e = evidence({ fingerprint: 'sha256:other', checkDigest: 'sha256:other' })
    expect(checkEvidence(check, e, { maxAgeMs: MAX_AGE, now: NOW }).valid).toBe(true)
  })

  it.each([null, undefined])('rejects missing evidence (%s)', (missing) => {
    const validity = checkEvidence(check, missing, context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toEqual(['Build: no evidence recorded'])
    expect(validity.recommendations).toEqual([expect.stringContaining('--only build')])
  })

  it('reports every unmet condition, one issue each, with de-duplicated recommendations', () => {
    const validity = checkEvidence(
      check,
      evidence({ type: 'lint_clean', passed: false, timestamp: at(-60 * 60_000), fingerprint: 'sha256:before', checkDigest: 'sha256:old' }),
      context,
    )
    expect(validity.valid).toBe(false)
    expect(validity.issues).toHaveLength(5)
    expect(validity.issues.join('\n')).toMatch(/type/)
    expect(validity.issues.join('\n')).toMatch(/failure/)
    expect(validity.issues.join('\n')).toMatch(/old/)
    expect(validity.issues.join('\n')).toMatch(/code changed/)
    expect(validity.issues.join('\n')).toMatch(/definition changed/)
    expect(new Set(validity.recommendations).size).toBe(validity.recommendations.length)
    // "record fresh evidence" serves four of the issues; "fix the check" the failure.
    expect(validity.recommendations).toHaveLength(2)
  })
})
