// The package.json scripts a check's command runs, which its digest binds (SPEC §6.1: the check definition it ran
// under): npm, pnpm, yarn and bun's ways of running one, the scripts those run, and another folder's scripts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
    expect(scriptsRun('npm test', join(dir, 'nowhere'))).toBeUndefined()
  })
})
