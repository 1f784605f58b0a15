// How verify starts git: an environment no hook or caller can redirect, bounded output, and the settings under which
// `git add` hashes every file's real bytes. Shared by the working-tree reader (git-tree.ts) and the fingerprint.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import * as path from 'node:path'
import { promisify } from 'node:util'

const execFileAsync = promisify(execFile)

const SMALL_OUTPUT = 1024 * 1024
export const LARGE_OUTPUT = 256 * 1024 * 1024

export interface GitOptions {
  env?: Record<string, string>
  maxBuffer?: number
  input?: string
}

/**
 * `git -c …` settings, above every config file, under which git reads each file as its bytes: no fsmonitor (it could
 * report an edited file as unchanged), a full stat check (with no ctime, only size and mtime, or nothing at all, a
 * rewrite of the same size with its old mtime put back would pass for the file it was), no line-ending conversion,
 * names compared case by case, the executable bit and symbolic links as they are, no untracked cache, and no file
 * skipped because it could not be read. The attributes that convert content (`text`, `eol`, `ident`, `filter`,
 * `working-tree-encoding`) are unset by the git directory of git-view.ts.
 */
export const RAW_CONTENT = [
  'core.fsmonitor=false',
  'core.trustctime=true',
  'core.checkStat=default',
  'core.ignoreStat=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.ignorecase=false',
  'core.fileMode=true',
  'core.symlinks=true',
  'core.untrackedCache=false',
  'core.splitIndex=false',
  'add.ignoreErrors=false',
].flatMap((setting) => ['-c', setting])

// The repository's settings that verify's own git directory (git-view.ts) keeps: the format and the promisor remote
// of a partial clone (whose blobs outside a sparse cone are absent), shared permissions, a repository's own excludes
// file, and what says that git converts files' bytes.
const KEPT =
  /^(?:extensions\.(?!refstorage$).+|core\.(?:sharedrepository|excludesfile|autocrlf|eol|attributesfile)|remote\..+\.(?:promisor|partialclonefilter))$/

/** The repository's settings that its work tree is read with (KEPT), as `[key, value]`; [] when git says none. */
export async function repoSettings(cwd: string): Promise<[string, string][]> {
  const listed = await run(cwd, ['config', '-z', '--get-regexp', '^(extensions|core|remote)\\.']).then(
    (result) => result.stdout,
    () => '', // none set, or no repository: findRepo says which
  )
  return listed
    .split('\0')
    .map((entry): [string, string] => {
      const newline = entry.indexOf('\n')
      return newline < 0 ? [entry, ''] : [entry.slice(0, newline), entry.slice(newline + 1)]
    })
    .filter(([key]) => KEPT.test(key))
}

/** Runs git in `cwd` with an environment no hook or caller can redirect; resolves to its stdout. */
export async function git(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  return (await run(cwd, args, options.env, options)).stdout
}

export async function run(
  cwd: string,
  args: string[],
  extraEnv: Record<string, string> = {},
  options: GitOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  // Inherited from a git hook these would point git at another repository or index.
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX']) delete env[name]
  Object.assign(env, { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }, extraEnv)
  const child = execFileAsync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: options.maxBuffer ?? SMALL_OUTPUT,
    windowsHide: true,
  })
  if (options.input !== undefined) child.child.stdin?.end(options.input)
  return child
}

/** The folder at or above `dir` that holds a `.git` (a folder, or a worktree's file), or null. */
export function enclosingRepo(dir: string): string | null {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, '.git'))) return at
    if (path.dirname(at) === at) return null
  }
}

// Git not installed (ENOENT) or it refused (not a repository, unsafe owner): fingerprint without git.
export function isGitUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return code === 'ENOENT' || typeof code === 'number'
}

export function gitMessage(error: unknown): string {
  const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim()
  const lines = stderr.split('\n')
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? (error as Error).message
}
