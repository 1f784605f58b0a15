import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, lstatSync, readFileSync, readlinkSync } from 'node:fs'
import { copyFile, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { promisify } from 'node:util'
import picomatch from 'picomatch'
import type { WorkspaceInfo } from '../types.js'
import { canonicalJson, sha256 } from './canonical.js'

const execFileAsync = promisify(execFile)

const SMALL_OUTPUT = 1024 * 1024
const LARGE_OUTPUT = 256 * 1024 * 1024
/** Folders never part of a fingerprint outside git. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.verify'])
/** Longest stretch of synchronous file reading before yielding to the event loop. */
const SLICE_MS = 10
const WHOLE_READ_LIMIT = 8 * 1024 * 1024
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

interface Repo {
  /** Absolute top of the work tree. */
  top: string
  /** rootDir relative to `top`, `''` or ending in `/`. */
  prefix: string
  /** Absolute path of the real index (it may not exist yet). */
  index: string
}

/**
 * Fingerprint of the working tree as `git add -A` would commit it (untracked, non-ignored files
 * included) plus HEAD, computed in a temporary index so the real one is never touched.
 * Outside git: a hash of every file under `rootDir` except `node_modules`, `.git` and `.verify`.
 */
export async function workspaceFingerprint(rootDir: string): Promise<WorkspaceInfo> {
  const repo = await findRepo(rootDir)
  if (!repo) return { fingerprint: await hashFiles(rootDir, () => true, 'workspace\n'), git: null }
  const [head, headTree, tree] = await Promise.all([
    revision(repo.top, 'HEAD'),
    revision(repo.top, 'HEAD^{tree}'),
    workingTree(repo),
  ])
  return {
    fingerprint: sha256(canonicalJson({ head, tree })),
    git: { head, tree, dirty: tree !== headTree },
  }
}

/**
 * Fingerprint of only the files under `rootDir` matching `inputs` (globs relative to `rootDir`,
 * `!pattern` excludes). In git it reads the tree `workspace` already recorded, so it costs one `git ls-tree`.
 */
export async function inputsFingerprint(rootDir: string, inputs: string[], workspace: WorkspaceInfo): Promise<string> {
  const matches = inputMatcher(inputs)
  const header = `inputs\n${canonicalJson(inputs)}\n`
  if (!workspace.git) return hashFiles(rootDir, matches, header)

  const [prefix, listing] = await Promise.all([
    showPrefix(rootDir),
    git(rootDir, ['ls-tree', '-r', '--full-tree', '-z', workspace.git.tree], { maxBuffer: LARGE_OUTPUT }),
  ])
  const hash = createHash('sha256').update(header)
  // Each entry: `<mode> <type> <object>\t<path>`.
  for (const entry of listing.split('\0')) {
    const tab = entry.indexOf('\t')
    const file = entry.slice(tab + 1)
    if (tab < 0 || !file.startsWith(prefix)) continue
    const relative = file.slice(prefix.length)
    if (!matches(relative)) continue
    const [mode, , object] = entry.slice(0, tab).split(' ')
    hash.update(`${relative}\0${mode}\0${object}\n`)
  }
  return `sha256:${hash.digest('hex')}`
}

/**
 * Files that differ between two git trees, relative to `rootDir` (`../` for files outside it),
 * or null when git cannot tell (no git, not a repo, unknown trees).
 */
export async function changedFiles(rootDir: string, fromTree: string, toTree: string): Promise<string[] | null> {
  if (!OBJECT_ID.test(fromTree) || !OBJECT_ID.test(toTree)) return null
  try {
    const [prefix, output] = await Promise.all([
      showPrefix(rootDir),
      git(rootDir, ['diff-tree', '-r', '-z', '--name-status', '--no-renames', fromTree, toTree], {
        maxBuffer: LARGE_OUTPUT,
      }),
    ])
    const up = '../'.repeat(prefix.split('/').length - 1)
    // `-z --name-status` output alternates status and path.
    const fields = output.split('\0')
    const files: string[] = []
    for (let i = 1; i < fields.length; i += 2) {
      const file = fields[i]
      if (file) files.push(file.startsWith(prefix) ? file.slice(prefix.length) : up + file)
    }
    return files
  } catch {
    return null
  }
}

async function findRepo(rootDir: string): Promise<Repo | null> {
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

async function workingTree(repo: Repo): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'verify-index-'))
  const env = { GIT_INDEX_FILE: path.join(dir, 'index') }
  try {
    await copyIndex(repo.index, env.GIT_INDEX_FILE)
    try {
      // verify's own output (.verify/: evidence, logs, approvals) is never part of the code it verifies.
      await git(repo.top, ['add', '-A', '--', '.', ':(exclude,glob)**/.verify/**'], { env })
    } catch (error) {
      throw new Error(
        `Cannot fingerprint the workspace: \`git add -A\` into a temporary index failed in ${repo.top}: ${gitMessage(error)}`,
        { cause: error },
      )
    }
    return (await git(repo.top, ['write-tree'], { env })).trim()
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
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

async function revision(cwd: string, rev: string): Promise<string | null> {
  try {
    return (await git(cwd, ['rev-parse', '-q', '--verify', rev])).trim()
  } catch (error) {
    if (typeof (error as { code?: unknown }).code === 'number') return null // e.g. no commits yet
    throw error
  }
}

async function isIgnored(rootDir: string): Promise<boolean> {
  try {
    await git(rootDir, ['check-ignore', '-q', '--', '.'])
    return true
  } catch {
    return false
  }
}

async function showPrefix(rootDir: string): Promise<string> {
  return (await git(rootDir, ['rev-parse', '--show-prefix'])).replace(/\n$/, '')
}

async function git(
  cwd: string,
  args: string[],
  options: { env?: Record<string, string>; maxBuffer?: number } = {},
): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  // Inherited from a git hook these would point git at another repository or index.
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX']) delete env[name]
  Object.assign(env, { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }, options.env)
  const { stdout } = await execFileAsync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: options.maxBuffer ?? SMALL_OUTPUT,
    windowsHide: true,
  })
  return stdout
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

const never = (): boolean => false

function inputMatcher(inputs: string[]): (file: string) => boolean {
  const include = inputs.filter((input) => !input.startsWith('!'))
  const exclude = inputs.filter((input) => input.startsWith('!')).map((input) => input.slice(1))
  const isIncluded = include.length > 0 ? picomatch(include, { dot: true }) : never
  const isExcluded = exclude.length > 0 ? picomatch(exclude, { dot: true }) : never
  return (file) => isIncluded(file) && !isExcluded(file)
}

/** Hash of (path, kind/executable bit, content) of the files under rootDir that `include` accepts. */
async function hashFiles(rootDir: string, include: (file: string) => boolean, header: string): Promise<string> {
  const files = (await listFiles(rootDir)).filter(include).toSorted()
  const hash = createHash('sha256').update(header)
  // Small files are read synchronously: fs.promises costs about five thread-pool round trips per
  // file, which made 10k files ~5x slower. Yielding every few milliseconds keeps the event loop live.
  let sliceStart = performance.now()
  for (const file of files) {
    hash.update(`${file}\0${await describeFile(rootDir, file)}\n`)
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      sliceStart = performance.now()
    }
  }
  return `sha256:${hash.digest('hex')}`
}

/** Relative `/`-separated paths of files and symlinks (never followed) under rootDir. */
async function listFiles(rootDir: string): Promise<string[]> {
  const files: string[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      // A folder removed while we walk is simply gone; a missing rootDir is the caller's mistake.
      if (prefix && (error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    const subdirs: Promise<void>[] = []
    for (const entry of entries) {
      const relative = prefix + entry.name
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) subdirs.push(walk(path.join(dir, entry.name), `${relative}/`))
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        files.push(relative)
      }
    }
    await Promise.all(subdirs)
  }
  await walk(rootDir, '')
  return files
}

async function describeFile(rootDir: string, file: string): Promise<string> {
  const absolute = path.join(rootDir, file)
  try {
    const stats = lstatSync(absolute)
    // A symlink counts by where it points, not by what it points at.
    if (stats.isSymbolicLink()) return `link\0${sha256(readlinkSync(absolute))}`
    const executable = (stats.mode & 0o111) !== 0 ? 'x' : '-'
    return `${executable}\0${stats.size <= WHOLE_READ_LIMIT ? sha256(readFileSync(absolute)) : await streamHash(absolute)}`
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'deleted'
    throw new Error(`Cannot fingerprint the workspace: cannot read ${absolute}`, { cause: error })
  }
}

async function streamHash(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return `sha256:${hash.digest('hex')}`
}
