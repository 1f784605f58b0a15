import { createHash } from 'node:crypto'
import { createReadStream, lstatSync, readFileSync, readlinkSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { VERIFY_DIR } from '../defaults.js'
import type { WorkspaceInfo } from '../types.js'
import { canonicalJson, sha256 } from './canonical.js'
import { git, LARGE_OUTPUT } from './git-process.js'
import { findRepo, isIgnored, workTree, type Repo, type WorkTree } from './git-tree.js'
import { loadPicomatch } from './globs.js'
import { withLinkTargets } from './input-links.js'

/** Folders never part of a fingerprint outside git, at any depth. */
const SKIPPED_DIRS = new Set(['node_modules', '.git'])
/** Longest stretch of synchronous file reading before yielding to the event loop. */
const SLICE_MS = 10
const WHOLE_READ_LIMIT = 8 * 1024 * 1024
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/
const GITLINK = '160000'

export interface FingerprintOptions {
  /**
   * Absolute paths of files verify itself writes (evidence, logs, reports): left out of the fingerprint when git
   * does not track them. The project's own `.verify/` is always left out the same way.
   */
  leaveOut?: readonly string[]
  /** findRepo(rootDir), already asked: a command asks it while it reads the evidence file. */
  repo?: Promise<Repo | null>
}

/**
 * Fingerprint of the code: the working tree as `git add -A` would commit it (untracked, non-ignored files
 * included; files flagged assume-unchanged or skip-worktree read as they are; submodules by their working trees)
 * and the project's folder in the repository — not HEAD, which is recorded for information. Computed in a
 * temporary index, so the real one is never touched. Outside git: a hash of every file under `rootDir` except
 * `node_modules` and `.git` folders and its own `.verify/`.
 */
export async function workspaceFingerprint(rootDir: string, options: FingerprintOptions = {}): Promise<WorkspaceInfo> {
  const leaveOut = [path.join(rootDir, VERIFY_DIR), ...(options.leaveOut ?? [])]
  const found = await (options.repo ?? findRepo(rootDir))
  // Whether the folder is ignored is asked while the tree is computed: one process less to wait for.
  const ignored = found?.prefix ? isIgnored(rootDir) : Promise.resolve(false)
  const work = found ? computeTree(found, rootDir, leaveOut) : null
  work?.catch(() => undefined) // awaited below, unless the folder turns out to be ignored
  const repo = found && !(await ignored) ? found : null
  if (!repo || !work) {
    const skipped = leaveOut.map((file) => toPosix(path.relative(rootDir, file))).filter((file) => file !== '' && file !== '..' && !file.startsWith('../'))
    return { fingerprint: await hashFiles(rootDir, (file) => !isUnder(file, skipped), 'workspace\n'), git: null }
  }
  const { tree, dirty, submodules: inner, trackedLeftOut: tracked } = await work
  const folder = repo.prefix.replace(/\/$/, '')
  const submodules = Object.keys(inner).length > 0 ? { submodules: inner } : {}
  const workspace = {
    fingerprint: sha256(canonicalJson({ folder, tree, ...submodules })),
    git: { head: repo.head, tree, dirty, ...submodules },
  }
  repos.set(workspace, { rootDir, top: repo.top, prefix: repo.prefix, trackedLeftOut: tracked.map((file) => path.join(repo.top, file)) })
  return workspace
}

/** The repository each fingerprint was computed in: its checks' inputs are listed there without asking git again. */
const repos = new WeakMap<WorkspaceInfo, { rootDir: string; top: string; prefix: string; trackedLeftOut: string[] }>()

/**
 * Of the files the fingerprint was asked to leave out (verify's own: its evidence, logs, reports), those git tracks
 * (absolute paths): they were counted, since a tracked file always is, and they change with every run.
 */
export function trackedLeftOut(workspace: WorkspaceInfo): string[] {
  return repos.get(workspace)?.trackedLeftOut ?? []
}

function computeTree(repo: Repo, rootDir: string, leaveOut: readonly string[]): Promise<WorkTree> {
  // Paths from the top, found through rootDir and its prefix: the top git prints may be a symlink's target.
  const fromTop = leaveOut.map((file) => path.posix.normalize(repo.prefix + toPosix(path.relative(rootDir, file)))).filter((file) => isInside(file))
  return workTree(repo, fromTop)
}

/**
 * Fingerprint of only the files under `rootDir` matching `inputs` (globs relative to `rootDir`, `!pattern`
 * excludes), and of the folder they are relative to. In git it reads the tree `workspace` already recorded.
 */
export async function inputsFingerprint(rootDir: string, inputs: string[], workspace: WorkspaceInfo): Promise<string> {
  const { folder, files } = await inputFiles(rootDir, inputs, workspace)
  const hash = createHash('sha256').update(`inputs\n${canonicalJson(workspace.git ? { folder, inputs } : inputs)}\n`)
  for (const file of files) hash.update(`${file.path}\0${file.id}\n`)
  return `sha256:${hash.digest('hex')}`
}

/**
 * The `inputs` patterns that match no file (a typo binds a check to nothing there), and `inputs` as a whole when
 * the `!` patterns exclude everything the others match.
 */
export async function unmatchedInputs(rootDir: string, inputs: string[], workspace: WorkspaceInfo): Promise<string[]> {
  const { files, unmatched } = await inputFiles(rootDir, inputs, workspace)
  if (files.length === 0 && unmatched.length === 0) return [inputs.join(', ')]
  return unmatched
}

/** A warning for each `inputs` pattern of `checks` that matches no file: a typo must not bind a check to nothing. */
export async function inputsWarnings(
  rootDir: string,
  checks: readonly { id: string; inputs?: string[] | undefined }[],
  workspace: WorkspaceInfo,
): Promise<string[]> {
  const warnings: string[] = []
  for (const check of checks) {
    if (!check.inputs) continue
    for (const pattern of await unmatchedInputs(rootDir, check.inputs, workspace)) {
      warnings.push(
        `Check "${check.id}": its inputs pattern "${pattern}" matches no file, so no change can make its evidence stale there. Fix the pattern (a typo?) or remove it.`,
      )
    }
  }
  return warnings
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

interface InputFile {
  /** Relative to rootDir, `/`-separated. */
  path: string
  /** What identifies its content: git's mode and object, or kind and hash outside git. */
  id: string
}

async function inputFiles(rootDir: string, inputs: string[], workspace: WorkspaceInfo): Promise<{ folder: string; files: InputFile[]; unmatched: string[] }> {
  const include = inputs.filter((input) => !input.startsWith('!'))
  const exclude = inputs.filter((input) => input.startsWith('!')).map((input) => input.slice(1))
  const picomatch = await loadPicomatch()
  const patterns = include.map((glob) => ({ glob, test: picomatch(glob, { dot: true }), matched: false }))
  const isExcluded = exclude.length > 0 ? picomatch(exclude, { dot: true }) : never
  const accept = (file: string): boolean => {
    let included = false
    for (const pattern of patterns) {
      if (pattern.test(file)) {
        pattern.matched = true
        included = true
      }
    }
    return included && !isExcluded(file)
  }
  let folder = ''
  const files: InputFile[] = []
  if (workspace.git) {
    const listing = await treeListing(rootDir, workspace)
    folder = listing.folder
    files.push(
      ...withLinkTargets(
        rootDir,
        listing.entries.filter((entry) => accept(entry.path)),
        listing.entries,
      ),
    )
  } else {
    const all = (await listFiles(rootDir)).filter((file) => !isUnder(file, [VERIFY_DIR]))
    for (const file of all.toSorted()) if (accept(file)) files.push({ path: file, id: await describeFile(rootDir, file) })
  }
  return { folder, files, unmatched: patterns.filter((p) => !p.matched).map((p) => p.glob) }
}

// Every check with `inputs` reads the same tree: it is listed once per workspace, not once per check.
const listings = new Map<string, Promise<{ folder: string; entries: InputFile[] }>>()

function treeListing(rootDir: string, workspace: WorkspaceInfo): Promise<{ folder: string; entries: InputFile[] }> {
  const key = `${rootDir}\0${workspace.fingerprint}`
  let listing = listings.get(key)
  if (!listing) {
    if (listings.size >= 8) listings.clear()
    listing = listTree(rootDir, workspace)
    listings.set(key, listing)
    listing.catch(() => listings.delete(key))
  }
  return listing
}

async function listTree(rootDir: string, workspace: WorkspaceInfo): Promise<{ folder: string; entries: InputFile[] }> {
  const known = repos.get(workspace)
  const [top = '', prefix = ''] =
    known?.rootDir === rootDir ? [known.top, known.prefix] : (await git(rootDir, ['rev-parse', '--show-toplevel', '--show-prefix'])).split('\n')
  const submodules = workspace.git?.submodules ?? {}
  const entries: InputFile[] = []
  const walk = async (cwd: string, tree: string, base: string): Promise<void> => {
    const listing = await git(cwd, ['ls-tree', '-r', '--full-tree', '-z', tree], { maxBuffer: LARGE_OUTPUT })
    // Each entry: `<mode> <type> <object>\t<path>`.
    for (const entry of listing.split('\0')) {
      const tab = entry.indexOf('\t')
      if (tab < 0) continue
      const file = base + entry.slice(tab + 1)
      const [mode = '', , object] = entry.slice(0, tab).split(' ')
      const inner = mode === GITLINK ? submodules[file] : undefined
      // A checked-out submodule counts by its working tree, file by file.
      if (inner) await walk(path.join(top, file), inner, `${file}/`)
      else if (file.startsWith(prefix)) entries.push({ path: file.slice(prefix.length), id: `${mode}\0${object}` })
    }
  }
  await walk(top, workspace.git?.tree ?? '', '')
  return { folder: prefix.replace(/\/$/, ''), entries }
}

async function showPrefix(rootDir: string): Promise<string> {
  return (await git(rootDir, ['rev-parse', '--show-prefix'])).replace(/\n$/, '')
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/')
}

// A path from the top of the work tree that git could hold: not above it, not the top itself, not in `.git`.
function isInside(file: string): boolean {
  return file !== '' && file !== '..' && !file.startsWith('../') && !path.isAbsolute(file) && file !== '.git' && !file.startsWith('.git/')
}

function isUnder(file: string, folders: readonly string[]): boolean {
  return folders.some((folder) => file === folder || file.startsWith(`${folder}/`))
}

const never = (): boolean => false

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
