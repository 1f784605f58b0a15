// A protocol resolved from a raw definition in memory (no file, no loader), and the config error it raises.
// Shared by the DSL's tests.
import { resolve } from 'node:path'
import { expect } from 'vitest'
import { resolveProtocol, type ResolveOptions } from '../../src/config/resolve.js'
import { VerifyConfigError } from '../../src/errors.js'
import type { ResolvedProtocol } from '../../src/types.js'

export const rootDir = resolve('/project')
export const run = async () => ({ passed: true })

export function resolved(raw: unknown, options: Partial<ResolveOptions> = {}): ResolvedProtocol {
  return resolveProtocol(raw, { rootDir, ...options })
}

/** The VerifyConfigError a config raises. Fails the test when it raises nothing or something else. */
export function resolveError(raw: unknown, options: Partial<ResolveOptions> = {}): VerifyConfigError {
  try {
    resolved(raw, options)
  } catch (error) {
    expect(error).toBeInstanceOf(VerifyConfigError)
    return error as VerifyConfigError
  }
  throw new Error('expected a VerifyConfigError, the config resolved')
}

export const check = (protocol: ResolvedProtocol, id: string) => {
  const found = protocol.checks.find((c) => c.id === id)
  if (!found) throw new Error(`no check ${id}`)
  return found
}
