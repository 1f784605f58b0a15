// What a test runner pays for the reporters on every run: importing them (a Vitest config does, for the plugin) loads
// none of verify's core, and a run takes its recording from the CLI's bundle, compiled with V8's code cache, rather
// than verify's ES modules and those of zod, c12 and jiti (integrations/bundled.ts, docs/performance.md).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { cleanup, ROOT, sandbox } from '../helpers/cli.js'
import { removeProjects } from '../helpers/project.js'
import { JEST_BIN, killTools, runnerProject, runTool, VITEST_BIN } from './helpers.js'

afterEach(async () => {
  killTools()
  await cleanup()
})
afterAll(removeProjects)

const REGISTER = join(ROOT, 'test', 'integrations', 'import-log', 'register.mjs')
// verify's core as ES modules (tsc's output), and the libraries the recording needs as ES modules (the bundle holds zod and
// c12, and requires jiti's CommonJS). The reading of package.json scripts (config/scripts.ts) is light: the reporters
// use it to judge the run's command line.
const CORE =
  /\/dist\/(?:evidence|runner|verdict|reporters|cli)\/|\/dist\/config\/(?!scripts\.js$|workspace-packages\.js$)|\/dist\/integrations\/test-run\.js|\/node_modules\/(?:zod|c12)\/|\/node_modules\/jiti\/.*\.mjs$/

// A real run of each runner in its fixture project.
const RUNS = [
  { runner: 'Vitest', project: 'vitest-reporter', script: VITEST_BIN, args: ['run', '--pool=threads', '--no-isolate'] },
  { runner: 'Jest', project: 'jest-reporter', script: JEST_BIN, args: ['--ci'] },
]

function loaded(log: string): string[] {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean)
}

describe('the reporters', () => {
  test('importing verify-protocol/vitest, and the Jest reporter, loads none of verify’s core', async () => {
    const box = sandbox()
    const log = box.path('imports.log')
    const code = "await import('verify-protocol/vitest'); await import('verify-protocol/jest/reporter')"
    const run = await runTool('--import', [REGISTER, '--input-type=module', '-e', code], ROOT, { env: { IMPORT_LOG: log } })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const modules = loaded(log)
    // The log saw the integrations load, so it would have seen the core.
    expect(modules.some((m) => m.endsWith('/dist/integrations/vitest/plugin.js'))).toBe(true)
    expect(modules.some((m) => m.endsWith('/dist/integrations/jest/reporter.js'))).toBe(true)
    expect(modules.filter((m) => CORE.test(m))).toEqual([])
  })

  test.each(RUNS)('a $runner run records through the bundle', { timeout: 90_000 }, async ({ project, script, args }) => {
    const p = runnerProject(project, { git: true })
    const log = join(p.outside, 'imports.log')
    const run = await runTool('--import', [REGISTER, script, ...args], p.dir, { env: { IMPORT_LOG: log }, timeoutMs: 90_000 })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout + run.stderr).toContain('verify: recorded "test" evidence (3 tests, full run')
    expect(p.check('test').status).toBe('passed')
    const modules = loaded(log)
    expect(modules.some((m) => m.endsWith('/dist/recorder.cjs'))).toBe(true)
    expect(modules.filter((m) => CORE.test(m))).toEqual([])
  })

  test.each(RUNS)('a damaged install fails the $runner run in one paragraph that names the file', { timeout: 90_000 }, async ({ project, script, args }) => {
    const p = runnerProject(project, { git: true })
    // A copy of the package as an install holds it, its recording bundle cut short.
    const copy = join(p.outside, 'verify-protocol')
    mkdirSync(copy)
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'))
    cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir')
    writeFileSync(join(copy, 'dist', 'recorder.cjs'), 'module.exports = (\n')
    rmSync(join(p.dir, 'node_modules', 'verify-protocol'))
    symlinkSync(copy, join(p.dir, 'node_modules', 'verify-protocol'), 'dir')
    const run = await runTool(script, args, p.dir, { timeoutMs: 90_000 })
    expect(run.code).toBe(1)
    const output = run.stdout + run.stderr
    expect(output).toContain(`verify-protocol: its install is damaged: ${join(copy, 'dist', 'recorder.cjs')} does not load`)
    expect(output).toMatch(/Reinstall it/)
    expect(output).not.toMatch(/^\s+at .*(?:cli-loader|bundled)/m)
    expect(existsSync(p.path('.verify/evidence.json'))).toBe(false)
  })
})
