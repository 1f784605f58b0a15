// Loading a config in process, with a minimal environment so the machine's variables never change the outcome.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, expect } from 'vitest'
import { loadVerifyConfig, type LoadedConfig, type LoadOptions } from '../../src/config/index.js'
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

export const ids = (loaded: LoadedConfig) => loaded.protocol.checks.map((c) => c.id)
export const checkOf = (loaded: LoadedConfig, id: string) => loaded.protocol.checks.find((c) => c.id === id)

/**
 * A folder of the calling test file's own (`tmp`), removed after it, and `project(name, files)`, which writes a project
 * folder in it.
 */
export function projectFolder(prefix: string) {
  const tmp = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))
  const project = (name: string, files: Record<string, string>): string => {
    const dir = join(tmp, name)
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), content)
    }
    return dir
  }
  return { tmp, project }
}
