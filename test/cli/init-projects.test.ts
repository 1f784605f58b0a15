// `verify init` on projects shaped like the ones newcomers bring: a pnpm TypeScript library with Vitest whose test
// script chains lint and type tests, and a CommonJS package tested with mocha under nyc.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cli } from '../../src/cli/main.js'
import type { CliIO } from '../../src/cli/io.js'
import { tsconfigState } from '../../src/cli/init-tsconfig.js'
import { loadVerifyConfig } from '../../src/config/index.js'
import { BIN, fixture, ROOT } from '../helpers/cli.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function copy(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'verify-newcomer-')), name)
  dirs.push(join(dir, '..'))
  cpSync(fixture(name), dir, { recursive: true })
  // The config verify init writes imports verify-protocol: this package, as an install would provide it.
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules', 'verify-protocol'), 'dir')
  return dir
}

async function init(dir: string, args: string[] = [], env: Record<string, string> = {}, answers?: (string | null)[]) {
  let out = ''
  const io: CliIO = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (out += t),
    env: { ...process.env, ...env },
    cwd: dir,
    isTTY: answers !== undefined,
    ...(answers ? { prompt: async () => (answers.length ? (answers.shift() as string | null) : '') } : {}),
  }
  const code = await cli(['init', ...args], io)
  return { code, out }
}

describe('verify init on a pnpm + Vitest library', () => {
  it('leaves the steps of a composite test script that are other checks to those checks: nothing runs twice', async () => {
    const dir = copy('newcomer-pnpm-lib')
    const { code, out } = await init(dir, ['--yes'])
    expect(code, out).toBe(0)
    const { protocol } = await loadVerifyConfig({ cwd: dir, env: {} })
    const commands = Object.fromEntries(protocol.checks.map((c) => [c.id, c.command]))
    expect(commands).toEqual({
      build: 'pnpm run build',
      typecheck: 'pnpm run test:types',
      lint: 'pnpm run lint',
      test: 'pnpm exec vitest run',
    })
    expect(out).toContain("test       pnpm exec vitest run  (after build)  (its script's lint, test:types left to those checks)")
  })

  it('says how to get the package manager when it is not on PATH', async () => {
    const dir = copy('newcomer-pnpm-lib')
    const { out } = await init(dir, ['--yes'], { PATH: '/nonexistent' })
    expect(out).toMatch(/corepack enable pnpm\s+the checks run pnpm, which is not on PATH/)
    const withPnpm = mkdtempSync(join(tmpdir(), 'verify-pnpm-bin-'))
    dirs.push(withPnpm)
    writeFileSync(join(withPnpm, 'pnpm'), '#!/bin/sh\n', { mode: 0o755 })
    const again = await init(copy('newcomer-pnpm-lib'), ['--yes'], { PATH: withPnpm })
    expect(again.out).not.toContain('corepack')
  })

  it("points the header of the file it writes at documentation the user has: the installed package's docs", async () => {
    const dir = copy('newcomer-pnpm-lib')
    await init(dir, ['--yes'])
    const text = readFileSync(join(dir, 'verify.config.ts'), 'utf8')
    const doc = /node_modules\/verify-protocol\/(docs\/[\w.-]+\.md)/.exec(text)?.[1]
    expect(doc).toBe('docs/configuration.md')
    // The docs folder is in the published files, so the path exists once the package is installed.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }
    expect(pkg.files).toContain('docs')
    expect(readFileSync(join(ROOT, doc as string), 'utf8').length).toBeGreaterThan(0)
  })

  it('adds verify.config.ts to a tsconfig that leaves it out (--yes), keeping its comments, so dependsOn typos are type errors', async () => {
    const dir = copy('newcomer-pnpm-lib')
    expect(tsconfigState(dir, 'verify.config.ts').kind).toBe('left-out')
    const { out } = await init(dir, ['--yes'])
    expect(out).toContain('added verify.config.ts to tsconfig.json')
    const text = readFileSync(join(dir, 'tsconfig.json'), 'utf8')
    expect(text).toContain("// The library's sources only")
    expect(text).toMatch(/"include": \[\s*"src",\s*"verify\.config\.ts"\s*\]/)
    expect(tsconfigState(dir, 'verify.config.ts').kind).toBe('included')
  })

  it('asks before touching tsconfig.json at a terminal, and only suggests it when the answer is no', async () => {
    const dir = copy('newcomer-pnpm-lib')
    // Four checks, .gitignore, then the tsconfig question.
    const { out } = await init(dir, [], {}, ['y', 'y', 'y', 'y', 'y', 'n'])
    expect(out).toMatch(/add "verify\.config\.ts" to tsconfig\.json\s+so the compiler checks the protocol/)
    expect(tsconfigState(dir, 'verify.config.ts').kind).toBe('left-out')
  })

  it('Ctrl-C at a question is an interrupt: exit 130, one line, no config written', async () => {
    const dir = copy('newcomer-pnpm-lib')
    let out = ''
    const io: CliIO = {
      stdout: (t) => void (out += t),
      stderr: (t) => void (out += t),
      // At a terminal outside CI: the only place init asks.
      env: { ...process.env, CI: 'false' },
      cwd: dir,
      isTTY: true,
      // What node:readline's question() throws on Ctrl-C.
      prompt: async () => {
        throw Object.assign(new Error('Aborted with Ctrl+C'), { name: 'AbortError', code: 'ABORT_ERR' })
      },
    }
    expect(await cli(['init'], io)).toBe(130)
    expect(out).toContain('verify: interrupted (Ctrl-C) at a question: nothing more was done.\n')
    expect(out).not.toContain('unexpected error')
    expect(existsSync(join(dir, 'verify.config.ts'))).toBe(false)
  })

  it('at a real terminal, the questions are on stdout and stderr stays empty (the bin, under script(1))', async () => {
    const dir = copy('newcomer-pnpm-lib')
    const log = join(dir, 'ignored-stderr.log')
    const child = spawn('script', ['-qec', `"${process.execPath}" "${BIN}" init 2>"${log}"`, '/dev/null'], {
      cwd: dir,
      env: { ...process.env, CI: 'false' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    let answered = 0
    // Each answer once its question is on the terminal: readline reads no further ahead than one question.
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text
      const asked = out.split('(Y/n)').length - 1
      for (; answered < asked; answered++) child.stdin.write('n\n')
    })
    const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    clearTimeout(deadline)
    expect(code, out).toBe(0)
    expect(answered).toBeGreaterThan(0)
    expect(out).toMatch(/Add the "\w+" check .*\(Y\/n\)/)
    expect(readFileSync(log, 'utf8')).toBe('')
  })

  it('does not add the config where rootDir would then be wrong, and says why', async () => {
    const dir = copy('newcomer-pnpm-lib')
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { rootDir: 'src' }, include: ['src'] }))
    const { out } = await init(dir, ['--yes'])
    expect(out).toContain('note: verify.config.ts is not type-checked: tsconfig.json sets rootDir "src"')
    expect(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')).include).toEqual(['src'])
  })
})

describe('verify init on a CommonJS package with mocha under nyc', () => {
  it('writes lint and test with npm, and no tsconfig step', async () => {
    const dir = copy('newcomer-cjs-mocha')
    const { code, out } = await init(dir, ['--yes'])
    expect(code, out).toBe(0)
    const { protocol } = await loadVerifyConfig({ cwd: dir, env: {} })
    expect(protocol.checks.map((c) => [c.id, c.command])).toEqual([
      ['lint', 'npm run lint'],
      ['test', 'npm run test'],
    ])
    expect(out).not.toContain('tsconfig')
    expect(out).not.toContain('corepack')
  })
})
