// `extends` (SPEC §3.3), in process: local files and folders, preset packages, several levels deep, `$env`, and every
// way a layer can fail — each a VerifyConfigError naming the file and the chain, never a warning.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LoadedConfig } from '../../src/config/index.js'
import { fixture, ROOT } from '../helpers/cli.js'
import { configError, ENV, load } from '../helpers/load-config.js'

const ids = (loaded: LoadedConfig) => loaded.protocol.checks.map((c) => c.id)
const check = (loaded: LoadedConfig, id: string) => loaded.protocol.checks.find((c) => c.id === id)

const tmp = mkdtempSync(join(tmpdir(), 'verify-layers-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A project folder under tmp with the given files. */
function project(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}

describe('a preset package in node_modules (fixtures/compose-package)', () => {
  it('is extended, overridden field by field, and trimmed', async () => {
    const loaded = await load({ cwd: fixture('compose-package') })
    expect(ids(loaded)).toEqual(['audit', 'build', 'test', 'docs'])
    expect(check(loaded, 'test')).toMatchObject({
      name: 'Unit tests',
      evidenceType: 'test_pass',
      command: 'sh ../bin/exit.sh 0 "project tests ok"',
      timeoutMs: 90_000,
      dependsOn: ['build'],
    })
    expect(check(loaded, 'audit')).toMatchObject({ required: false, evidenceType: 'security_verified' })
    // The preset's protocol options apply; the project's own too.
    expect(loaded.protocol).toMatchObject({ timeoutMs: 120_000, graceMs: 500 })
  })

  it('lists its layers lowest first, each with the chain that led to it, and where each check came from', async () => {
    const loaded = await load({ cwd: fixture('compose-package') })
    expect(loaded.layers.map((l) => l.label)).toEqual(['node_modules/@acme/verify-preset/src/shared/base.mjs', '@acme/verify-preset', 'verify.config.ts'])
    expect(loaded.layers[0]?.chain).toEqual(['verify.config.ts', '@acme/verify-preset', 'node_modules/@acme/verify-preset/src/shared/base.mjs'])
    expect(loaded.layers[0]?.file).toBe(join(fixture('compose-package'), 'node_modules/@acme/verify-preset/src/shared/base.mjs'))
    expect(loaded.origins).toEqual({
      audit: ['node_modules/@acme/verify-preset/src/shared/base.mjs'],
      build: ['@acme/verify-preset'],
      test: ['@acme/verify-preset', 'verify.config.ts'],
      docs: ['verify.config.ts'],
    })
  })
})

describe('local folders and files, several levels deep (fixtures/compose-local)', () => {
  it('a folder is its verify.config.*; a relative entry resolves against the file that declares it', async () => {
    const loaded = await load({ cwd: fixture('compose-local') })
    expect(loaded.layers.map((l) => l.label)).toEqual(['presets/base/checks.mjs', 'presets/team/verify.config.mjs', 'verify.config.ts'])
    expect(ids(loaded)).toEqual(['build', 'test', 'lint'])
    // base sets test's timeout, team replaces its command, the project makes lint optional.
    expect(check(loaded, 'test')).toMatchObject({ command: 'sh ../bin/exit.sh 0 "tests ok"', timeoutMs: 45_000, dependsOn: ['build'] })
    expect(check(loaded, 'lint')).toMatchObject({ required: false, timeoutMs: 20_000 })
  })

  it('works the same from another cwd, through --config (unjs/c12#57)', async () => {
    const loaded = await load({ cwd: ROOT, configFile: join(fixture('compose-local'), 'verify.config.ts') })
    expect(ids(loaded)).toEqual(['build', 'test', 'lint'])
  })

  it('protocol inheritance sees the layers: deploy extends default, which the presets filled', async () => {
    const loaded = await load({ cwd: fixture('compose-local'), protocol: 'deploy' })
    expect(loaded.protocolNames).toEqual(['default', 'deploy'])
    expect(ids(loaded)).toEqual(['build', 'test', 'lint', 'smoke'])
    expect(loaded.protocol).toMatchObject({ name: 'deploy', strictMode: true, timeoutMs: 60_000 })
    expect(loaded.origins.smoke).toEqual(['verify.config.ts'])
  })
})

describe('presets shipped in the package', () => {
  it('`extends: ["verify-protocol/presets/…"]` by name, and a preset imported as a value', async () => {
    const dir = project('shipped', {
      'package.json': JSON.stringify({ name: 'shipped', scripts: { build: 'tsc', test: 'vitest run', lint: 'eslint .' } }),
      'yarn.lock': '',
      'tsconfig.json': '{}',
      'verify.config.mjs': `import strict from 'verify-protocol/presets/strict'
export default { extends: ['verify-protocol/presets/node', 'verify-protocol/presets/typescript', strict], checks: { lint: false } }`,
    })
    mkdirSync(join(dir, 'node_modules'))
    symlinkSync(ROOT, join(dir, 'node_modules', 'verify-protocol'), 'dir')
    const loaded = await load({ cwd: dir })
    expect(loaded.layers.map((l) => l.label)).toEqual([
      'verify-protocol/presets/node',
      'verify-protocol/presets/typescript',
      'extends[2] in verify.config.mjs',
      'verify.config.mjs',
    ])
    expect(ids(loaded)).toEqual(['build', 'test', 'typecheck', 'todo', 'error-free'])
    expect(check(loaded, 'build')?.command).toBe('yarn run build')
    expect(check(loaded, 'typecheck')?.command).toEqual(['yarn', 'run', 'tsc', '--noEmit', '-p', 'tsconfig.json'])
    expect(check(loaded, 'error-free')?.dependsOn).toEqual(['build', 'test', 'typecheck', 'todo'])
    expect(loaded.protocol.strictMode).toBe(true)
  })

  it('a preset that fails at load (no package.json for the node preset) names the preset and the chain', async () => {
    const dir = project('no-package-json', { 'verify.config.mjs': `export default { extends: ['verify-protocol/presets/node'], checks: { a: 'true' } }` })
    mkdirSync(join(dir, 'node_modules'))
    symlinkSync(ROOT, join(dir, 'node_modules', 'verify-protocol'), 'dir')
    const error = await configError({ cwd: dir })
    expect(error.code).toBe('E_CONFIG_LOAD')
    expect(error.message).toMatch(/verify-protocol\/presets\/node.*no package\.json/)
    expect(error.problems).toEqual(['extended through: verify.config.mjs → verify-protocol/presets/node'])
  })
})

const errorOf = (name: string) => configError({ cwd: ROOT, configFile: join(fixture('compose-errors'), name) })

describe('failures are config errors naming the file and the chain (fixtures/compose-errors)', () => {
  it('a missing package', async () => {
    const error = await errorOf('missing-package.config.mjs')
    expect(error.message).toMatch(/Cannot find the preset "@acme\/not-installed", extended by missing-package\.config\.mjs/)
    expect(error.problems).toEqual(['extended through: missing-package.config.mjs → @acme/not-installed'])
  })

  it('a missing file, also one level down', async () => {
    expect((await errorOf('missing-file.config.mjs')).message).toMatch(/Cannot find "\.\/presets\/nope\.mjs".*no file or folder at .*presets\/nope\.mjs/)
    const nested = await errorOf('missing-nested.config.mjs')
    expect(nested.message).toMatch(/Cannot find "\.\/gone\.mjs", extended by presets\/extends-missing\.mjs/)
    expect(nested.problems).toEqual(['extended through: missing-nested.config.mjs → presets/extends-missing.mjs → ./gone.mjs'])
  })

  it('a preset that throws at import', async () => {
    const error = await errorOf('throws.config.mjs')
    expect(error.code).toBe('E_CONFIG_LOAD')
    expect(error.message).toMatch(/Could not load presets\/throws\.mjs .*preset exploded at import/)
    expect(error.problems).toEqual(['extended through: throws.config.mjs → presets/throws.mjs'])
  })

  it('a preset function that throws', async () => {
    expect((await errorOf('preset-function-throws.config.mjs')).message).toMatch(
      /Could not load broken\(\) in preset-function-throws\.config\.mjs: no package\.json here/,
    )
  })

  it('a cycle of extends', async () => {
    const error = await errorOf('cycle.config.mjs')
    expect(error.code).toBe('E_CONFIG_INVALID')
    expect(error.message).toMatch(/cycle/)
    expect(error.problems).toEqual(['extended through: cycle.config.mjs → presets/cycle-a.mjs → presets/cycle-b.mjs → presets/cycle-a.mjs'])
  })

  it("a preset whose content is invalid: its problems with the chain, and the project's own", async () => {
    const error = await errorOf('invalid.config.mjs')
    expect(error.problems).toEqual([
      'invalid.config.mjs → presets/invalid.mjs: (root): unknown key "stricMode"',
      'invalid.config.mjs → presets/invalid.mjs: checks.lint: unknown key "comand"',
      expect.stringMatching(/^checks\.a\.timeout: expected a duration/),
    ])
  })

  it('an extends entry that is neither a string nor a preset', async () => {
    expect((await errorOf('bad-extends.config.mjs')).problems).toContain('extends[1]: expected a path, a package name or a preset, got number 42')
  })

  it('`extends` and `allowRemote` of the wrong shape, each problem with its path', async () => {
    const shapes = project('bad-shapes', {
      'number/verify.config.mjs': `export default { extends: 42, checks: { a: 'true' } }`,
      'entries/verify.config.mjs': `export default { extends: ['', [1]], checks: { a: 'true' } }`,
      'remote/verify.config.mjs': `export default { allowRemote: 'yes', checks: { a: 'true' } }`,
    })
    const number = await configError({ cwd: join(shapes, 'number') })
    expect([number.code, number.message]).toEqual(['E_CONFIG_INVALID', 'Invalid `extends` in verify.config.mjs'])
    expect(number.problems).toEqual([
      'extends: expected a path, a package name, a preset or a list of them, got number 42',
      'extended through: verify.config.mjs',
    ])
    expect((await configError({ cwd: join(shapes, 'entries') })).problems).toEqual([
      'extends[0]: expected a path, a package name or a preset, got string ""',
      'extends[1]: expected a path, a package name or a preset, got an array',
      'extended through: verify.config.mjs',
    ])
    expect((await configError({ cwd: join(shapes, 'remote') })).problems).toEqual(['allowRemote: expected boolean, got string "yes"'])
  })

  it('a remote source without allowRemote', async () => {
    const error = await errorOf('remote.config.mjs')
    expect(error.message).toMatch(/remote source "gh:acme\/verify-presets".*refused/)
    expect(error.problems.join('\n')).toMatch(/allowRemote: true/)
  })

  it('allowRemote set by a layer rather than the project', async () => {
    expect((await errorOf('remote-in-layer.config.mjs')).problems[0]).toMatch(/only the project's own config can allow remote sources/)
  })

  it('a config in a subfolder extends relative to itself', async () => {
    const loaded = await load({ cwd: join(fixture('compose-errors'), 'sub') })
    expect(ids(loaded)).toEqual(['ok', 'a'])
  })
})

describe('more composition', () => {
  it('a base reached twice (two presets extend it) is applied once, below both', async () => {
    const dir = project('diamond', {
      'base.mjs': `export default { checks: { lint: { command: 'eslint', timeout: '1m' } } }`,
      'a.mjs': `export default { extends: ['./base.mjs'], checks: { lint: false, a: 'true' } }`,
      'b.mjs': `export default { extends: ['./base.mjs'], checks: { b: 'true' } }`,
      'verify.config.mjs': `export default { extends: ['./a.mjs', './b.mjs'], checks: {} }`,
    })
    const loaded = await load({ cwd: dir })
    expect(loaded.layers.map((l) => l.label)).toEqual(['base.mjs', 'a.mjs', 'b.mjs', 'verify.config.mjs'])
    expect(ids(loaded)).toEqual(['a', 'b'])
  })

  it('a later entry of extends overrides an earlier one', async () => {
    const dir = project('order', {
      'one.mjs': `export default { failFast: true, checks: { t: { command: 'one', timeout: '1m' } } }`,
      'two.mjs': `export default { failFast: false, checks: { t: { command: 'two' } } }`,
      'verify.config.mjs': `export default { extends: ['./one.mjs', './two.mjs'] }`,
    })
    const loaded = await load({ cwd: dir })
    expect(check(loaded, 't')).toMatchObject({ command: 'two', timeoutMs: 60_000 })
    expect(loaded.protocol.failFast).toBe(false)
  })

  it('extends from .verifyrc and from the "verify" key of package.json', async () => {
    const rc = project('rc', { 'base.json': JSON.stringify({ checks: { build: 'make' } }), '.verifyrc': 'extends[]=./base.json\nchecks.test=vitest\n' })
    expect(ids(await load({ cwd: rc }))).toEqual(['build', 'test'])
    const pkg = project('pkg-key', {
      'base.mjs': `export default { checks: { build: 'make' } }`,
      'package.json': JSON.stringify({ name: 'x', verify: { extends: ['./base.mjs'], checks: { test: 'vitest' } } }),
    })
    const loaded = await load({ cwd: pkg })
    expect(ids(loaded)).toEqual(['build', 'test'])
    expect(loaded.configFile).toBe(join(pkg, 'package.json'))
  })

  it('a config or preset written as a function gets the project folder and the environment', async () => {
    const dir = project('function', {
      'preset.mjs': `export default ({ rootDir, env }) => ({ checks: { where: { command: 'true', name: rootDir + '|' + env.MARK } } })`,
      'verify.config.mjs': `export default (ctx) => ({ extends: ['./preset.mjs'], checks: { own: { command: 'true', name: ctx.rootDir } } })`,
    })
    const loaded = await load({ cwd: dir, env: { ...ENV, MARK: 'm' } })
    expect(check(loaded, 'where')?.name).toBe(`${dir}|m`)
    expect(check(loaded, 'own')?.name).toBe(dir)
  })

  it('the merged raw config and the resolved protocol carry what a layer set (e.g. reporters)', async () => {
    const dir = project('raw', {
      'base.mjs': `export default { reporters: ['json'], checks: { a: 'true' } }`,
      'verify.config.mjs': `export default { extends: './base.mjs' }`,
    })
    const loaded = await load({ cwd: dir })
    expect(loaded.raw.reporters).toEqual(['json'])
    expect(loaded.protocol.reporters).toEqual(['json'])
  })

  it('reporters of a single-protocol preset under a defineConfig go to `default`, like its other options', async () => {
    const dir = project('preset-reporters', {
      'preset.mjs': `export default { reporters: ['json'], timeout: '1m', checks: { p: 'true' } }`,
      'verify.config.mjs': `export default { extends: ['./preset.mjs'], reporters: ['junit'], protocols: { default: { checks: { a: 'true' } }, ci: { checks: { b: 'true' } } } }`,
    })
    expect((await load({ cwd: dir })).protocol).toMatchObject({ reporters: ['json'], timeoutMs: 60_000 })
    expect((await load({ cwd: dir, protocol: 'ci' })).protocol).toMatchObject({ reporters: ['junit'], timeoutMs: 600_000 })
  })
})

describe('$env overrides (fixtures/compose-env)', () => {
  const cwd = fixture('compose-env')

  it('none apply without an environment name', async () => {
    const loaded = await load({ cwd, env: ENV })
    expect(ids(loaded)).toEqual(['build', 'test', 'lint'])
    expect(loaded.protocol.failFast).toBe(false)
  })

  it('CI selects `ci`: merged by id in the project and in its layers', async () => {
    const loaded = await load({ cwd, env: { ...ENV, CI: 'true' } })
    expect(loaded.protocol.failFast).toBe(true)
    expect(check(loaded, 'test')).toMatchObject({ timeoutMs: 1_200_000, command: 'sh ../bin/exit.sh 0 "tests ok"', dependsOn: ['build'] })
    expect(check(loaded, 'build')?.required).toBe(false)
  })

  it('VERIFY_ENV wins over CI and NODE_ENV; it can add and remove checks', async () => {
    const loaded = await load({ cwd, env: { ...ENV, CI: 'true', NODE_ENV: 'production', VERIFY_ENV: 'staging' } })
    expect(ids(loaded)).toEqual(['build', 'test', 'smoke'])
    expect(loaded.protocol.failFast).toBe(false)
  })

  it('applies to a preset given as a value too', async () => {
    const dir = project('env-value', {
      'verify.config.mjs': `const preset = { checks: { a: { command: 'true', timeout: '1m' } }, $env: { ci: { checks: { a: { timeout: '9m' } } } } }
export default { extends: [preset], checks: {} }`,
    })
    expect(check(await load({ cwd: dir, env: { ...ENV, CI: '1' } }), 'a')).toMatchObject({ command: 'true', timeoutMs: 540_000 })
    expect(check(await load({ cwd: dir, env: ENV }), 'a')?.timeoutMs).toBe(60_000)
  })

  it('NODE_ENV is the last resort', async () => {
    const dir = project('node-env', { 'verify.config.mjs': `export default { checks: { a: 'true' }, $env: { production: { strictMode: true } } }` })
    expect((await load({ cwd: dir, env: { ...ENV, NODE_ENV: 'production' } })).protocol.strictMode).toBe(true)
  })
})

describe('remote sources with allowRemote: true', () => {
  let server: Server
  let url = ''
  const cache = join(tmp, 'cache')
  let previousCache: string | undefined

  beforeAll(async () => {
    // A tarball as giget's http provider expects it: one top folder, stripped on extraction.
    const src = project('remote-src/preset', {
      'verify.config.mjs': `export default { extends: ['./base.mjs'], checks: { remote: { command: 'true', timeout: '7s' } } }`,
      'base.mjs': `export default { checks: { 'remote-base': 'true' } }`,
    })
    const tarball = join(tmp, 'preset.tar.gz')
    execFileSync('tar', ['-czf', tarball, '-C', dirname(src), 'preset'])
    server = createServer((req, res) => {
      if (req.url !== '/preset.tar.gz') return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/gzip' })
      res.end(req.method === 'HEAD' ? undefined : readFileSync(tarball))
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const address = server.address()
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/preset.tar.gz`
    previousCache = process.env.XDG_CACHE_HOME
    process.env.XDG_CACHE_HOME = cache
  })

  afterAll(async () => {
    if (previousCache === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = previousCache
    await new Promise((done) => server?.close(done))
  })

  it('downloads the source with giget and follows its own extends', async () => {
    const dir = project('remote-user', { 'verify.config.mjs': `export default { allowRemote: true, extends: ['${url}'], checks: { own: 'true' } }` })
    const loaded = await load({ cwd: dir })
    expect(ids(loaded)).toEqual(['remote-base', 'remote', 'own'])
    expect(check(loaded, 'remote')?.timeoutMs).toBe(7000)
    expect(loaded.layers.map((l) => l.label)).toEqual([expect.stringMatching(/base\.mjs$/), url, 'verify.config.mjs'])
  })

  it('a download that fails is a config error naming the source', async () => {
    const missing = url.replace('preset.tar.gz', 'missing.tar.gz')
    const dir = project('remote-missing', { 'verify.config.mjs': `export default { allowRemote: true, extends: ['${missing}'], checks: { own: 'true' } }` })
    const error = await configError({ cwd: dir })
    expect(error.code).toBe('E_CONFIG_LOAD')
    expect(error.message).toContain(missing)
    expect(error.problems).toEqual([`extended through: verify.config.mjs → ${missing}`])
  })
})
