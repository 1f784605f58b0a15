import { describe, expect, it } from 'vitest'
import type { CheckResult, CheckStatus, Checklist, ResolvedProtocol } from '../../src/types.js'
import { generateSummary, summarize } from '../../src/verdict/summary.js'

function result(
  id: string,
  status: CheckStatus,
  options: { required?: boolean; reason?: string | null; printed?: number; attempts?: number } = {},
): CheckResult {
  return {
    id,
    name: `Check ${id}`,
    evidenceType: 'command_success',
    required: options.required ?? true,
    status,
    reason: options.reason ?? null,
    evidence:
      options.printed === undefined
        ? null
        : {
            type: 'command_success',
            passed: false,
            command: 'x',
            exitCode: 2,
            signal: null,
            timedOut: status === 'timed_out',
            durationMs: 1,
            timestamp: new Date().toISOString(),
            fingerprint: `sha256:${'0'.repeat(64)}`,
            checkDigest: `sha256:${'0'.repeat(64)}`,
            output: { text: 'x'.repeat(options.printed), bytes: options.printed, truncated: false, sha256: '0'.repeat(64) },
            error: null,
            metadata: {},
            ...(options.attempts ? { attempts: options.attempts } : {}),
          },
  }
}

describe('summarize: counts', () => {
  it('counts passed, failing (failed/timed_out/error), skipped, cancelled and pending (manual/stale) apart', () => {
    const summary = summarize(
      [
        result('a', 'passed'),
        result('b', 'passed'),
        result('c', 'failed'),
        result('d', 'timed_out'),
        result('e', 'error'),
        result('f', 'skipped'),
        result('g', 'cancelled'),
        result('h', 'pending_manual'),
        result('i', 'stale'),
      ],
      false,
    )
    expect(summary).toMatchObject({ total: 9, passed: 2, failed: 3, skipped: 1, cancelled: 1, pending: 2, verdict: 'rejected' })
    expect(summary.passed + summary.failed + summary.skipped + summary.cancelled + summary.pending).toBe(summary.total)
  })

  it('approves with no issue when every check passed', () => {
    const summary = summarize([result('a', 'passed'), result('b', 'passed')], false)
    expect(summary).toMatchObject({ total: 2, passed: 2, failed: 0, verdict: 'approved', issues: [], recommendations: [], warnings: [] })
  })

  it('agrees with computeVerdict for strictMode', () => {
    const rows = [result('a', 'passed'), result('lint', 'failed', { required: false })]
    expect(summarize(rows, false).verdict).toBe('approved')
    expect(summarize(rows, true).verdict).toBe('rejected')
  })
})

const advice = (s: ReturnType<typeof summarize>) => s.recommendations.join('\n')

describe('summarize: issues and recommendations', () => {
  it.each<[CheckStatus, RegExp, RegExp]>([
    ['failed', /^Check failed: Check x \(exit code 2\)$/, /\.verify\/logs\/x\.log/],
    ['timed_out', /^Check timed out: Check x/, /timeout/],
    ['error', /^Check could not run: Check x/, /"x"/],
    ['cancelled', /^Check cancelled: Check x/, /npx verify/],
    ['skipped', /^Check skipped: Check x/, /"x"/],
    ['pending_manual', /^Waiting for approval: Check x/, /npx verify approve x/],
    ['stale', /^Evidence is no longer valid: Check x/, /run --reuse/],
  ])('a required %s check gives an issue and a recommendation', (status, issue, recommendation) => {
    const summary = summarize([result('ok', 'passed'), result('x', status, { reason: 'exit code 2', printed: 10 })], false)
    expect(summary.issues).toHaveLength(1)
    expect(summary.issues[0]).toMatch(issue)
    expect(summary.recommendations).toHaveLength(1)
    expect(summary.recommendations[0]).toMatch(recommendation)
    expect(summary.warnings).toEqual([])
  })

  it('a check cancelled by an interrupt is to be run again, not fixed; one cancelled after a failure waits for the fix', () => {
    const interrupted = summarize([result('x', 'cancelled', { reason: 'interrupted by SIGINT' })], false)
    expect(interrupted.recommendations).toEqual(['Run `npx verify` again: it was interrupted before "x" finished'])
    const afterFailure = summarize([result('b', 'failed'), result('x', 'cancelled', { reason: 'cancelled after "b" failed (--fail-fast)' })], false)
    expect(advice(afterFailure)).toContain('Run `npx verify` again once the failures above are fixed')
  })

  it.each([
    ['its dependency "build" did not pass (failed)', 'Fix "build", then run `npx verify` again: "x" runs once it passes'],
    ['left out with --skip', 'Run `npx verify --only x` (or the run without --skip x) to record its evidence'],
    ['not selected with --only', 'Run `npx verify --only x` (or the run without --only) to record its evidence'],
    ["its shard's evidence was not merged", 'Merge the evidence of the shard that runs "x" as well: `npx verify merge <every shard\'s file>`'],
    ['optional check skipped (skipOptional)', 'Run `npx verify` without --skip-optional (or skipOptional: false) to record it'],
  ])('a check skipped because %s gets advice for that reason', (reason, recommendation) => {
    expect(summarize([result('x', 'skipped', { reason })], false).recommendations).toEqual([recommendation])
  })

  it('puts the reason of a check in its issue', () => {
    const summary = summarize([result('test', 'skipped', { reason: 'its dependency "build" did not pass (failed)' }), result('build', 'failed')], false)
    expect(summary.issues).toContain('Check skipped: Check test (its dependency "build" did not pass (failed))')
  })

  it('uses the log folder and command it is given in recommendations', () => {
    const summary = summarize([result('build', 'failed', { printed: 3 })], false, { logDir: 'logs', command: 'pnpm verify' })
    expect(summary.recommendations[0]).toContain('logs/build.log')
    expect(summary.recommendations[0]).toContain('`pnpm verify`')
  })

  it("never points at a log a check did not write: none when it printed nothing, the last attempt's after retries", () => {
    for (const status of ['failed', 'timed_out'] as const) {
      const silent = summarize([result('build', status, { printed: 0 })], false)
      expect(advice(silent), status).not.toContain('.log')
      expect(advice(silent), status).toContain('it printed nothing')
      const never = summarize([result('build', status)], false)
      expect(advice(never), status).not.toContain('.log')
    }
    const retried = summarize([result('flaky', 'failed', { printed: 5, attempts: 3 })], false)
    expect(advice(retried)).toContain('.verify/logs/flaky.attempt-3.log')
  })

  it('does not repeat a recommendation shared by several checks', () => {
    const summary = summarize([result('a', 'cancelled'), result('b', 'cancelled'), result('c', 'cancelled'), result('d', 'failed')], false)
    expect(summary.issues).toHaveLength(4)
    expect(new Set(summary.recommendations).size).toBe(summary.recommendations.length)
    expect(summary.recommendations).toHaveLength(2)
  })

  it('turns optional checks that did not pass into warnings, not issues', () => {
    const summary = summarize(
      [
        result('build', 'passed'),
        result('lint', 'failed', { required: false }),
        result('docs', 'skipped', { required: false }),
        result('review', 'pending_manual', { required: false }),
      ],
      false,
    )
    expect(summary.verdict).toBe('approved')
    expect(summary.issues).toEqual([])
    expect(summary.recommendations).toEqual([])
    expect(summary.warnings).toHaveLength(3)
    expect(summary.warnings.join('\n')).toMatch(/Check lint/)
    expect(summary.warnings.join('\n')).toMatch(/Check docs/)
    expect(summary.warnings.join('\n')).toMatch(/Check review/)
  })

  it('makes an optional failure an issue under strictMode, but an optional skip stays a warning', () => {
    const summary = summarize([result('build', 'passed'), result('lint', 'failed', { required: false }), result('docs', 'skipped', { required: false })], true)
    expect(summary.verdict).toBe('rejected')
    expect(summary.issues).toEqual(['Check failed: Check lint'])
    expect(summary.warnings).toHaveLength(1)
    expect(summary.warnings[0]).toMatch(/Check docs/)
  })

  it('adds an issue when the run was interrupted, and the verdict is incomplete', () => {
    const summary = summarize([result('a', 'passed'), result('b', 'cancelled', { reason: 'interrupted by SIGINT' })], false, { interrupted: true })
    expect(summary.verdict).toBe('incomplete')
    expect(summary.issues[0]).toMatch(/interrupted/)
    expect(summary.issues).toHaveLength(2)
  })

  it('an interrupted run with every check passed still says why it is not approved', () => {
    const summary = summarize([result('a', 'passed')], false, { interrupted: true })
    expect(summary.verdict).toBe('incomplete')
    expect(summary.issues).toEqual([expect.stringMatching(/interrupted/)])
  })

  it('says that no check ran when every check was skipped', () => {
    const summary = summarize([result('a', 'skipped', { required: false }), result('b', 'skipped', { required: false })], false)
    expect(summary.verdict).toBe('incomplete')
    expect(summary.issues).toContain('No check ran')
  })

  // An incomplete verdict with no issue leaves the user (or agent) nothing to act on.
  it('gives at least one issue for an empty set of results (incomplete)', () => {
    const summary = summarize([], false)
    expect(summary.verdict).toBe('incomplete')
    expect(summary.total).toBe(0)
    expect(summary.issues.length).toBeGreaterThan(0)
  })

  it('is pure: the same results give the same summary', () => {
    const rows = [result('a', 'failed'), result('b', 'skipped', { required: false })]
    expect(summarize(rows, false)).toEqual(summarize(rows, false))
  })
})

describe('generateSummary', () => {
  it("uses the checklist's protocol strictMode", () => {
    const protocol = { strictMode: true } as ResolvedProtocol
    const checklist: Checklist = {
      protocol,
      runId: 'r',
      startedAt: null,
      finishedAt: null,
      workspace: null,
      results: [result('a', 'passed'), result('lint', 'timed_out', { required: false })],
    }
    expect(generateSummary(checklist).verdict).toBe('rejected')
    protocol.strictMode = false
    expect(generateSummary(checklist).verdict).toBe('approved')
  })
})
