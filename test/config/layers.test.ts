// `extends` (SPEC §3.3), in process: local files and folders, preset packages, several levels deep, and every
// way a layer can fail — each a VerifyConfigError naming the file and the chain, never a warning.
import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixture, ROOT } from '../helpers/cli.js'
import { checkOf as check, configError, ENV, ids, load, projectFolder } from '../helpers/load-config.js'

const { project } = projectFolder('verify-layers-')

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
