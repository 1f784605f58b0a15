// The kind-specific rules of the acceptance rule (SPEC §6.3): a manual check is proven only by an approval, a check
// that runs is never proven by one, and a check with `tests` only by counts that pass. Each unmet rule is an issue
// and a recommendation.
import { describe, expect, it } from 'vitest'
import { checkEvidence } from '../../src/verdict/check-evidence.js'
import { EVIDENCE_RULES } from '../../src/verdict/evidence-rules.js'
import { buildRecord } from '../helpers/evidence.js'

const NOW = new Date('2026-12-01T12:00:00.000Z')
const recent = new Date(NOW.getTime() - 60_000).toISOString()
const context = { maxAgeMs: 5 * 60_000, now: NOW }

describe('kind-specific rules', () => {
  it('are one list that checkEvidence applies', () => {
    expect(EVIDENCE_RULES.map((rule) => rule.name)).toEqual(['manual-approval', 'ran-not-approved', 'test-counts', 'recorded-run'])
  })

  it('a manual check’s record must be an approval', () => {
    const review = { id: 'review', name: 'Review', evidenceType: 'build_success', kind: 'manual' as const }
    const forged = checkEvidence(review, buildRecord(recent), context)
    expect(forged.valid).toBe(false)
    expect(forged.issues.join()).toMatch(/must be a person’s approval/)
    expect(forged.recommendations.join()).toMatch(/verify approve review/)
    expect(checkEvidence(review, buildRecord(recent, { approval: { by: 'Ann', note: null } }), context).valid).toBe(true)
  })

  it('a command check’s record that carries an approval proves nothing', () => {
    const build = { id: 'build', name: 'Build', evidenceType: 'build_success', kind: 'command' as const }
    const validity = checkEvidence(build, buildRecord(recent, { approval: { by: 'Mallory', note: null } }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues.join()).toMatch(/proves itself by running/)
  })

  it('a check with `tests` needs recorded counts with no failure and at least `min` passed', () => {
    const test = { id: 'test', name: 'Test', evidenceType: 'build_success', kind: 'command' as const, tests: { junit: 'r.xml', min: 3 } }
    expect(checkEvidence(test, buildRecord(recent), context).issues.join()).toMatch(/no test counts/)
    expect(checkEvidence(test, buildRecord(recent, { tests: { passed: 5, failed: 1, skipped: 0 } }), context).issues.join()).toMatch(/1 failed test/)
    expect(checkEvidence(test, buildRecord(recent, { tests: { passed: 2, failed: 0, skipped: 4 } }), context).issues.join()).toMatch(/at least 3/)
    expect(checkEvidence(test, buildRecord(recent, { tests: { passed: 3, failed: 0, skipped: 0 } }), context).valid).toBe(true)
  })
})
