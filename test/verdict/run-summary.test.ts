// The verdict of a run, a shard's share included, is decided in one place (verdict/run-summary.ts): the file speaks
// for the protocol and a share never approves it; the job answers for its own share.
import { describe, expect, it } from 'vitest'
import { checkResult } from '../../src/evidence/record.js'
import type { CheckStatus } from '../../src/types.js'
import { shareSummary, summarizeRun } from '../../src/verdict/run-summary.js'

const result = (id: string, status: CheckStatus, required = true) => checkResult({ id, name: `Check ${id}`, evidenceType: 'command_success', required }, status)

describe('summarizeRun', () => {
  it('a whole run: the summary of its results, the warnings around its own', () => {
    const results = [result('a', 'passed'), result('b', 'failed', false)]
    const run = summarizeRun(results, false, { warnings: { lead: ['first'], trail: ['last'] } })
    expect(run.verdict).toBe('approved')
    expect(run.summary.verdict).toBe('approved')
    expect(run.summary.warnings[0]).toBe('first')
    expect(run.summary.warnings.at(-1)).toBe('last')
    expect(run.summary.warnings.some((w) => w.startsWith('Optional: Check failed'))).toBe(true)
    expect(run.shard).toBeUndefined()
  })

  it('a shard whose share passed: the job approves its share, the file never approves the protocol', () => {
    const results = [result('a', 'passed'), result('b', 'skipped')]
    const run = summarizeRun(results, false, { shard: { index: 1, total: 2, checks: new Set(['a']) } })
    expect(run.verdict).toBe('approved')
    expect(run.summary.verdict).toBe('incomplete')
    expect(run.shard).toEqual({ index: 1, total: 2, checks: ['a'], verdict: 'approved' })
    // Its issues are its share's: the other shard's skipped check is not this job's to fix.
    expect(run.summary.issues).toEqual([])
    expect(run.summary.warnings[0]).toMatch(/^Shard 1\/2 ran 1 of 2 checks: verdict approved/)
  })

  it('a shard whose share failed rejects, and so does the file', () => {
    const run = summarizeRun([result('a', 'failed'), result('b', 'passed')], false, { shard: { index: 1, total: 2, checks: new Set(['a']) } })
    expect(run.verdict).toBe('rejected')
    expect(run.summary.verdict).toBe('rejected')
    expect(run.summary.issues).toEqual(['Check failed: Check a'])
  })

  it('an empty share (more shards than groups of checks) has nothing to fail', () => {
    const run = summarizeRun([result('a', 'skipped')], false, { shard: { index: 3, total: 3, checks: new Set() } })
    expect(run.verdict).toBe('approved')
    expect(run.summary.verdict).toBe('incomplete')
  })

  it('an interrupted shard is incomplete, for the job and the file', () => {
    const run = summarizeRun([result('a', 'passed'), result('b', 'cancelled')], false, {
      interrupted: true,
      shard: { index: 1, total: 1, checks: new Set(['a', 'b']) },
    })
    expect(run.verdict).toBe('incomplete')
    expect(run.summary.verdict).toBe('incomplete')
  })
})

describe('shareSummary', () => {
  it('counts and judges only the share', () => {
    const summary = shareSummary([result('a', 'passed'), result('b', 'failed')], false, new Set(['a']))
    expect(summary.total).toBe(1)
    expect(summary.verdict).toBe('approved')
  })
})
