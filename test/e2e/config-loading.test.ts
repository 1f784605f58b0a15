// Loading a config can neither end verify nor hang it (SPEC §3.1, §6.2): process.exit in a config or a preset, a
// top-level await that never settles, a throw from a timer — each is a config error, exit 2, naming the file, within a
// time limit (VERIFY_CONFIG_TIMEOUT). Spawns the built CLI on fixtures/config-loading.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, ROOT, runCli, sandbox, STACK_LINE, survivors, processesWithEnv } from '../helpers/cli.js'

afterAll(cleanup)

const LOADING = fixture('config-loading')
const config = (name: string) => ['--config', `${LOADING}/${name}`]

describe('a config cannot end verify', () => {
  test.each([
    ['exit-zero.config.mjs', 'exit-zero.config.mjs'],
    ['caught-exit.config.mjs', 'caught-exit.config.mjs'],
    ['exit-from-timer.config.mjs', 'exit-from-timer.config.mjs'],
    ['exit-in-preset.config.mjs', 'presets/exit-zero.mjs'],
  ])('process.exit(0) while %s loads is a config error naming %s (exit 2), nothing runs', async (name, named) => {
    const box = sandbox()
    const result = await box.run(config(name))
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain(named)
    expect(result.stderr).toMatch(/process\.exit\(0\)/)
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(existsSync(box.evidencePath)).toBe(false)
  })

  test('process.exit(0) from a config’s timer after loading, while checks run, never exits 0', async () => {
    const box = sandbox()
    const result = await box.run(config('exit-after-load.config.mjs'))
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).not.toBe(0)
    expect(result.stderr).toMatch(/process\.exit|ended/)
    // The check that was running when the config ended verify went with it.
    expect(await survivors(processesWithEnv('E2E_TMP', box.dir))).toEqual([])
  })
})

describe('a config cannot hang verify', () => {
  test.each(['never-settles.config.mjs', 'never-settles-timer.config.mjs'])('%s: exit 2 at the load time limit, naming the file', async (name) => {
    const box = sandbox()
    const result = await box.run(config(name), { env: { VERIFY_CONFIG_TIMEOUT: '1s' }, timeoutMs: 15_000 })
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain(name)
    expect(result.stderr).toMatch(/did not finish loading within 1s/)
    expect(result.stderr).toContain('VERIFY_CONFIG_TIMEOUT')
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(result.durationMs).toBeLessThan(8000)
  })

  test('an invalid VERIFY_CONFIG_TIMEOUT is a usage error naming the variable', async () => {
    const box = sandbox()
    const result = await box.run(config('live-timer.config.mjs'), { env: { VERIFY_CONFIG_TIMEOUT: 'soon' } })
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toMatch(/VERIFY_CONFIG_TIMEOUT.*soon/)
  })

  test('a throw from a timer of the config while it loads is a config error, not a crash', async () => {
    const box = sandbox()
    const result = await box.run(config('throws-from-timer.config.mjs'))
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain('throws-from-timer.config.mjs')
    expect(result.stderr).toContain('thrown by a timer of the config')
    expect(result.stderr).not.toMatch(STACK_LINE)
  })

  test('a live timer left by the config does not keep verify alive once it is done', async () => {
    const box = sandbox()
    const result = await box.run(config('live-timer.config.mjs'), { timeoutMs: 15_000 })
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(0)
    expect(box.check('ok').status).toBe('passed')
  })
})

describe("a config's own output", () => {
  test.each([
    ['run --reporter json', ['--reporter', 'json']],
    ['list --json', ['list', '--json']],
  ])('never reaches stdout (%s): the output a program reads stays JSON, the config speaks on stderr', async (_name, args) => {
    const box = sandbox()
    const result =
      args[0] === 'list'
        ? await runCli([...args, ...config('prints.config.mjs')], { timeoutMs: 15_000 })
        : await box.run([...args, ...config('prints.config.mjs')], { timeoutMs: 15_000 })
    expect(result.killedByTest).toBe(false)
    expect(() => JSON.parse(result.stdout), result.stdout).not.toThrow()
    expect(result.stderr).toContain('hello from the config')
    expect(result.stderr).toContain('more from the config')
    if (args[0] !== 'list') expect(result.stderr).toContain('late from the config')
  })
})

describe('a config importing verify-protocol, installed as a package', () => {
  // The bundled CLI hands such a config its own copy of the public API (src/config/jiti-options.ts): the DSL and the
  // schemas at once, the other functions loaded on their first call.
  const source = `import * as api from 'verify-protocol'
import { createProtocol, defineProtocol, evidenceFileSchema } from 'verify-protocol'
import { DEFAULT_MARKERS } from 'verify-protocol/presets/strict'
import pkg from 'verify-protocol/package.json' with { type: 'json' }

const names = Object.keys(api).filter((name) => api[name] !== undefined).length
const seed = createProtocol('seed', 'the seed form', [{ id: 'one', name: 'One', command: 'true' }])
export default defineProtocol({
  description: \`names \${names}, an empty object is evidence: \${evidenceFileSchema.safeParse({}).success}, seed checks \${seed.checks.length}, markers \${DEFAULT_MARKERS.length}, package \${pkg.name}\`,
  checks: { a: 'true' },
})
`

  test('gets every name of the API, and its functions work; the other exports resolve as from the package itself', async () => {
    const box = sandbox()
    mkdirSync(join(box.dir, 'node_modules'))
    symlinkSync(ROOT, join(box.dir, 'node_modules', 'verify-protocol'))
    writeFileSync(join(box.dir, 'package.json'), '{ "name": "installed", "type": "module" }\n')
    writeFileSync(join(box.dir, 'verify.config.ts'), source)
    const result = await runCli(['list', '--cwd', box.dir])
    expect(result.code, diagnose(result)).toBe(0)
    const names = Object.keys(await import('../../src/index.js')).length
    const { DEFAULT_MARKERS } = await import('../../src/presets/strict.js')
    expect(result.stdout).toContain(
      `names ${names}, an empty object is evidence: false, seed checks 1, markers ${DEFAULT_MARKERS.length}, package verify-protocol`,
    )
  })

  test("the build's resolution of each other export is the resolver's", async () => {
    const { resolvePackage } = await import('../../src/config/locate.js')
    const built = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli-exports.json'), 'utf8')) as Record<string, string>
    const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }
    const subpaths = Object.keys(exports).filter((key) => key !== '.' && !key.includes('*'))
    expect(Object.keys(built).toSorted()).toEqual(subpaths.map((key) => `verify-protocol/${key.slice(2)}`).toSorted())
    for (const [specifier, path] of Object.entries(built)) expect(resolvePackage(specifier, ROOT)).toEqual({ file: join(ROOT, path) })
  })
})
