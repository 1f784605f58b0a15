// The package.json scripts a check's command runs, which its digest binds (SPEC §6.1: the check definition it ran
// under): npm, pnpm, yarn and bun's ways of running one, the scripts those run, and another folder's scripts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { scriptsRun } from '../../src/config/scripts.js'

const dir = mkdtempSync(join(tmpdir(), 'verify-scripts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function packageJson(folder: string, scripts: Record<string, string>): void {
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'p', scripts }))
}

packageJson(dir, {
  pretest: 'node pre.js',
  test: 'npm run unit && pnpm lint',
  unit: 'vitest run',
  lint: 'eslint .',
  build: 'tsc -p .',
  postbuild: 'node post.js',
  start: 'node server.js',
  other: 'echo never',
})
packageJson(join(dir, 'app'), { test: 'jest', build: 'vite build' })

describe('scriptsRun', () => {
  it('follows npm test to the scripts it runs, with the pre and post scripts npm runs beside them', () => {
    expect(scriptsRun('npm test', dir)).toEqual({ pretest: 'node pre.js', test: 'npm run unit && pnpm lint', unit: 'vitest run', lint: 'eslint .' })
    expect(scriptsRun('npm run build --silent', dir)).toEqual({ build: 'tsc -p .', postbuild: 'node post.js' })
    expect(scriptsRun(['npm', 'start'], dir)).toEqual({ start: 'node server.js' })
  })

  it('reads every command of a shell line, after variable assignments and options', () => {
    expect(scriptsRun('CI=1 npm --silent run lint; yarn run build', dir)).toEqual({ lint: 'eslint .', build: 'tsc -p .', postbuild: 'node post.js' })
    expect(scriptsRun('pnpm lint&&bun run unit', dir)).toEqual({ lint: 'eslint .', unit: 'vitest run' })
  })

  it("names another folder's scripts with the folder: cd, --prefix, -C, --dir, --cwd", () => {
    const app = { 'app:test': 'jest' }
    expect(scriptsRun('cd app && npm test', dir)).toEqual(app)
    expect(scriptsRun('npm --prefix app test', dir)).toEqual(app)
    expect(scriptsRun('pnpm -C app test', dir)).toEqual(app)
    expect(scriptsRun('pnpm --dir=app run test', dir)).toEqual(app)
    expect(scriptsRun('yarn --cwd app build', dir)).toEqual({ 'app:build': 'vite build' })
  })

  it('is undefined for a command that runs no script: a tool, an unknown script, bun test, npx', () => {
    for (const command of ['vitest run', 'npm run nothing', 'bun test', 'npx vitest', 'npm install', ['true']]) expect(scriptsRun(command, dir)).toBeUndefined()
  })

  it('binds the nearest package.json at or above the folder, as the package managers find it', () => {
    mkdirSync(join(dir, 'nowhere'), { recursive: true })
    expect(scriptsRun('npm run lint', join(dir, 'nowhere'))).toEqual({ '..:lint': 'eslint .' })
  })

  it('sees through what only runs a command: env, time, corepack, npx, sh -c, a subshell, if, a newline', () => {
    const lint = { lint: 'eslint .' }
    for (const command of [
      'env CI=1 npm run lint',
      'env -i npm run lint',
      'time npm run lint',
      'corepack pnpm lint',
      'npx npm run lint',
      'npx -y npm run lint',
      'sh -c "npm run lint"',
      "bash -ec 'npm run lint'",
      '( npm run lint )',
      '! npm run lint',
      'if true; then npm run lint; fi',
      'echo start\nnpm run lint',
      'npm --loglevel silent run lint',
    ])
      expect(scriptsRun(command, dir), command).toEqual(lint)
    expect(scriptsRun(['sh', '-c', 'npm run lint'], dir)).toEqual(lint)
  })
})

describe('scriptsRun and what decides how scripts run', () => {
  it('a runner tool (npm-run-all, run-s, concurrently, turbo, nx, lerna, $npm_execpath) binds every script of the package', () => {
    const all = JSON.stringify(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts)
    for (const command of [
      'run-s lint test',
      'npm-run-all -p lint test',
      'concurrently "npm:lint" "npm:test"',
      'turbo run test',
      'nx run app:test',
      'lerna run test',
      '"$npm_execpath" run lint',
      'node --run test',
    ])
      expect(scriptsRun(command, dir)?.['./package.json#scripts'], command).toBe(all)
    // A script that runs one: the same.
    packageJson(join(dir, 'runner'), { ci: 'run-s lint test', lint: 'eslint .', test: 'vitest run' })
    expect(scriptsRun('npm run ci', join(dir, 'runner'))?.['./package.json#scripts']).toBeDefined()
  })

  it('binds the .npmrc beside the package (script-shell, node-options) and a workspace declaration', () => {
    const folder = join(dir, 'with-npmrc')
    packageJson(folder, { test: 'vitest run' })
    writeFileSync(join(folder, '.npmrc'), 'script-shell=true\n')
    expect(scriptsRun('npm test', folder)).toEqual({ test: 'vitest run', './.npmrc': 'script-shell=true\n' })
  })

  it('sees through timeout, nice -n, cross-env, dotenv --, pushd and an unspaced subshell', () => {
    for (const command of [
      'timeout 60 npm run lint',
      'nice -n 5 npm run lint',
      'cross-env CI=1 npm run lint',
      'dotenv -e .env -- npm run lint',
      '(npm run lint)',
      'npm --color false run lint',
    ])
      expect(scriptsRun(command, dir)?.lint, command).toBe('eslint .')
    expect(scriptsRun('npm restart', dir)).toMatchObject({ start: 'node server.js' })
  })
})

describe('scriptsRun in a workspace', () => {
  const root = join(dir, 'monorepo')
  packageJson(root, { test: 'echo root' })
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'root', workspaces: ['packages/*'], scripts: { test: 'echo root' } }))
  packageJson(join(root, 'packages', 'app'), { test: 'jest', build: 'tsc' })
  packageJson(join(root, 'packages', 'lib'), { test: 'vitest run' })
  const every = { test: 'echo root', 'packages/app:test': 'jest', 'packages/lib:test': 'vitest run' }

  it('binds the named script of every workspace package when the command picks packages (-w, --filter, workspace)', () => {
    for (const command of [
      'npm -w app test',
      'npm test --workspace=app',
      'npm run test --workspaces',
      'pnpm --filter app test',
      'pnpm -r test',
      'yarn workspace app test',
    ])
      expect(scriptsRun(command, root), command).toEqual(expect.objectContaining(every))
  })

  it('reads another folder named by --prefix, -C, --dir, --cwd or cd, after the script name too', () => {
    const app = { 'packages/app:test': 'jest', './package.json#workspaces': '["packages/*"]' }
    expect(scriptsRun('npm run test --prefix packages/app', root)).toEqual(app)
    expect(scriptsRun('cd packages/app\nnpm test', root)).toEqual(app)
  })

  it('in pnpm-workspace.yaml too', () => {
    const pnpmRoot = join(dir, 'pnpm-mono')
    packageJson(pnpmRoot, {})
    writeFileSync(join(pnpmRoot, 'pnpm-workspace.yaml'), "packages:\n  - 'apps/*'\n  # a comment\n  - tools/cli\n")
    packageJson(join(pnpmRoot, 'apps', 'web'), { build: 'vite build' })
    packageJson(join(pnpmRoot, 'tools', 'cli'), { build: 'tsc' })
    expect(scriptsRun('pnpm -F web build', pnpmRoot)).toEqual({
      'apps/web:build': 'vite build',
      'tools/cli:build': 'tsc',
      './pnpm-workspace.yaml': "packages:\n  - 'apps/*'\n  # a comment\n  - tools/cli\n",
    })
  })
})
