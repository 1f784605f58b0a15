// The presets shipped in the package: node (scripts + package manager), typescript (tsc --noEmit), strict.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resolveProtocol } from '../../src/config/resolve.js'
import node from '../../src/presets/node.js'
import { detectPackageManager, execBin } from '../../src/presets/project.js'
import strict, { strictPreset } from '../../src/presets/strict.js'
import typescript from '../../src/presets/typescript.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-presets-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

let count = 0
function project(files: Record<string, string>): string {
  const dir = join(tmp, `p${count++}`)
  mkdirSync(dir, { recursive: true })
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}

const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) => JSON.stringify({ name: 'p', scripts, ...extra })

describe('detectPackageManager', () => {
  it.each([
    ['pnpm-lock.yaml', 'pnpm'],
    ['yarn.lock', 'yarn'],
    ['bun.lock', 'bun'],
    ['bun.lockb', 'bun'],
    ['package-lock.json', 'npm'],
    ['npm-shrinkwrap.json', 'npm'],
  ])('%s → %s', (lockfile, name) => {
    const dir = project({ 'package.json': pkg({}), [lockfile]: '' })
    expect(detectPackageManager(dir)).toEqual({ name, from: join(dir, lockfile) })
  })

  it("package.json's packageManager field wins over a lockfile", () => {
    const dir = project({ 'package.json': pkg({}), 'package-lock.json': '' })
    expect(detectPackageManager(dir, { packageManager: 'pnpm@9.12.0' }).name).toBe('pnpm')
  })

  it("a workspace package uses the lockfile at the workspace's root", () => {
    const root = project({ 'pnpm-lock.yaml': '', 'packages/app/package.json': pkg({}) })
    expect(detectPackageManager(join(root, 'packages', 'app')).name).toBe('pnpm')
  })

  it('npm when nothing says otherwise', () => {
    // tmpdir() has no lockfile above it on these machines; the answer says why it chose npm.
    const dir = project({ 'package.json': pkg({}) })
    const found = detectPackageManager(dir)
    expect(found.name).toBe('npm')
  })

  it('runs binaries through the package manager without downloading them', () => {
    expect(execBin('npm', 'tsc', ['--noEmit'])).toEqual(['npm', 'exec', '--no', '--', 'tsc', '--noEmit'])
    expect(execBin('pnpm', 'tsc', [])).toEqual(['pnpm', 'exec', 'tsc'])
    expect(execBin('yarn', 'tsc', [])).toEqual(['yarn', 'run', 'tsc'])
    expect(execBin('bun', 'tsc', [])).toEqual(['bun', 'run', 'tsc'])
  })
})

describe('the node preset', () => {
  it('has a check for each script that exists, run with the detected package manager', () => {
    const dir = project({ 'package.json': pkg({ build: 'tsc', 'type-check': 'tsc --noEmit', test: 'vitest run', dev: 'vite' }), 'pnpm-lock.yaml': '' })
    expect(node({ rootDir: dir })).toEqual({
      checks: {
        build: { name: 'Build', evidenceType: 'build_success', command: 'pnpm run build' },
        typecheck: { name: 'Typecheck', evidenceType: 'typecheck_clean', command: 'pnpm run type-check' },
        test: { name: 'Tests', evidenceType: 'test_pass', command: 'pnpm run test', dependsOn: ['build'] },
      },
    })
  })

  it("skips npm init's placeholder test script; tests do not wait for a build that does not exist", () => {
    const dir = project({ 'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1', lint: 'eslint .' }) })
    expect(node({ rootDir: dir }).checks).toEqual({ lint: { name: 'Lint', evidenceType: 'lint_clean', command: 'npm run lint' } })
    const tests = project({ 'package.json': pkg({ test: 'vitest' }) })
    expect(node({ rootDir: tests }).checks.test?.dependsOn).toBeUndefined()
  })

  it('throws without a package.json (the loader turns it into a config error naming the preset)', () => {
    expect(() => node({ rootDir: project({}) })).toThrow(/no package\.json/)
  })

  it('resolves into a valid protocol', () => {
    const dir = project({ 'package.json': pkg({ build: 'x', lint: 'y', test: 'z' }), 'bun.lock': '' })
    const protocol = resolveProtocol(node({ rootDir: dir }), { rootDir: dir })
    expect(protocol.checks.map((c) => [c.id, c.command])).toEqual([
      ['build', 'bun run build'],
      ['lint', 'bun run lint'],
      ['test', 'bun run test'],
    ])
  })
})

describe('the typescript preset', () => {
  it("runs tsc --noEmit with the project's tsconfig through its package manager", () => {
    const dir = project({ 'package.json': pkg({}), 'package-lock.json': '', 'tsconfig.json': '{}', 'tsconfig.app.json': '{}' })
    expect(typescript({ rootDir: dir }).checks.typecheck).toEqual({
      name: 'Typecheck',
      evidenceType: 'typecheck_clean',
      command: ['npm', 'exec', '--no', '--', 'tsc', '--noEmit', '-p', 'tsconfig.json'],
    })
    expect(typescript({ rootDir: dir, tsconfig: 'tsconfig.app.json' }).checks.typecheck.command).toContain('tsconfig.app.json')
  })

  it('throws when the tsconfig is missing', () => {
    expect(() => typescript({ rootDir: project({ 'package.json': pkg({}) }) })).toThrow(/no tsconfig\.json/)
  })
})

describe('the strict preset', () => {
  it('turns strictMode on and adds todo and error-free, error-free after every other required check', () => {
    expect(strict.strictMode).toBe(true)
    expect(Object.keys(strict.checks)).toEqual(['todo', 'error-free'])
    const protocol = resolveProtocol({ ...strict, checks: { build: 'x', ...strict.checks } }, { rootDir: tmp })
    expect(protocol.checks.map((c) => [c.id, c.evidenceType, c.kind, c.dependsOn])).toEqual([
      ['build', 'build_success', 'command', []],
      ['todo', 'todo_complete', 'function', []],
      ['error-free', 'error_free', 'function', ['build', 'todo']],
    ])
  })

  it('takes options for its checks', () => {
    expect(strictPreset({ todo: { markers: ['HACK'] } }).checks.todo.name).toBe('No new HACK markers')
  })
})
