// Finding and loading config files the way projects lay them out: c12's `.config/` folder, .verifyrc, pnpm's linked
// node_modules — and, when loading fails, one paragraph that names the file, the chain and where to look.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, runCli, STACK_LINE } from '../helpers/cli.js'
import { configError, load } from '../helpers/load-config.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-loading-'))
afterAll(async () => {
  await cleanup()
  rmSync(tmp, { recursive: true, force: true })
})

function project(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}

describe('a config in .config/ (found by c12)', () => {
  const files = {
    'package.json': JSON.stringify({ name: 'app' }),
    '.config/verify.mjs': `export default { extends: ['./base.mjs'], checks: { where: 'pwd' } }`,
    '.config/base.mjs': `export default { checks: { base: 'true' } }`,
  }

  it('has the folder above as its project root: checks run there and presets see it', async () => {
    const dir = project('dot-config', files)
    const loaded = await load({ cwd: dir })
    expect(loaded.configFile).toBe(join(dir, '.config/verify.mjs'))
    expect(loaded.rootDir).toBe(dir)
    expect(loaded.protocol.rootDir).toBe(dir)
    expect(loaded.protocol.checks.map((c) => [c.id, c.cwd])).toEqual([
      ['base', dir],
      ['where', dir],
    ])
    expect(loaded.layers.map((l) => l.label)).toEqual(['.config/base.mjs', '.config/verify.mjs'])
  })

  it('the same through --config', async () => {
    const dir = project('dot-config-flag', files)
    expect((await load({ cwd: tmp, configFile: join(dir, '.config/verify.mjs') })).rootDir).toBe(dir)
  })

  it('verify creates .verify/ in the project, not in .config/', async () => {
    const dir = project('dot-config-run', { ...files, '.config/verify.mjs': `export default { checks: { a: 'true' } }` })
    const result = await runCli(['run', '--reporter', 'json'], { cwd: dir })
    expect(result.code, diagnose(result)).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ checks: [{ id: 'a', status: 'passed' }] })
    expect(existsSync(join(dir, '.verify/evidence.json'))).toBe(true)
    expect(existsSync(join(dir, '.config/.verify'))).toBe(false)
    const listed = await runCli(['list', '--json'], { cwd: dir })
    expect(JSON.parse(listed.stdout)).toMatchObject({ rootDir: dir })
  })
})

describe('the file names c12 discovers', () => {
  it.each([
    ['verify.config.yaml', 'checks:\n  a: "true"\n'],
    ['verify.config.toml', '[checks]\na = "true"\n'],
    ['verify.config.jsonc', '{ /* c */ "checks": { "a": "true" } }'],
    ['.config/verify.config.json5', '{ checks: { a: "true" } }'],
  ])('%s is loaded, and is its configFile', async (name, content) => {
    const dir = project(`names-${name.replaceAll('/', '_')}`, { [name]: content })
    const loaded = await load({ cwd: dir })
    expect(loaded.configFile).toBe(join(dir, name))
    expect(loaded.protocol.checks.map((c) => c.id)).toEqual(['a'])
  })
})

describe('.verifyrc', () => {
  it('is rc lines `key=value`, dotted keys, values coerced (quote a command that reads as a boolean or number)', async () => {
    const dir = project('rc-lines', { '.verifyrc': 'checks.build=npm run build\nchecks.ok="true"\ntimeout=5m\n' })
    const loaded = await load({ cwd: dir })
    expect(loaded.protocol.checks.map((c) => [c.id, c.command])).toEqual([
      ['build', 'npm run build'],
      ['ok', 'true'],
    ])
    expect(loaded.protocol.timeoutMs).toBe(300_000)
  })

  it('written as JSON yields no setting: a config error (exit 2) that says which format it must be', async () => {
    const dir = project('rc-json', { '.verifyrc': JSON.stringify({ checks: { build: 'npm run build' } }, null, 2) })
    const error = await configError({ cwd: dir })
    expect(error.code).toBe('E_CONFIG_INVALID')
    expect(error.message).toMatch(/\.verifyrc holds no setting: .*`key=value`.*not JSON/)
    const result = await runCli(['list'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^verify: .*\.verifyrc holds no setting/)
  })
})

describe('a config file beside a package.json "verify" key or a .verifyrc', () => {
  const files = {
    'package.json': JSON.stringify({ name: 'app', verify: { checks: { b: { command: 'true', timeout: 'soon' } } } }),
    'verify.config.mjs': `export default { checks: { a: 'true' } }`,
    'ci/strict.config.mjs': `export default { checks: { c: 'true' } }`,
  }

  it('is merged with them, and a problem in them is said to be in the merge, not in the config file alone', async () => {
    const dir = project('merged-sources', files)
    const error = await configError({ cwd: dir })
    expect(error.message).toMatch(/^Invalid configuration in .*verify\.config\.mjs merged with the "verify" key of package\.json$/)
    expect(error.problems.join('\n')).toContain('checks.b.timeout')
  })

  it("--config names one file: the folder's package.json key and .verifyrc are not merged into it", async () => {
    const dir = project('config-alone', { ...files, '.verifyrc': 'checks.d=true\n' })
    const loaded = await load({ cwd: dir, configFile: join(dir, 'ci/strict.config.mjs') })
    expect(loaded.protocol.checks.map((c) => c.id)).toEqual(['c'])
  })
})

describe('a preset package linked by pnpm', () => {
  it('is resolved through its real path, so it can extend its own dependencies', async () => {
    const store = 'node_modules/.pnpm/@acme+preset@1.0.0/node_modules/@acme'
    const dir = project('pnpm', {
      'verify.config.mjs': `export default { extends: ['@acme/preset'], checks: { own: 'true' } }`,
      [`${store}/preset/package.json`]: JSON.stringify({ name: '@acme/preset', type: 'module', exports: './index.mjs' }),
      [`${store}/preset/index.mjs`]: `export default { extends: ['@acme/base'], checks: { preset: 'true' } }`,
      [`${store}/base/package.json`]: JSON.stringify({ name: '@acme/base', type: 'module', exports: './index.mjs' }),
      [`${store}/base/index.mjs`]: `export default { checks: { base: 'true' } }`,
    })
    mkdirSync(join(dir, 'node_modules/@acme'))
    symlinkSync(join(dir, store, 'preset'), join(dir, 'node_modules/@acme/preset'), 'dir')
    const loaded = await load({ cwd: dir })
    expect(loaded.protocol.checks.map((c) => c.id)).toEqual(['base', 'preset', 'own'])
    expect(loaded.layers.map((l) => l.label)).toEqual(['@acme/base', '@acme/preset', 'verify.config.mjs'])
    expect(loaded.layers[1]?.file).toBe(join(dir, store, 'preset/index.mjs'))
  })
})

describe('errors name the file, the chain and the place', () => {
  it('a syntax error in a preset keeps its line and column', async () => {
    const dir = project('syntax-preset', {
      'verify.config.ts': `export default { extends: ['./sub/p.ts'], checks: { a: 'true' } }`,
      'sub/p.ts': `export default {\n  checks: { b: 'x' \n}\n`,
    })
    const error = await configError({ cwd: dir })
    expect(error.message).toMatch(new RegExp(`^Could not load sub/p\\.ts \\(${join(dir, 'sub/p.ts')}\\): .+\\n {2}${join(dir, 'sub/p.ts')}:\\d+:\\d+$`))
    expect(error.message).not.toMatch(STACK_LINE)
    expect(error.problems).toEqual(['extended through: verify.config.ts → sub/p.ts'])
  })

  it("a syntax error in the project's own config names the file, not the folder", async () => {
    const dir = project('syntax-root', { 'verify.config.ts': `export default {\n  checks: { a: 'x' \n}\n` })
    const error = await configError({ cwd: dir })
    expect(error.code).toBe('E_CONFIG_LOAD')
    expect(error.message).toMatch(
      new RegExp(`^Could not load verify\\.config\\.ts \\(${join(dir, 'verify.config.ts')}\\): .+\\n {2}${join(dir, 'verify.config.ts')}:\\d+:\\d+$`),
    )
  })

  it('a preset whose default export is null or undefined says so, with the chain', async () => {
    const dir = project('null-export', {
      'verify.config.mjs': `export default { extends: ['./sub/null.mjs'], checks: { a: 'true' } }`,
      'sub/null.mjs': 'export default null\n',
    })
    const error = await configError({ cwd: dir })
    expect(error.message).toMatch(/^Could not load sub\/null\.mjs \(.*\): its default export is null: expected `export default defineProtocol/)
    expect(error.problems).toEqual(['extended through: verify.config.mjs → sub/null.mjs'])
    const other = project('undefined-export', {
      'verify.config.mjs': `export default { extends: ['./sub/none.mjs'], checks: { a: 'true' } }`,
      'sub/none.mjs': 'export default undefined\n',
    })
    const none = await configError({ cwd: other })
    expect(none.message).toMatch(
      /^Could not load sub\/none\.mjs \(.*\): it exports no config \(no default export, or an empty one\): expected `export default defineProtocol/,
    )
    expect(none.problems).toEqual(['extended through: verify.config.mjs → sub/none.mjs'])
  })

  it("a bad check id in a preset is reported with the preset's chain", async () => {
    const dir = project('bad-id-preset', {
      'verify.config.ts': `export default { extends: ['./sub/p.ts'], checks: { a: 'true' } }`,
      'sub/p.ts': `export default { checks: { 'Bad Id!': 'true' } }`,
    })
    expect((await configError({ cwd: dir })).problems).toEqual([
      'verify.config.ts → sub/p.ts: checks["Bad Id!"]: a check id is kebab-case or snake_case (e.g. "unit-tests")',
    ])
  })

  it('--config naming a folder says to give the file or use --cwd (exit 2)', async () => {
    const dir = project('config-folder', { 'verify.config.mjs': `export default { checks: { a: 'true' } }` })
    const error = await configError({ cwd: dir, configFile: '.' })
    expect(error.message).toBe(
      `The config file ${dir} is a folder: give the file (--config ${join(dir, 'verify.config.mjs')}), or use --cwd ${dir} to find the config in it`,
    )
    const result = await runCli(['list', '--config', '.'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/is a folder: give the file/)
    expect(result.stderr).not.toMatch(/Cannot find module/)
  })
})
