// buildEvidenceFile (public API): the file it builds is one verify itself reads back, whatever state the run was in.
import { describe, expect, it } from 'vitest'
import { buildEvidenceFile } from '../../src/evidence/record.js'
import { evidenceFileSchema } from '../../src/evidence/schema.js'
import type { CheckResult, CheckStatus, Checklist } from '../../src/types.js'
import { summarize } from '../../src/verdict/summary.js'
import { protocolOf } from '../helpers/outcome.js'

const SHA = `sha256:${'0'.repeat(64)}`

function result(id: string, status: CheckStatus): CheckResult {
  return { id, name: `Check ${id}`, evidenceType: 'command_success', required: true, status, reason: null, evidence: null }
}

function checklist(results: CheckResult[]): Checklist {
  return {
    protocol: protocolOf(results),
    runId: 'run-1',
    startedAt: '2026-11-30T12:00:00.000Z',
    finishedAt: '2026-11-30T12:00:03.210Z',
    workspace: { fingerprint: SHA, git: null },
    results,
  }
}

describe('buildEvidenceFile', () => {
  it('a check still pending or running when the file is built is written with a status a file holds, and why', () => {
    const results = [result('never', 'pending'), result('midway', 'running'), result('done', 'skipped')]
    const file = buildEvidenceFile(checklist(results), summarize(results, false))
    const parsed = evidenceFileSchema.safeParse(file)
    expect(parsed.error?.issues ?? []).toEqual([])
    expect(file.checks.map((c) => [c.id, c.status])).toEqual([
      ['never', 'skipped'],
      ['midway', 'cancelled'],
      ['done', 'skipped'],
    ])
    expect(file.checks[0]?.reason).toMatch(/never ran/)
    expect(file.checks[1]?.reason).toMatch(/did not finish/)
    // The run's own results are left as they are.
    expect(results.map((r) => r.status)).toEqual(['pending', 'running', 'skipped'])
  })

  it('settled checks are written as they are', () => {
    const results = [result('a', 'pending_manual'), { ...result('b', 'cancelled'), reason: 'fail fast' }]
    const file = buildEvidenceFile(checklist(results), summarize(results, false))
    expect(file.checks).toEqual(results)
  })
})
