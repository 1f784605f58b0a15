// What a check's digest binds: a change to what it proves makes its evidence stale; a rotated credential does not.
import { describe, expect, it } from 'vitest'
import { checkDigest } from '../../src/evidence/digest.js'
import { check, resolved, rootDir } from '../helpers/resolve-protocol.js'

const digestWith = (env: Record<string, string>, extra: Record<string, unknown> = {}) =>
  checkDigest(check(resolved({ ...extra, checks: { test: { command: 'npm test', env } } }), 'test'), { rootDir })

describe('the check digest and its env', () => {
  it.each([
    'GITHUB_TOKEN',
    'DB_PASSWORD',
    'STRIPE_SECRET_KEY',
    'API_KEY',
    'SENTRY_DSN',
    'STRIPE_SECRETKEY',
    'SSH_PRIVATEKEY',
    'AUTHORIZATION',
    'SESSIONID',
    'TOKENVALUE',
    'DB_PASSWORDHASH',
  ])('a rotated credential (%s) keeps the digest', (name) => {
    expect(digestWith({ [name]: 'first-value-1' })).toBe(digestWith({ [name]: 'second-value-2' }))
  })

  // Masked in the output because the name holds a secret word, but a setting: a change that turns it off is seen.
  it.each(['E2E_AUTHZ', 'SESSIONS_ENABLED', 'AUTHORIZATION_MODE', 'FEATURE'])('a setting (%s) changed changes the digest', (name) => {
    expect(digestWith({ [name]: 'enforced' })).not.toBe(digestWith({ [name]: 'off' }))
  })

  it('redact patterns are not part of it (they often hold a secret, which a digest must not let anyone confirm)', () => {
    expect(digestWith({}, { redact: ['postgres://app:hunter2@db/app'] })).toBe(digestWith({}, { redact: ['postgres://app:rotated9@db/app'] }))
  })
})
