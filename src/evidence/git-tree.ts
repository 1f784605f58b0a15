// The working tree as git would commit it, read through a temporary index (the real one is never touched): files
// flagged assume-unchanged or skip-worktree by their real content, submodules by their own working trees.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { promisify } from 'node:util'
import { VerifyError } from '../errors.js'

const execFileAsync = promisify(execFile)

const SMALL_OUTPUT = 1024 * 1024
export const LARGE_OUTPUT = 256 * 1024 * 1024
const GITLINK = '160000'
const IGNORED_NAMED = /^The following paths are ignored by one of your \.gitignore files:$/m

export interface Repo {
  /** Absolute top of the work tree. */
  top: string
  /** rootDir relative to `top`, `''` or ending in `/`. */
  prefix: string
  /** Absolute path of the real index (it may not exist yet). */
  index: string
}

export interface WorkTree {
  /** The commit checked out, null before the first. */
  head: string | null
  /** The tree `git write-tree` gives for the working tree. */
  tree: string
  /** The tree differs from HEAD's (or there is no HEAD), here or in a submodule. */
  dirty: boolean
  /** Each checked-out submodule's working tree, by its path from the top (nested ones included). */
  submodules: Record<string, string>
}

interface IndexEntry {
  /** `git ls-files -v` tag: lower case when assume-unchanged, `S`/`s` when skip-worktree. */
  tag: string
  mode: string
  path: string
}

/** The repository rootDir belongs to, or null when git is missing, refuses, or the folder is ignored by it. */
export async function findRepo(rootDir: string): Promise<Repo | null> {
  let output: string
  try {
    output = await git(rootDir, ['rev-parse', '--show-toplevel', '--show-prefix', '--git-path', 'index'])
  } catch (error) {
    if (isGitUnavailable(error)) return null
    throw error
  }
  const [top = '', prefix = '', index = ''] = output.split('\n')
  if (!top || !index) return null
  // A project in a folder its enclosing repo ignores (say a home directory tracked with `*` in
  // .gitignore) is not that repo's work: git would never see its changes.
  if (prefix && (await isIgnored(rootDir))) return null
  return { top, prefix, index: path.resolve(rootDir, index) }
}

/** HEAD and its tree, or nulls when there is no commit yet. */
export async function headOf(top: string): Promise<{ head: string | null; tree: string | null }> {
  try {
    const [head = null, tree = null] = (await git(top, ['rev-parse', 'HEAD', 'HEAD^{tree}'])).split('\n')
    return { head, tree }
  } catch (error) {
    if (typeof (error as { code?: unknown }).code === 'number') return { head: null, tree: null } // no commits yet
    throw error
  }
}

/**
 * The working tree of `repo` as `git add -A` would record it, without the untracked paths in `leaveOut` (relative to
 * the top, `/`-separated): a tracked path is never left out.
 */
export async function workTree(repo: Repo, leaveOut: readonly string[]): Promise<WorkTree> {
  const dir = await mkdtemp(path.join(tmpdir(), 'verify-index-'))
  const env = { GIT_INDEX_FILE: path.join(dir, 'index') }
  try {
    const [head] = await Promise.all([headOf(repo.top), copyIndex(repo.index, env.GIT_INDEX_FILE)])
    const entries = await listIndex(repo.top, env)
    await clearFlags(repo.top, entries, env)
    const tracked = entries.filter((e) => leaveOut.some((out) => e.path === out || e.path.startsWith(`${out}/`))).map((e) => e.path)
    let stderr: string
    try {
      const excluded = leaveOut.map((out) => `:(exclude,literal)${out}`)
      stderr = await run(repo.top, ['add', '-A', '--', '.', ...excluded], env).then(
        (result) => result.stderr,
        (error: unknown) => {
          // Naming an ignored path, even to exclude it, makes git exit 1 after adding everything else.
          const message = String((error as { stderr?: unknown }).stderr ?? '')
          if ((error as { code?: unknown }).code === 1 && IGNORED_NAMED.test(message) && !/^(fatal|error):/m.test(message)) return message
          throw error
        },
      )
      // Leaving a folder out must not hide what git tracks inside it.
      if (tracked.length > 0) await run(repo.top, ['add', '-u', '--', ...tracked.map((file) => `:(literal)${file}`)], env)
    } catch (error) {
      throw addFailure(repo.top, error)
    }
    const tree = (await git(repo.top, ['write-tree'], { env })).trim()
    // Repositories inside this one: the submodules it knows, and those `git add -A` just met.
    const embedded = [...stderr.matchAll(/^warning: adding embedded git repository: (.*)$/gm)].map((m) => m[1] as string)
    const gitlinks = [...new Set([...entries.filter((e) => e.mode === GITLINK).map((e) => e.path), ...embedded])]
    const submodules: Record<string, string> = {}
    let dirty = tree !== head.tree
    for (const link of gitlinks.toSorted()) {
      const top = path.join(repo.top, link)
      if (!existsSync(path.join(top, '.git'))) continue // not checked out: the recorded commit is all there is
      const index = path.resolve(top, (await git(top, ['rev-parse', '--git-path', 'index'])).trim())
      const inner = leaveOut.filter((out) => out.startsWith(`${link}/`)).map((out) => out.slice(link.length + 1))
      const sub = await workTree({ top, prefix: '', index }, inner)
      submodules[link] = sub.tree
      for (const [nested, nestedTree] of Object.entries(sub.submodules)) submodules[`${link}/${nested}`] = nestedTree
      dirty ||= sub.dirty
    }
    return { head: head.head, tree, dirty, submodules }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

async function listIndex(top: string, env: Record<string, string>): Promise<IndexEntry[]> {
  const output = await git(top, ['ls-files', '-v', '-s', '-z'], { env, maxBuffer: LARGE_OUTPUT })
  const entries: IndexEntry[] = []
  // Each entry: `<tag> <mode> <object> <stage>\t<path>`.
  for (const line of output.split('\0')) {
    const tab = line.indexOf('\t')
    if (tab < 0) continue
    const [tag = '', mode = ''] = line.slice(0, tab).split(' ')
    entries.push({ tag, mode, path: line.slice(tab + 1) })
  }
  return entries
}

/**
 * Flags that make git skip a file (assume-unchanged, skip-worktree) would hide its edits: they are cleared in the
 * temporary index. In a sparse checkout a skip-worktree file that is absent lies outside the cone: it keeps its flag,
 * so it counts as recorded rather than as deleted.
 */
async function clearFlags(top: string, entries: readonly IndexEntry[], env: Record<string, string>): Promise<void> {
  const assumed = entries.filter((e) => e.tag !== e.tag.toUpperCase()).map((e) => e.path)
  let skipped = entries.filter((e) => e.tag.toUpperCase() === 'S').map((e) => e.path)
  if (skipped.length > 0 && (await sparseCheckout(top))) skipped = skipped.filter((file) => existsSync(path.join(top, file)))
  // update-index applies one of these flags per call.
  for (const [flag, files] of [['--no-assume-unchanged', assumed], ['--no-skip-worktree', skipped]] as const) {
    if (files.length > 0) await git(top, ['update-index', flag, '-z', '--stdin'], { env, input: `${files.join('\0')}\0` })
  }
}

async function sparseCheckout(top: string): Promise<boolean> {
  try {
    return (await git(top, ['config', '--bool', 'core.sparseCheckout'])).trim() === 'true'
  } catch {
    return false // unset
  }
}

function addFailure(top: string, error: unknown): VerifyError {
  const stderr = String((error as { stderr?: unknown }).stderr ?? '')
  const unborn = /^error: '(.*?)\/?' does not have a commit checked out$/m.exec(stderr)
  if (unborn) {
    return new VerifyError(
      'E_WORKSPACE',
      `Cannot fingerprint the workspace: ${unborn[1]} (in ${top}) is a git repository without commits, and git cannot record it as part of the code. Commit something in it, remove it, or add it to .gitignore.`,
      { cause: error },
    )
  }
  return new VerifyError('E_WORKSPACE', `Cannot fingerprint the workspace: \`git add -A\` into a temporary index failed in ${top}: ${gitMessage(error)}`, {
    cause: error,
  })
}

// The copy keeps git's stat cache, so `git add -A` rehashes only files changed since git last looked.
async function copyIndex(from: string, to: string): Promise<void> {
  let mtimeNs: bigint
  try {
    mtimeNs = (await stat(from, { bigint: true })).mtimeNs
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return // a fresh repo has no index yet
    throw error
  }
  await copyFile(from, to)
  // Git treats entries not older than the index file as "racily clean" and rereads them; keeping the
  // original mtime (rounded down, never later) keeps that protection intact.
  const seconds = Number(mtimeNs / 1000n - 1n) / 1e6
  await utimes(to, seconds, seconds)
}

async function isIgnored(rootDir: string): Promise<boolean> {
  try {
    await git(rootDir, ['check-ignore', '-q', '--', '.'])
    return true
  } catch {
    return false
  }
}

interface GitOptions {
  env?: Record<string, string>
  maxBuffer?: number
  input?: string
}

/** Runs git in `cwd` with an environment no hook or caller can redirect; resolves to its stdout. */
export async function git(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  return (await run(cwd, args, options.env, options)).stdout
}

async function run(cwd: string, args: string[], extraEnv: Record<string, string> = {}, options: GitOptions = {}): Promise<{ stdout: string; stderr: string }> {
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
function isGitUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return code === 'ENOENT' || typeof code === 'number'
}

function gitMessage(error: unknown): string {
  const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim()
  const lines = stderr.split('\n')
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? (error as Error).message
}
