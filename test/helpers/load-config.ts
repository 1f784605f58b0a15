// Loading a config in process, with a minimal environment so the machine's variables never change the outcome.
import { expect } from 'vitest'
import { loadVerifyConfig, type LoadOptions } from '../../src/config/index.js'
import { VerifyConfigError } from '../../src/errors.js'

export const ENV = { PATH: process.env.PATH }

export const load = (options: LoadOptions) => loadVerifyConfig({ env: ENV, ...options })

/** The VerifyConfigError loading throws; fails the test when the config loads. */
export async function configError(options: LoadOptions): Promise<VerifyConfigError> {
  try {
    await load(options)
  } catch (error) {
    expect(error).toBeInstanceOf(VerifyConfigError)
    return error as VerifyConfigError
  }
  throw new Error('expected a VerifyConfigError, the config loaded')
}
