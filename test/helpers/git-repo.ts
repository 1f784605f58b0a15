// A git repository to fingerprint, made in a temporary folder with git's identity and config taken from here, never
// from the user's global config. Shared by the fingerprint and index tests; `removeTemporaryDirs` goes in an afterEach.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { workspaceFingerprint } from '../../src/evidence/fingerprint.js'

const temporaryDirs: string[] = []

export function removeTemporaryDirs(): void {
  for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'verify-fingerprint-'))
  temporaryDirs.push(dir)
  return dir
}

export const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: process.platform === 'win32' ? 'NUL' : '/dev/null',
  GIT_OPTIONAL_LOCKS: '0',
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' })
}

export function write(root: string, file: string, content: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true })
  writeFileSync(join(root, file), content)
}

/** A repo with one commit of `files`. */
export function repo(files: Record<string, string> = { 'src/a.ts': 'export const a = 1\n', 'docs/x.md': '# x\n' }): string {
  const root = temporaryDir()
  git(root, 'init', '-q', '-b', 'main')
  for (const [file, content] of Object.entries(files)) write(root, file, content)
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'initial')
  return root
}

export async function fingerprint(root: string): Promise<string> {
  return (await workspaceFingerprint(root)).fingerprint
}
