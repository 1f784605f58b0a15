// Shared by the strict preset's tests: throwaway folders, git repositories, and calling a function check.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { CheckContext, FunctionCheckResult } from '../../src/types.js'

// Made by the first folder() of a test file, removed by its removeFolders(): test files share this module when they
// share a worker, so a folder made and removed at import would be gone for the next file.
let tmp: string | undefined

/** Removes the folders the file's tests made: each test file calls it after all its tests. */
export function removeFolders(): void {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
  tmp = undefined
}

let count = 0
export function folder(): string {
  tmp ??= mkdtempSync(join(tmpdir(), 'verify-strict-'))
  const dir = join(tmp, `d${count++}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

export function write(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true })
  writeFileSync(join(dir, path), content)
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
  GIT_CONFIG_GLOBAL: '/dev/null',
}
export const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' })

/** A repository whose `main` has one commit with a TODO that is not new. */
export function repository(): string {
  const dir = folder()
  git(dir, 'init', '-q', '-b', 'main')
  write(dir, 'src/a.ts', 'export const a = 1 // TODO: an old one, not new\nexport const b = 2\n')
  write(dir, 'src/gone.ts', '// FIXME: deleted with the file\n')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'base')
  return dir
}

export function context(cwd: string, env: Record<string, string> = {}): CheckContext {
  return { cwd, env, signal: new AbortController().signal, checkId: 'x', runId: 'r' }
}

export async function run(check: { run?: unknown }, ctx: CheckContext): Promise<FunctionCheckResult> {
  return (await (check.run as (c: CheckContext) => Promise<FunctionCheckResult>)(ctx)) as FunctionCheckResult
}
