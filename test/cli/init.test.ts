// `verify init [--yes] [--force]`: a verify.config.ts from package.json scripts and the lockfile, `.verify/` ignored,
// never an overwrite without --force, questions only at an interactive terminal.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { initCommand } from '../../src/cli/init.js'
import type { CliIO } from '../../src/cli/io.js'
import { formatError } from '../../src/cli/main.js'
import { VerifyUsageError } from '../../src/errors.js'
import { cleanup, diagnose, ROOT, runCli } from '../helpers/cli.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-init-'))
afterAll(async () => {
  await cleanup()
  rmSync(tmp, { recursive: true, force: true })
})

let count = 0
function project(files: Record<string, string>): string {
  const dir = join(tmp, `p${count++}`)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  mkdirSync(dir, { recursive: true })
  return dir
}

const SCRIPTS = { build: 'tsc -p tsconfig.build.json', typecheck: 'tsc --noEmit', lint: 'oxlint', test: 'vitest run', dev: 'vite' }
const pkg = (scripts: Record<string, string> = SCRIPTS, extra: Record<string, unknown> = {}) => JSON.stringify({ name: 'app', scripts, ...extra })

interface Io extends CliIO {
  out: string
  questions: string[]
}

function io(cwd: string, options: { tty?: boolean; answers?: string[]; env?: NodeJS.ProcessEnv } = {}): Io {
  const answers = [...(options.answers ?? [])]
  const result: Io = {
    out: '',
    questions: [],
    stdout: (text) => void (result.out += text),
    stderr: (text) => void (result.out += text),
    env: options.env ?? {},
    cwd,
    isTTY: options.tty ?? false,
  }
  if (options.answers) {
    result.prompt = async (question) => {
      result.questions.push(question)
      return answers.shift() ?? ''
    }
  }
  return result
}

async function usageError(run: Promise<number>): Promise<VerifyUsageError> {
  try {
    await run
  } catch (error) {
    expect(error).toBeInstanceOf(VerifyUsageError)
    return error as VerifyUsageError
  }
  throw new Error('expected a usage error')
}

const config = (dir: string) => readFileSync(join(dir, 'verify.config.ts'), 'utf8')

describe('what verify init writes', () => {
  it('spells out a check per script, run with the package manager of the lockfile', async () => {
    const dir = project({ 'package.json': pkg(), 'pnpm-lock.yaml': '' })
    const console = io(dir)
    expect(await initCommand([], console)).toBe(0)
    const text = config(dir)
    expect(text).toContain(`import { defineProtocol } from 'verify-protocol'`)
    expect(text).toContain(`    build: { name: 'Build', command: 'pnpm run build' },`)
    expect(text).toContain(`    typecheck: { name: 'Typecheck', evidenceType: 'typecheck_clean', command: 'pnpm run typecheck' },`)
    expect(text).toContain(`    lint: { name: 'Lint', command: 'pnpm run lint' },`)
    expect(text).toContain(`    test: { name: 'Tests', command: 'pnpm run test', dependsOn: ['build'] },`)
    expect(text).not.toContain('dev')
    expect(text).toMatch(/run with pnpm, pnpm-lock\.yaml/)
  })

  it('prints what it did and what to run next', async () => {
    const dir = project({ 'package.json': pkg(), 'package-lock.json': '' })
    const console = io(dir)
    await initCommand([], console)
    expect(console.out).toMatch(/^wrote verify\.config\.ts: 4 check\(s\) from package\.json scripts, run with npm \(package-lock\.json\)/)
    expect(console.out).toMatch(/^ {2}test +npm run test {2}\(after build\)$/m)
    expect(console.out).toContain('created .gitignore with .verify/')
    expect(console.out).toMatch(/Next:\n {2}npm install -D verify-protocol +the config imports verify-protocol/)
    expect(console.out).toMatch(/npx verify list/)
    expect(console.out).toMatch(/npx verify +run it/)
  })

  it('the config it writes loads and resolves to those checks', async () => {
    const dir = project({ 'package.json': pkg({ build: 'x', test: 'y' }, { devDependencies: { 'verify-protocol': '*' } }), 'yarn.lock': '' })
    mkdirSync(join(dir, 'node_modules'))
    symlinkSync(ROOT, join(dir, 'node_modules', 'verify-protocol'), 'dir')
    const console = io(dir)
    await initCommand([], console)
    expect(console.out).not.toContain('install')
    const result = await runCli(['list', '--json'], { cwd: dir })
    expect(result.code, diagnose(result)).toBe(0)
    const listed = JSON.parse(result.stdout) as { protocols: { checks: { id: string; command: string; dependsOn: string[] }[] }[] }
    expect(listed.protocols[0]?.checks.map((c) => [c.id, c.command, c.dependsOn])).toEqual([
      ['build', 'yarn run build', []],
      ['test', 'yarn run test', ['build']],
    ])
  })

  it("npm's placeholder test script is no test suite: no test check", async () => {
    const dir = project({ 'package.json': pkg({ build: 'tsc', test: 'echo "Error: no test specified" && exit 1' }) })
    await initCommand([], io(dir))
    expect(config(dir)).toContain(`build: { name: 'Build', command: 'npm run build' },`)
    expect(config(dir)).not.toContain('test:')
  })

  it('the example in a config without checks uses the detected package manager', async () => {
    const dir = project({ 'package.json': pkg({ start: 'node .', test: 'echo "Error: no test specified" && exit 1' }), 'yarn.lock': '' })
    await initCommand([], io(dir))
    expect(config(dir)).toContain(`    // build: { name: 'Build', command: 'yarn run build' },`)
    expect(config(dir)).not.toContain('npm run')
  })

  it('without matching scripts it writes a config with no checks and says to add some', async () => {
    const dir = project({ 'package.json': pkg({ start: 'node .' }) })
    const console = io(dir)
    await initCommand([], console)
    expect(config(dir)).toContain('// No build, typecheck, lint or test script was found.')
    expect(console.out).toContain('no checks: package.json has no build, typecheck, lint or test script')
    expect(console.out).toContain('add at least one check')
  })
})

describe('.gitignore', () => {
  it('appends .verify/ (adding the missing newline), once', async () => {
    const dir = project({ 'package.json': pkg(), '.gitignore': 'node_modules/\ndist' })
    await initCommand([], io(dir))
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\ndist\n.verify/\n')
    await initCommand(['--force'], io(dir))
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\ndist\n.verify/\n')
  })

  it.each(['.verify', '/.verify/', '.verify/', '.verify/*', '.verify/**', '/.verify/**', '**/.verify/'])(
    'leaves a .gitignore that already has %s alone',
    async (entry) => {
      const dir = project({ 'package.json': pkg(), '.gitignore': `${entry}\n` })
      const console = io(dir)
      await initCommand([], console)
      expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe(`${entry}\n`)
      expect(console.out).toContain('.gitignore already ignores .verify/')
    },
  )

  it('an entry that a later `!.verify/` undoes does not count: .verify/ is added again, last', async () => {
    const dir = project({ 'package.json': pkg(), '.gitignore': '.verify/\n!.verify/\n' })
    const console = io(dir)
    await initCommand([], console)
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('.verify/\n!.verify/\n.verify/\n')
    expect(console.out).toContain('added .verify/ to .gitignore')
  })
})

describe('an existing config', () => {
  it.each([
    'verify.config.ts',
    'verify.config.mjs',
    'verify.config.json',
    'verify.config.jsonc',
    'verify.config.json5',
    'verify.config.yaml',
    'verify.config.yml',
    'verify.config.toml',
    '.config/verify.ts',
    '.config/verify.config.mjs',
    '.verifyrc',
  ])('%s (c12 loads it) is never overwritten nor hidden without --force (exit 2)', async (name) => {
    const dir = project({ 'package.json': pkg(), [name]: 'original' })
    const error = await usageError(initCommand([], io(dir)))
    expect(error.message).toContain(name)
    expect(error.message).toContain('--force')
    expect(readFileSync(join(dir, name), 'utf8')).toBe('original')
    expect(existsSync(join(dir, '.gitignore'))).toBe(false)
    expect(formatError(error)).toMatch(/^verify: A verify config already exists/)
  })

  it('the "verify" key of package.json counts as a config', async () => {
    const dir = project({ 'package.json': pkg(SCRIPTS, { verify: { checks: { a: 'x' } } }) })
    const message = (await usageError(initCommand([], io(dir)))).message
    expect(message).toContain('the "verify" key of package.json')
    // --force would leave it, and c12 merge it into the new file: the advice says to remove it.
    expect(message).toContain('to start again, remove the "verify" key of package.json first (--force replaces config files only')
  })

  it('--force replaces it, and moves aside another verify.config.* that would take precedence: kept as .bak, never lost', async () => {
    const dir = project({ 'package.json': pkg(), 'verify.config.ts': 'old', 'verify.config.js': 'old js', 'verify.config.js.bak': 'older' })
    const console = io(dir)
    await initCommand(['--force'], console)
    expect(config(dir)).toContain('defineProtocol')
    expect(existsSync(join(dir, 'verify.config.js'))).toBe(false)
    expect(console.out).toMatch(/^replaced verify\.config\.ts/)
    expect(console.out).toContain('moved verify.config.js to verify.config.js.bak.2 (--force)')
    expect(readFileSync(join(dir, 'verify.config.js.bak.2'), 'utf8')).toBe('old js')
    expect(readFileSync(join(dir, 'verify.config.js.bak'), 'utf8')).toBe('older')
    expect(readFileSync(join(dir, 'verify.config.ts.bak'), 'utf8')).toBe('old')
  })

  it('--force moves aside a config c12 would load before verify.config.ts, in .config/ too', async () => {
    const dir = project({ 'package.json': pkg(), 'verify.config.yaml': 'checks: {}', '.config/verify.ts': 'old' })
    const console = io(dir)
    await initCommand(['--force'], console)
    expect(existsSync(join(dir, 'verify.config.yaml'))).toBe(false)
    expect(existsSync(join(dir, '.config/verify.ts'))).toBe(false)
    expect(console.out).toContain('moved .config/verify.ts to .config/verify.ts.bak (--force)')
    expect(readFileSync(join(dir, '.config/verify.ts.bak'), 'utf8')).toBe('old')
  })

  it('no package.json is a usage error that says what to do', async () => {
    const error = await usageError(initCommand([], io(project({}))))
    expect(error.message).toMatch(/No package\.json .*docs\/configuration\.md/)
  })
})

describe('questions', () => {
  it('asks about each check and .gitignore at an interactive terminal', async () => {
    const dir = project({ 'package.json': pkg() })
    const console = io(dir, { tty: true, answers: ['', 'n', 'y', 'Y', 'no'] })
    await initCommand([], console)
    expect(console.questions).toEqual([
      'Add the "build" check (npm run build)? (Y/n) ',
      'Add the "typecheck" check (npm run typecheck)? (Y/n) ',
      'Add the "lint" check (npm run lint)? (Y/n) ',
      'Add the "test" check (npm run test)? (Y/n) ',
      'Add .verify/ to .gitignore? (Y/n) ',
    ])
    expect(config(dir)).not.toContain('typecheck:')
    expect(config(dir)).toContain('lint:')
    expect(existsSync(join(dir, '.gitignore'))).toBe(false)
  })

  it.each([
    ['--yes', { tty: true }, ['--yes']],
    ['CI', { tty: true, env: { CI: 'true' } }, []],
    ['stdout not a TTY', { tty: false }, []],
  ] as const)('asks nothing with %s', async (_, options, args) => {
    const dir = project({ 'package.json': pkg() })
    const console = io(dir, { ...options, answers: ['n', 'n', 'n', 'n', 'n'] })
    await initCommand([...args], console)
    expect(console.questions).toEqual([])
    expect(config(dir)).toContain('typecheck:')
  })

  it('the built CLI without a terminal takes the defaults', async () => {
    const dir = project({ 'package.json': pkg({ test: 'vitest' }) })
    const result = await runCli(['init'], { cwd: dir })
    expect(result.code, diagnose(result)).toBe(0)
    expect(config(dir)).toContain(`test: { name: 'Tests', command: 'npm run test' },`)
    const again = await runCli(['init'], { cwd: dir })
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/^verify: A verify config already exists .*verify\.config\.ts.*--force/)
  })

  it.each([
    ['an `include` that is not a list', { 'tsconfig.json': '{ "include": "src" }' }],
    ['a `files` that is not a list', { 'tsconfig.json': '{ "files": "src/index.ts" }' }],
  ])('a tsconfig.json with %s is left as it is, with a note', async (_what, files) => {
    const dir = project({ 'package.json': pkg(), ...files })
    const run = io(dir)
    expect(await initCommand(['--yes'], run)).toBe(0)
    expect(run.out).toContain('note: verify.config.ts is not type-checked')
    expect(readFileSync(join(dir, 'tsconfig.json'), 'utf8')).toBe(files['tsconfig.json'])
  })

  it('a folder where .gitignore or the config goes is a usage error before any file is written', async () => {
    for (const blocked of ['.gitignore', 'verify.config.ts']) {
      const dir = project({ 'package.json': pkg() })
      mkdirSync(join(dir, blocked))
      const error = await usageError(initCommand(['--yes'], io(dir)))
      expect(error.message).toContain(`${blocked} is a folder`)
      expect(existsSync(join(dir, blocked === '.gitignore' ? 'verify.config.ts' : '.gitignore'))).toBe(false)
    }
  })
})
