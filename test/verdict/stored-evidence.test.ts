// What test/verdict/check-evidence.test.ts leaves out of SPEC §6.1: the future limit under an unbounded window (as
// approvals have), values that only look right after a JSON round trip, and the judgement of stored evidence
// (judgeStoredEvidence) that `verify check` and `--reuse` share: failed versus stale, approvals, garbage, the clock.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Approval } from '../../src/evidence/approvals.js'
import { checkDigest } from '../../src/evidence/digest.js'
import { workspaceFingerprint } from '../../src/evidence/fingerprint.js'
import type { CheckResult, Evidence, EvidenceFile, ResolvedCheck, ResolvedProtocol, WorkspaceInfo } from '../../src/types.js'
import { checkEvidence, FUTURE_TOLERANCE_MS } from '../../src/verdict/check-evidence.js'
import { checkFingerprint } from '../../src/evidence/binding.js'
import { judgeStoredEvidence } from '../../src/verdict/validate.js'
import { buildRecord } from '../helpers/evidence.js'

const NOW = new Date('2026-11-30T12:00:00.000Z')
const MINUTE = 60_000
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString()

function evidence(patch: Partial<Evidence> = {}): Evidence {
  return buildRecord(at(-MINUTE), patch)
}

describe('checkEvidence: the rest of §6.1', () => {
  const build = { id: 'build', name: 'Build', evidenceType: 'build_success' }
  const context = { maxAgeMs: 5 * MINUTE, now: NOW, fingerprint: 'sha256:workspace', checkDigest: 'sha256:check' }

  it('rejects evidence 1 ms past the 30 s future tolerance', () => {
    expect(checkEvidence(build, evidence({ timestamp: at(FUTURE_TOLERANCE_MS + 1) }), context).valid).toBe(false)
  })

  it('an unbounded window (approvals) still refuses a time in the future, and accepts any past one', () => {
    const unbounded = { ...context, maxAgeMs: Number.POSITIVE_INFINITY }
    const future = checkEvidence(build, evidence({ timestamp: at(60 * MINUTE) }), unbounded)
    expect(future.valid).toBe(false)
    expect(future.issues).toEqual([expect.stringMatching(/future/)])
    expect(checkEvidence(build, evidence({ timestamp: '2020-01-01T00:00:00.000Z' }), unbounded).valid).toBe(true)
  })

  it.each([
    ['the string "true"', 'true'],
    ['the number 1', 1],
    ['null', null],
  ])('refuses `passed` that is %s: only the boolean true passes', (_what, passed) => {
    const validity = checkEvidence(build, evidence({ passed: passed as unknown as boolean }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toEqual([expect.stringMatching(/failure/)])
  })

  it('refuses a timestamp that is a number of milliseconds, not an ISO string', () => {
    const validity = checkEvidence(build, evidence({ timestamp: NOW.getTime() as unknown as string }), context)
    expect(validity.valid).toBe(false)
    expect(validity.issues).toEqual([expect.stringMatching(/timestamp/)])
  })

  it('compares evidence types exactly (case matters)', () => {
    expect(checkEvidence(build, evidence({ type: 'Build_Success' }), context).valid).toBe(false)
  })

  it('refuses evidence that carries no fingerprint or digest when they are required', () => {
    const bare = evidence()
    delete (bare as Partial<Evidence>).fingerprint
    delete (bare as Partial<Evidence>).checkDigest
    const validity = checkEvidence(build, bare, context)
    expect(validity.issues).toEqual([expect.stringMatching(/code changed/), expect.stringMatching(/definition changed/)])
  })

  it('says the code changed without a file list when the files are unknown, and lists exactly five without "more"', () => {
    const moved = evidence({ fingerprint: 'sha256:before' })
    expect(checkEvidence(build, moved, { ...context, changedFiles: [] }).issues).toEqual(['Build: the code changed since the evidence was recorded'])
    const five = ['a', 'b', 'c', 'd', 'e']
    const issue = checkEvidence(build, moved, { ...context, changedFiles: five }).issues[0]
    expect(issue).toContain('a, b, c, d, e')
    expect(issue).not.toContain('more')
  })
})

describe('judgeStoredEvidence', () => {
  let rootDir: string
  let workspace: WorkspaceInfo
  let protocol: ResolvedProtocol

  const check = (id: string, patch: Partial<ResolvedCheck>): ResolvedCheck => ({
    id,
    name: id,
    evidenceType: 'command_success',
    required: true,
    kind: 'command',
    command: `echo ${id}`,
    timeoutMs: 60_000,
    dependsOn: [],
    cwd: rootDir,
    env: {},
    retries: 0,
    ...patch,
  })

  beforeAll(async () => {
    rootDir = mkdtempSync(join(tmpdir(), 'verify-judge-'))
    writeFileSync(join(rootDir, 'a.txt'), 'a\n')
    workspace = await workspaceFingerprint(rootDir)
    protocol = {
      name: 'default',
      strictMode: false,
      parallel: true,
      concurrency: 1,
      failFast: false,
      skipOptional: false,
      timeoutMs: 60_000,
      maxAgeMs: 5 * MINUTE,
      graceMs: 1000,
      rootDir,
      redact: [],
      logLimitBytes: 1024,
      checks: [
        check('build', {}),
        check('docs', { inputs: ['docs/**'] }),
        check('review', { kind: 'manual', command: undefined, manual: 'Read it', evidenceType: 'architect_approval' }),
      ],
    }
  })

  afterAll(() => rmSync(rootDir, { recursive: true, force: true }))

  function byId(id: string): ResolvedCheck {
    return protocol.checks.find((c) => c.id === id) as ResolvedCheck
  }

  /** Evidence bound to the workspace as it is now, recorded `ageMs` before NOW. */
  async function bound(id: string, patch: Partial<Evidence> = {}, ageMs = MINUTE): Promise<Evidence> {
    const c = byId(id)
    return evidence({
      type: c.evidenceType,
      timestamp: at(-ageMs),
      fingerprint: await checkFingerprint(c, rootDir, workspace),
      checkDigest: checkDigest(c, { rootDir }),
      ...patch,
    })
  }

  function file(checks: Partial<CheckResult>[]): EvidenceFile {
    return { checks, workspace } as unknown as EvidenceFile
  }

  async function judge(checks: Partial<CheckResult>[], approvals: Record<string, Approval> = {}, maxAgeMs = 5 * MINUTE) {
    return judgeStoredEvidence(protocol, file(checks), workspace, { maxAgeMs, now: NOW, approvals: new Map(Object.entries(approvals)) })
  }

  it('valid passing evidence is passed and reusable', async () => {
    const judged = (await judge([{ id: 'build', status: 'passed', evidence: await bound('build') }])).get('build')
    expect(judged?.result.status).toBe('passed')
    expect(judged?.reusable).toBe(true)
  })

  it('a failure recorded for this very code stays a failure (it rejects), keeping its recorded status', async () => {
    const failed = (await judge([{ id: 'build', status: 'failed', reason: 'exit code 2', evidence: await bound('build', { passed: false }) }])).get('build')
    expect(failed?.result).toMatchObject({ status: 'failed', reason: 'exit code 2' })
    expect(failed?.reusable).toBe(false)
    const timedOut = (
      await judge([{ id: 'build', status: 'timed_out', reason: 'timed out', evidence: await bound('build', { passed: false, timedOut: true }) }])
    ).get('build')
    expect(timedOut?.result.status).toBe('timed_out')
  })

  it('a failure recorded for other code is stale, not a failure of this code', async () => {
    const judged = (await judge([{ id: 'build', status: 'failed', evidence: await bound('build', { passed: false, fingerprint: 'sha256:old' }) }])).get('build')
    expect(judged?.result.status).toBe('stale')
  })

  it('the clock it is given decides freshness: evidence 6 minutes old is stale under a 5-minute window', async () => {
    const judged = (await judge([{ id: 'build', status: 'passed', evidence: await bound('build', {}, 6 * MINUTE) }])).get('build')
    expect(judged?.result.status).toBe('stale')
    expect(judged?.result.reason).toMatch(/6m 00s old/)
    expect(
      (await judge([{ id: 'build', status: 'passed', evidence: await bound('build', {}, 6 * MINUTE) }], {}, 10 * MINUTE)).get('build')?.result.status,
    ).toBe('passed')
  })

  it('garbage evidence, or none, is no evidence: pending (pending_manual for a manual check)', async () => {
    const judged = await judge([
      { id: 'build', status: 'passed', evidence: { type: 'command_success', passed: true } as unknown as Evidence },
      { id: 'docs', status: 'passed', evidence: 'yes' as unknown as Evidence },
    ])
    expect(judged.get('build')?.result).toMatchObject({ status: 'pending', evidence: null })
    expect(judged.get('docs')?.result).toMatchObject({ status: 'pending', evidence: null })
    expect(judged.get('review')?.result).toMatchObject({ status: 'pending_manual', reason: 'Read it' })
  })

  it('an approval satisfies a manual check whatever its age, until the code it was given for changes', async () => {
    const review = byId('review')
    const approval: Approval = {
      checkId: 'review',
      by: 'Ann',
      note: null,
      timestamp: at(-365 * 24 * 60 * MINUTE),
      fingerprint: await checkFingerprint(review, rootDir, workspace),
      checkDigest: checkDigest(review, { rootDir }),
      evidenceType: 'architect_approval',
    }
    const fresh = (await judge([], { review: approval })).get('review')
    expect(fresh?.result).toMatchObject({ status: 'passed', evidence: expect.objectContaining({ approval: { by: 'Ann', note: null } }) })
    const moved = (await judge([], { review: { ...approval, fingerprint: 'sha256:old' } })).get('review')
    expect(moved?.result.status).toBe('stale')
    const redefined = (await judge([], { review: { ...approval, checkDigest: 'sha256:old' } })).get('review')
    expect(redefined?.result.reason).toMatch(/definition changed/)
  })

  it('an approval of another evidence type does not satisfy the check', async () => {
    const review = byId('review')
    const approval: Approval = {
      checkId: 'review',
      by: 'Ann',
      note: null,
      timestamp: at(-MINUTE),
      fingerprint: await checkFingerprint(review, rootDir, workspace),
      checkDigest: checkDigest(review, { rootDir }),
      evidenceType: 'functionality_verified',
    }
    expect((await judge([], { review: approval })).get('review')?.result.status).toBe('stale')
  })

  it("an approval copied under another check's id (same definition, same code) does not approve that check", async () => {
    const review = byId('review')
    const approval: Approval = {
      checkId: 'security',
      by: 'Ann',
      note: null,
      timestamp: at(-MINUTE),
      fingerprint: await checkFingerprint(review, rootDir, workspace),
      checkDigest: checkDigest(review, { rootDir }),
      evidenceType: 'architect_approval',
    }
    const result = (await judge([], { review: approval })).get('review')?.result
    expect(result?.status).toBe('pending_manual')
    expect(result?.reason).toMatch(/was not given for "review" \(it names "security"\)/)
    const unnamed = (await judge([], { review: { ...approval, checkId: undefined } })).get('review')?.result
    expect(unnamed?.status).toBe('pending_manual')
  })
})
