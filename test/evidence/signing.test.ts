// Signing (SPEC §8): with VERIFY_SIGNING_KEY the evidence file carries an HMAC-SHA256 over its canonical JSON, the
// key never reaches a check, and `verify check --require-signature` passes only signed, unaltered evidence checked
// with the right key. fixtures/validity-signing: `env` prints its environment (and writes it, unmasked, outside the
// workspace); `fn` reports whether a function check sees the key.
import { createHmac } from 'node:crypto'
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../../src/evidence/canonical.js'
import { cleanup, diagnose } from '../helpers/cli.js'
import { project, removeProjects, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const KEY = 'ci-only-signing-key-7f3a9c'
const WRONG = 'a-guessed-signing-key-0000'
const withKey = (key = KEY) => ({ env: { VERIFY_SIGNING_KEY: key } })

async function signed(): Promise<Project> {
  const p = project('validity-signing')
  const run = await p.verify('run', [], withKey())
  expect(run.code, diagnose(run)).toBe(0)
  return p
}

describe.concurrent('signing', { timeout: 90_000 }, () => {
  it('signs the evidence with HMAC-SHA256 over its canonical JSON when the key is set', async () => {
    const p = await signed()
    const { signature, ...unsigned } = p.evidence()
    expect(signature).toEqual({ alg: 'hmac-sha256', value: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(signature?.value).toBe(createHmac('sha256', KEY).update(canonicalJson(unsigned)).digest('hex'))
  })

  it('without the key the evidence is not signed', async () => {
    const p = project('validity-signing')
    const run = await p.verify('run')
    expect(run.code, diagnose(run)).toBe(0)
    expect(p.evidence().signature).toBeUndefined()
  })

  it('removes the key from every check’s environment, and it appears in nothing verify writes or prints', async () => {
    const p = project('validity-signing')
    const run = await p.verify('run', [], withKey())
    expect(run.code, diagnose(run)).toBe(0)
    // What the command check really received, before any masking:
    const env = readFileSync(join(p.outside, 'env.txt'), 'utf8')
    expect(env).toContain('VERIFY_CHECK_ID=env')
    expect(env).not.toContain('VERIFY_SIGNING_KEY')
    expect(env).not.toContain(KEY)
    expect(p.check('fn').evidence?.output.text).toBe('key in env: false')
    const logs = readdirSync(p.path('.verify/logs')).map((name) => readFileSync(p.path(`.verify/logs/${name}`), 'utf8'))
    for (const text of [readFileSync(p.evidencePath, 'utf8'), ...logs, run.stdout, run.stderr]) {
      expect(text).not.toContain(KEY)
      expect(text).not.toContain('VERIFY_SIGNING_KEY')
    }
  })
})

describe.concurrent('verify check --require-signature', { timeout: 90_000 }, () => {
  it('passes signed, unaltered evidence checked with the right key', async () => {
    const p = await signed()
    const check = await p.verify('check', ['--require-signature'], withKey())
    expect(check.code, diagnose(check)).toBe(0)
  })

  it('rejects (exit 1) with the wrong key', async () => {
    const p = await signed()
    const check = await p.verify('check', ['--require-signature'], withKey(WRONG))
    expect(check.code, diagnose(check)).toBe(1)
    expect(check.stdout).toMatch(/signature does not match/)
  })

  it('does not pass without the key', async () => {
    const p = await signed()
    const check = await p.verify('check', ['--require-signature'])
    expect(check.code, diagnose(check)).toBe(1)
    expect(check.stdout).toMatch(/VERIFY_SIGNING_KEY is not set/)
  })

  it('rejects evidence altered by one character', async () => {
    const p = await signed()
    const original = readFileSync(p.evidencePath, 'utf8')
    // One digit of a duration: harmless to every other rule, as the unsigned judgement shows.
    const at = original.search(/"durationMs": \d/) + '"durationMs": '.length
    const digit = original[at] === '9' ? '8' : String(Number(original[at]) + 1)
    writeFileSync(p.evidencePath, original.slice(0, at) + digit + original.slice(at + 1))
    expect((await p.verify('check')).code).toBe(0)
    const check = await p.verify('check', ['--require-signature'], withKey())
    expect(check.code, diagnose(check)).toBe(1)
    expect(check.stdout).toMatch(/altered/)
    // With the key set, a bad signature rejects even without --require-signature.
    expect((await p.verify('check', [], withKey())).code).toBe(1)
  })

  it('rejects unsigned evidence', async () => {
    const p = project('validity-signing')
    expect((await p.verify('run')).code).toBe(0)
    const check = await p.verify('check', ['--require-signature'], withKey())
    expect(check.code, diagnose(check)).toBe(1)
    expect(check.stdout).toMatch(/not signed/)
    // Without a key either: it is the signature that is missing, and a key would not help.
    const keyless = await p.verify('check', ['--require-signature'])
    expect(keyless.code).toBe(1)
    expect(keyless.stdout).toMatch(/the evidence is not signed/)
    expect(keyless.stdout).toMatch(/Record the evidence again where VERIFY_SIGNING_KEY is set/)
    expect(keyless.stdout).not.toMatch(/the key the evidence was signed with/)
  })

  it('an approval given with the key re-signs the evidence, and it passes', async () => {
    const p = project('validity-manual', { git: true })
    expect((await p.verify('run', [], withKey())).code).toBe(3)
    expect((await p.verify('approve', ['review', '--by', 'Ann'], withKey())).code).toBe(0)
    const check = await p.verify('check', ['--require-signature'], withKey())
    expect(check.code, diagnose(check)).toBe(0)
  })

  it('an approval recorded without the key does not make signed evidence pass', async () => {
    const p = project('validity-manual', { git: true })
    expect((await p.verify('run', [], withKey())).code).toBe(3)
    const signedCopy = join(p.outside, 'signed.json')
    copyFileSync(p.evidencePath, signedCopy)
    // Someone without the key approves (writing approvals.json), then puts the signed evidence back untouched.
    expect((await p.verify('approve', ['review', '--by', 'Mallory'])).code).toBe(0)
    copyFileSync(signedCopy, p.evidencePath)
    const check = await p.verify('check', ['--require-signature'], withKey())
    // The signed evidence says the review is pending; an unsigned approval beside it must not settle it.
    expect(check.code, diagnose(check)).not.toBe(0)
  })
})
