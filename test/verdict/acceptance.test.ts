// One acceptance rule (SPEC §6.1, §8): every command that consumes stored evidence judges it the same way. With a
// signing key set, unsigned or wrongly signed evidence is accepted by none of them, with or without
// --require-signature; a malformed signature is a rejection; `approve` never signs what it could not verify and never
// leaves a stale signature; an `approval` exempts only a manual check from maxAge. In process through `cli()`.
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup } from '../helpers/cli.js'
import { editEvidence, project, removeProjects, verifyInProcess, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const KEY = 'acceptance-signing-key-51d2'
const withKey = { VERIFY_SIGNING_KEY: KEY }

/** A project whose stored evidence is signed (build passed, review approved with the key). */
async function signedProject(): Promise<Project> {
  const p = project('validity-manual', { git: true })
  expect((await verifyInProcess(p, ['run'], withKey)).code).toBe(3)
  expect((await verifyInProcess(p, ['approve', 'review', '--by', 'Ann'], withKey)).code).toBe(0)
  expect((await verifyInProcess(p, ['check', '--require-signature'], withKey)).code).toBe(0)
  return p
}

describe('with a signing key, no command accepts unsigned or wrongly signed evidence', { timeout: 90_000 }, () => {
  it('verify check rejects unsigned evidence even without --require-signature', async () => {
    const p = await signedProject()
    editEvidence(p, (file) => delete file.signature)
    const check = await verifyInProcess(p, ['check'], withKey)
    expect(check.code, check.stdout).toBe(1)
    expect(check.stdout).toMatch(/not signed/)
    expect(check.stdout).toMatch(/VERIFY_SIGNING_KEY/)
  })

  it('verify check --json reports the same rejection, and every check as not valid', async () => {
    const p = await signedProject()
    editEvidence(p, (file) => delete file.signature)
    const check = await verifyInProcess(p, ['check', '--json'], withKey)
    expect(check.code).toBe(1)
    const json = JSON.parse(check.stdout) as { verdict: string; checks: { id: string; valid: boolean; issues: string[] }[] }
    expect(json.verdict).toBe('rejected')
    // The file's records count for nothing (the approval comes from approvals.json, signed on its own).
    const build = json.checks.find((c) => c.id === 'build')
    expect(build?.valid).toBe(false)
    expect(build?.issues.join()).toMatch(/not signed/)
  })

  it('run --reuse re-runs every check of an unsigned file, and says why', async () => {
    const p = await signedProject()
    editEvidence(p, (file) => delete file.signature)
    const before = p.executions().length
    const run = await verifyInProcess(p, ['run', '--reuse'], withKey)
    expect(p.executions().length).toBe(before + 1)
    expect(p.check('build').evidence?.reused).toBeUndefined()
    expect(run.stdout + run.stderr).toMatch(/not signed/)
  })

  it.each([
    ['signature: null', null],
    ['an unknown alg', { alg: 'md5', value: 'd41d8cd98f00b204e9800998ecf8427e' }],
    ['a value that is not hex', { alg: 'hmac-sha256', value: 'not-a-signature' }],
    ['an empty value', { alg: 'hmac-sha256', value: '' }],
    ['a string', 'forged'],
  ])('--require-signature with %s is a rejection (exit 1), with or without the key', async (_what, signature) => {
    const p = await signedProject()
    editEvidence(p, (file) => ((file as unknown as Record<string, unknown>).signature = signature))
    for (const env of [withKey, {}]) {
      const check = await verifyInProcess(p, ['check', '--require-signature'], env)
      expect(check.code, check.stdout).toBe(1)
      expect(check.stdout).toMatch(/REJECTED/)
      expect(check.stdout).toMatch(/the evidence file's signature/i)
    }
  })

  it('verify approve with the key refuses a forged file: nothing is written, nothing is signed', async () => {
    const p = await signedProject()
    // Forged: the build's evidence says it passed under a reason nobody recorded, and the signature is kept.
    editEvidence(p, (file) => ((file.checks[0] as { reason: string | null }).reason = 'forged'))
    const evidenceBefore = readFileSync(p.evidencePath, 'utf8')
    const approvalsBefore = readFileSync(p.approvalsPath, 'utf8')
    const approve = await verifyInProcess(p, ['approve', 'review', '--by', 'Mallory'], withKey)
    expect(approve.code).toBe(1)
    expect(approve.stderr + approve.stdout).toMatch(/signature/)
    expect(approve.stderr + approve.stdout).toMatch(/nothing was written/i)
    expect(readFileSync(p.evidencePath, 'utf8')).toBe(evidenceBefore)
    expect(readFileSync(p.approvalsPath, 'utf8')).toBe(approvalsBefore)
    expect((await verifyInProcess(p, ['check'], withKey)).code).toBe(1)
  })

  it('verify approve with the key refuses an unsigned file', async () => {
    const p = project('validity-manual', { git: true })
    expect((await verifyInProcess(p, ['run'])).code).toBe(3)
    const approve = await verifyInProcess(p, ['approve', 'review', '--by', 'Mallory'], withKey)
    expect(approve.code).toBe(1)
    expect(approve.stderr + approve.stdout).toMatch(/not signed/)
    expect(p.evidence().signature).toBeUndefined()
  })

  it('verify approve without the key never leaves a stale signature in place', async () => {
    const p = await signedProject()
    expect((await verifyInProcess(p, ['approve', 'review', '--by', 'Bob'])).code).toBe(0)
    expect(p.evidence().signature).toBeUndefined()
    expect(p.check('review').evidence?.approval?.by).toBe('Bob')
  })
})

describe('an approval exempts only a manual check from maxAge', { timeout: 90_000 }, () => {
  it('a command check whose evidence carries an `approval` still expires', async () => {
    const p = project('validity-manual', { git: true })
    expect((await verifyInProcess(p, ['run'])).code).toBe(3)
    expect((await verifyInProcess(p, ['approve', 'review', '--by', 'Ann'])).code).toBe(0)
    const old = new Date(Date.now() - 60 * 60_000).toISOString()
    editEvidence(p, (file) => {
      for (const check of file.checks) {
        if (!check.evidence) continue
        check.evidence.timestamp = old
        ;(check.evidence as { runFinishedAt?: string }).runFinishedAt = old
        if (check.id === 'build') check.evidence.approval = { by: 'nobody', note: null }
      }
      file.finishedAt = old
    })
    writeFileSync(p.approvalsPath, '{"schemaVersion":1,"approvals":{}}\n')
    const check = await verifyInProcess(p, ['check'])
    expect(check.code, check.stdout).toBe(3)
    expect(check.stdout).toMatch(/build\s+stale — the evidence is 1h 00m old/)
    // The manual check's approval (kept in the evidence) does not expire.
    expect(check.stdout).toMatch(/review\s+valid/)
  })
})
