// Evidence as the types describe it: one well-formed file, and changes to it that the type and the schema both refuse
// (evidence-schema.test-d.ts proves the type refuses them, evidence-schema.test.ts that the schema does).
import type { Evidence, EvidenceFile, Summary, WrittenCheckResult } from '../../src/types.js'
import { buildRecord } from '../helpers/evidence.js'

/** Typechecks `value` as a T, as an annotated declaration would (excess fields included). */
export function is<T>(value: T): T {
  return value
}

export const SHA = 'sha256:0000000000000000000000000000000000000000000000000000000000000000'

export const evidence: Evidence = buildRecord('2026-11-30T12:00:03.100Z', { durationMs: 12, fingerprint: SHA, checkDigest: SHA })

export const check: WrittenCheckResult = { id: 'build', name: 'Build', evidenceType: 'build_success', required: true, status: 'passed', reason: null, evidence }

export const summary: Summary = { total: 1, passed: 1, failed: 0, skipped: 0, pending: 0, verdict: 'approved', issues: [], recommendations: [], warnings: [] }

export const file: EvidenceFile = {
  schemaVersion: 1,
  tool: { name: 'verify-protocol', version: '0.1.0' },
  protocol: { name: 'default', digest: SHA, strictMode: false },
  workspace: { fingerprint: SHA, git: null },
  runId: 'run-1',
  startedAt: '2026-11-30T12:00:00.000Z',
  finishedAt: '2026-11-30T12:00:03.210Z',
  checks: [check],
  summary,
}
