// The kind-specific rule for evidence a test runner's reporter recorded (SPEC §11), through the one acceptance
// function: only a full run with enough tests counts; a recorded failure stays a failure.
import { describe, expect, it } from 'vitest'
import type { Evidence, RecordedBy } from '../../src/types.js'
import { checkEvidence } from '../../src/verdict/check-evidence.js'

const NOW = new Date('2026-11-30T12:00:00.000Z')
const check = { id: 'test', name: 'Tests', evidenceType: 'test_pass', tests: { junit: 'junit.xml', min: 10 } }
const context = { maxAgeMs: 300_000, now: NOW, fingerprint: 'sha256:workspace', checkDigest: 'sha256:check' }

function recorded(by: Partial<RecordedBy>, tests = { passed: 12, failed: 0, skipped: 1 }, passed = true): Evidence {
  return {
    type: 'test_pass',
    passed,
    command: 'vitest run',
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 900,
    timestamp: new Date(NOW.getTime() - 60_000).toISOString(),
    fingerprint: 'sha256:workspace',
    checkDigest: 'sha256:check',
    output: { text: '', bytes: 0, truncated: false, sha256: 'x' },
    error: null,
    tests,
    recordedBy: { runner: 'vitest', version: '4.1.12', fullRun: true, ...by },
    metadata: {},
  }
}

describe('evidence recorded by a test runner', () => {
  it('counts for a full run with at least `tests.min` tests', () => {
    expect(checkEvidence(check, recorded({}), context).valid).toBe(true)
  })

  it('does not count for a run that was not full, and says why', () => {
    const validity = checkEvidence(check, recorded({ fullRun: false, notFull: 'tests filtered by name (-t /x/)' }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toEqual(['Tests: recorded by a vitest run that does not count: tests filtered by name (-t /x/)'])
    expect(validity.recommendations[0]).toContain('npx vitest run')
  })

  it('does not count for fewer tests than the check requires, or none', () => {
    expect(checkEvidence(check, recorded({}, { passed: 9, failed: 0, skipped: 40 }), context).issues).toEqual([
      'Tests: the evidence records 9 passed test(s), the check requires at least 10',
    ])
    expect(checkEvidence({ ...check, tests: undefined }, recorded({ runner: 'jest' }, { passed: 0, failed: 0, skipped: 3 }), context).issues).toEqual([
      'Tests: the jest run ran no tests',
    ])
  })

  it('a recorded failure is a failure, filtered or not, with or without `tests` on the check', () => {
    const validity = checkEvidence(check, recorded({ fullRun: false, notFull: 'a shard' }, { passed: 11, failed: 1, skipped: 0 }, false), context)
    expect(validity.issues).toEqual(['Tests: the evidence records a failure'])
  })

  it('proves only a test_pass check: a runner never stands for a build, a lint or any other check', () => {
    const build = { id: 'build', name: 'Build', evidenceType: 'command_success' }
    const forged = { ...recorded({}), type: 'command_success' }
    expect(checkEvidence(build, forged, context).issues).toEqual([
      'Build: recorded by a vitest reporter, but only a test_pass check can be: a test run proves no other kind of check',
    ])
    // A failed recording of such a check stays refused too.
    expect(checkEvidence(build, { ...forged, passed: false }, context).valid).toBe(false)
  })

  it('still binds recorded evidence to the code and the clock', () => {
    expect(checkEvidence(check, recorded({}), { ...context, fingerprint: 'sha256:other' }).valid).toBe(false)
    expect(checkEvidence(check, recorded({}), { ...context, now: new Date(NOW.getTime() + 600_000) }).valid).toBe(false)
  })
})
