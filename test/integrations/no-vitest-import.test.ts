// The core CLI never loads vitest or jest (SPEC §11): `verify --version`, `verify list` and `verify run` resolve no
// module of theirs, nor of the integrations that import them, even in a project where both are installed.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { BIN, cleanup, fixture, ROOT, sandbox } from '../helpers/cli.js'
import { runTool } from './helpers.js'

afterEach(cleanup)

const REGISTER = join(ROOT, 'test', 'integrations', 'import-log', 'register.mjs')
const RUNNER_MODULE = /node_modules\/(?:vitest|@vitest|jest|@jest|jest-[\w-]+)\/|\/integrations\/(?:vitest|jest)\//

describe('the core CLI', () => {
  test.each([
    { command: 'verify --version', args: ['--version'] },
    { command: 'verify list', args: ['list'] },
    { command: 'verify run', args: ['run'] },
  ])('$command loads no module of vitest or jest', async ({ args }) => {
    const box = sandbox()
    const log = box.path('imports.log')
    const extra = args[0] === 'run' ? ['--evidence', box.evidencePath] : []
    const run = await runTool('--import', [REGISTER, BIN, ...args, ...extra], fixture('all-pass'), { env: { IMPORT_LOG: log } })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const modules = readFileSync(log, 'utf8').split('\n').filter(Boolean)
    // The log saw the CLI load its own modules (`--version`: the bin alone, which answers it), so it would have seen vitest's.
    expect(modules.some((m) => (args[0] === '--version' ? /\/bin\/verify\.cjs$/ : /\/dist\/cli[-./]/).test(m))).toBe(true)
    expect(modules.filter((m) => RUNNER_MODULE.test(m))).toEqual([])
  })

  test('the log does see vitest when the integration is imported', async () => {
    const box = sandbox()
    const log = box.path('imports.log')
    const run = await runTool('--import', [REGISTER, '--input-type=module', '-e', "await import('verify-protocol/vitest')"], ROOT, { env: { IMPORT_LOG: log } })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(
      readFileSync(log, 'utf8')
        .split('\n')
        .some((m) => RUNNER_MODULE.test(m)),
    ).toBe(true)
  })
})
