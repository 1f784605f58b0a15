// How verify starts git: an environment no hook or caller can redirect, bounded output, and the settings under which
// `git add` hashes every file's real bytes. Shared by the working-tree reader (git-tree.ts) and the fingerprint.
import { execFile } from 'node:child_process'
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
 * `git -c …` settings under which `git add` hashes every file's real bytes: the repository's own clean filters (a
 * `filter=` attribute whose driver `.git/config` defines) could otherwise hash anything at all in place of the file,
 * an fsmonitor could report an edited file as unchanged, and a stat cache told to look at less (no ctime, only the
 * size and mtime, or nothing at all) would take a rewrite of the same size with its old mtime put back for the file
 * it was.
 */
export async function rawContentConfig(cwd: string): Promise<string[]> {
  const args = ['-c', 'core.fsmonitor=false', '-c', 'core.trustctime=true', '-c', 'core.checkStat=default', '-c', 'core.ignoreStat=false']
  // Never rejects: git missing or no repository is findRepo's to report.
  const listed = await run(cwd, ['config', '--get-regexp', '^filter\\.']).then(
    (result) => result.stdout,
    () => '', // exit 1: no filter configured
  )
  const names = new Set([...listed.matchAll(/^filter\.(.+)\.(?:clean|smudge|process|required)\s/gm)].map((m) => m[1] as string))
  for (const name of names) args.push('-c', `filter.${name}.clean=cat`, '-c', `filter.${name}.process=`, '-c', `filter.${name}.required=false`)
  return args
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
