// The working tree as git would commit it, read through a temporary index and a git directory of verify's own (the
// real ones are never touched, their settings never applied): files flagged assume-unchanged or skip-worktree by their
// real content, submodules by their own working trees.
import { existsSync } from 'node:fs'
import { copyFile, lstat, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { VerifyError } from '../errors.js'
import { isAlive } from '../runner/procfs.js'
import { readIndex, withoutCaches, type IndexEntry } from './git-index.js'
import { enclosingRepo, git, gitMessage, isGitUnavailable, LARGE_OUTPUT, RAW_CONTENT, repoSettings, run } from './git-process.js'
import { converts, gitView } from './git-view.js'
const GITLINK = '160000'
const DIRECTORY = '040000'
const IGNORED_NAMED = /^The following paths are ignored by one of your \.gitignore files:$/m
/** verify's temporary folders in the temp dir (index copies, function checks' results), named with the pid that made them. */
const INDEX_FOLDER = /^verify-(?:index|function)-(\d+)-/
/** A folder of a verify that no longer runs, this old, was left by a kill: nothing still reads it. */
const LEFT_BEHIND_MS = 3_600_000
let sweptLeftovers = false

export interface Repo {
  /** Absolute top of the work tree. */
  top: string
  /** rootDir relative to `top`, `''` or ending in `/`. */
  prefix: string
  /** Absolute path of the real index (it may not exist yet). */
  index: string
  /** The object store and .git/info/exclude, shared by all worktrees. */
  objects: string
  exclude: string
  /** Bytes of an object id: 20 (SHA-1) or 32 (SHA-256); 0 when git did not say. */
  objectBytes: number
  /** HEAD and its tree, null before the first commit. */
  head: string | null
  headTree: string | null
  /** repoSettings, asked while the repository was found. */
  settings: Promise<[string, string][]>
}

export interface WorkTree {
  /** The tree `git write-tree` gives for the working tree. */
  tree: string
  /** The tree differs from HEAD's (or there is no HEAD), here or in a submodule. */
  dirty: boolean
  /** Each checked-out submodule's working tree, by its path from the top (nested ones included). */
  submodules: Record<string, string>
  /** Files git tracks among those asked to be left out (paths from the top): they count, as every tracked file does. */
  trackedLeftOut: string[]
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

const PATHS = ['--git-path', 'index', '--git-path', 'objects', '--git-path', 'info/exclude']

/**
 * The repository rootDir belongs to, with its HEAD, or null when git is missing or refuses. One process: the
 * fingerprint's time is mostly the processes it starts and waits for.
 */
export async function findRepo(rootDir: string): Promise<Repo | null> {
  // The config git reads in rootDir is the one of the repository rev-parse finds there.
  const settings = repoSettings(rootDir)
  let output: string
  try {
    output = await git(rootDir, ['rev-parse', '--show-toplevel', '--show-prefix', ...PATHS, '--show-object-format', 'HEAD', 'HEAD^{tree}', '--'])
  } catch (error) {
    if (!isGitUnavailable(error)) throw error
    // No git at all, in a repository: the files would be hashed one by one, ignored ones included, and no evidence
    // recorded where git runs would ever match.
    const within = (error as { code?: unknown }).code === 'ENOENT' ? enclosingRepo(rootDir) : null
    if (within) {
      throw new VerifyError(
        'E_WORKSPACE',
        `Cannot fingerprint the workspace: ${within} is in a git repository, but git could not be started (not installed, or not on PATH). Install git or put it on PATH, and run verify again.`,
      )
    }
    // A repository git will not work in: fingerprinted file by file, .gitignore unread, no evidence would ever match.
    const refusal = /detected dubious ownership in repository at '([^']*)'/.exec(String((error as { stderr?: unknown }).stderr ?? ''))
    if (refusal) {
      throw new VerifyError(
        'E_WORKSPACE',
        `Cannot fingerprint the workspace: git refuses to work in ${refusal[1]}, which another user owns ("dubious ownership"). If you trust it, run \`git config --global --add safe.directory ${refusal[1]}\` and run verify again.`,
      )
    }
    // Before the first commit git prints all but HEAD, then fails on it.
    const partial = String((error as { stdout?: unknown }).stdout ?? '')
    if (partial.split('\n').length < 7) return null
    output = partial
  }
  const [top = '', prefix = '', index = '', objects = '', exclude = '', format = '', head = '', headTree = ''] = output.split('\n')
  if (!top || !index || !objects || !exclude) return null
  const known = OBJECT_ID.test(head) && OBJECT_ID.test(headTree)
  return {
    top,
    prefix,
    index: path.resolve(rootDir, index),
    objects: path.resolve(rootDir, objects),
    exclude: path.resolve(rootDir, exclude),
    objectBytes: format === 'sha256' ? 32 : format === 'sha1' ? 20 : 0,
    head: known ? head : null,
    headTree: known ? headTree : null,
    settings,
  }
}

/** A project in a folder its enclosing repo ignores (say a home directory tracked with `*`) is not that repo's work. */
export async function isIgnored(rootDir: string): Promise<boolean> {
  try {
    await git(rootDir, ['check-ignore', '-q', '--', '.'])
    return true
  } catch {
    return false
  }
}

/**
 * The working tree of `repo` as `git add -A` would record it, without the untracked paths in `leaveOut` (relative to
 * the top, `/`-separated): a tracked path is never left out.
 */
export async function workTree(repo: Repo, leaveOut: readonly string[]): Promise<WorkTree> {
  const dir = await mkdtemp(path.join(tmpdir(), `verify-index-${process.pid}-`))
  const sweeping = sweepLeftovers(tmpdir())
  try {
    const settings = await repo.settings
    const env = await gitView({ ...repo, settings }, dir, path.join(dir, 'index'))
    await copyIndex(repo, env.GIT_INDEX_FILE)
    // The copy is read, not the real index: git may rewrite that one meanwhile.
    const entries = await indexEntries(repo, env)
    await clearFlags(repo.top, entries, env)
    const tracked = entries.filter((e) => leaveOut.some((out) => e.path === out || e.path.startsWith(`${out}/`))).map((e) => e.path)
    let stderr: string
    const excluded = leaveOut.map((out) => `:(exclude,literal)${out}`)
    try {
      stderr = await run(repo.top, [...RAW_CONTENT, 'add', '-A', '--', '.', ...excluded], env).then(
        (result) => result.stderr,
        (error: unknown) => {
          // Naming an ignored path, even to exclude it, makes git exit 1 after adding everything else.
          const message = String((error as { stderr?: unknown }).stderr ?? '')
          if ((error as { code?: unknown }).code === 1 && IGNORED_NAMED.test(message) && !/^(fatal|error):/m.test(message)) return message
          throw error
        },
      )
      // Leaving a folder out must not hide what git tracks inside it.
      if (tracked.length > 0) await run(repo.top, [...RAW_CONTENT, 'add', '-u', '--', ...tracked.map((file) => `:(literal)${file}`)], env)
      // Where git converts files (line endings, `ident`), the index holds the converted blobs of files whose stat
      // still matches: every tracked file is hashed again, as its bytes.
      if (await converts(repo, settings, entries)) await run(repo.top, [...RAW_CONTENT, 'add', '--renormalize', '--', '.', ...excluded], env)
    } catch (error) {
      throw addFailure(repo.top, error)
    }
    let tree: string
    try {
      tree = (await git(repo.top, ['write-tree'], { env })).trim()
    } catch (error) {
      throw addFailure(repo.top, error, '`git write-tree` of a temporary index')
    }
    // Repositories inside this one: the submodules it knows, and those `git add -A` just met.
    const embedded = [...stderr.matchAll(/^warning: adding embedded git repository: (.*)$/gm)].map((m) => m[1] as string)
    const gitlinks = [...new Set([...entries.filter((e) => e.mode === GITLINK).map((e) => e.path), ...embedded])]
    const submodules: Record<string, string> = {}
    let dirty = tree !== repo.headTree
    for (const link of gitlinks.toSorted()) {
      const top = path.join(repo.top, link)
      if (!existsSync(path.join(top, '.git'))) {
        // Not checked out: the recorded commit is all there is, and git adds nothing put into its folder.
        if ((await readdir(top).catch(() => [])).length > 0) {
          throw new VerifyError(
            'E_WORKSPACE',
            `Cannot fingerprint the workspace: the submodule ${link} is not checked out, but its folder holds files, which no evidence could be bound to. Check it out (\`git submodule update --init ${link}\`) or empty its folder.`,
          )
        }
        continue
      }
      const inner = leaveOut.filter((out) => out.startsWith(`${link}/`)).map((out) => out.slice(link.length + 1))
      const subRepo = await findRepo(top)
      if (!subRepo) continue
      const sub = await workTree({ ...subRepo, top, prefix: '' }, inner)
      submodules[link] = sub.tree
      for (const [nested, nestedTree] of Object.entries(sub.submodules)) submodules[`${link}/${nested}`] = nestedTree
      dirty ||= sub.dirty
    }
    return { tree, dirty, submodules, trackedLeftOut: tracked }
  } finally {
    await Promise.all([rm(dir, { recursive: true, force: true }), sweeping])
  }
}

/**
 * A verify killed while it fingerprinted or ran a function check (a CI job's time limit, the OOM killer) leaves its
 * temporary index or result folder behind: the first fingerprint of each process removes such folders, when their
 * verify is dead, they are an hour old and they belong to this user. Never fails: what cannot be removed stays.
 */
async function sweepLeftovers(dir: string): Promise<void> {
  if (sweptLeftovers) return
  sweptLeftovers = true
  const uid = process.getuid?.()
  const names = await readdir(dir).catch(() => [])
  await Promise.all(
    names.map(async (name) => {
      const pid = Number(INDEX_FOLDER.exec(name)?.[1] ?? 0)
      if (pid <= 0 || pid === process.pid || isAlive(pid)) return
      const folder = path.join(dir, name)
      try {
        const info = await lstat(folder)
        if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || Date.now() - info.mtimeMs < LEFT_BEHIND_MS) return
        await rm(folder, { recursive: true, force: true })
      } catch {
        // Removed meanwhile, or not ours to remove.
      }
    }),
  )
}

// Read from the file when its format is known, else listed by git (`-v` tags: lower case when assume-unchanged,
// `S`/`s` when skip-worktree).
async function indexEntries(repo: Repo, env: { GIT_INDEX_FILE: string }): Promise<IndexEntry[]> {
  const read = repo.objectBytes > 0 ? await readIndex(env.GIT_INDEX_FILE, repo.objectBytes) : null
  if (read) return read
  const output = await git(repo.top, ['ls-files', '-v', '-s', '-z'], { env, maxBuffer: LARGE_OUTPUT })
  const entries: IndexEntry[] = []
  // Each entry: `<tag> <mode> <object> <stage>\t<path>`.
  for (const line of output.split('\0')) {
    const tab = line.indexOf('\t')
    if (tab < 0) continue
    const [tag = '', mode = ''] = line.slice(0, tab).split(' ')
    entries.push({ path: line.slice(tab + 1), mode, assumeUnchanged: tag !== tag.toUpperCase(), skipWorktree: tag.toUpperCase() === 'S' })
  }
  return entries
}

/**
 * Flags that make git skip a file (assume-unchanged, skip-worktree) would hide its edits: they are cleared in the
 * temporary index. In a sparse checkout a skip-worktree file that is absent lies outside the cone: it keeps its flag,
 * so it counts as recorded rather than as deleted.
 */
async function clearFlags(top: string, entries: readonly IndexEntry[], env: Record<string, string>): Promise<void> {
  const assumed = entries.filter((e) => e.assumeUnchanged).map((e) => e.path)
  // A sparse index's directory entries stand for files outside the cone: they keep their flag.
  let skipped = entries.filter((e) => e.skipWorktree && e.mode !== DIRECTORY).map((e) => e.path)
  if (skipped.length > 0 && (await sparseCheckout(top))) skipped = skipped.filter((file) => existsSync(path.join(top, file)))
  // update-index applies one of these flags per call.
  for (const [flag, files] of [
    ['--no-assume-unchanged', assumed],
    ['--no-skip-worktree', skipped],
  ] as const) {
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

function addFailure(top: string, error: unknown, step = '`git add -A` into a temporary index'): VerifyError {
  const stderr = String((error as { stderr?: unknown }).stderr ?? '')
  const unborn = /^error: '(.*?)\/?' does not have a commit checked out$/m.exec(stderr)
  if (unborn) {
    return new VerifyError(
      'E_WORKSPACE',
      `Cannot fingerprint the workspace: ${unborn[1]} (in ${top}) is a git repository without commits, and git cannot record it as part of the code. Commit something in it, remove it, or add it to .gitignore.`,
      { cause: error },
    )
  }
  return new VerifyError('E_WORKSPACE', `Cannot fingerprint the workspace: ${step} failed in ${top}: ${gitMessage(error)}`, {
    cause: error,
  })
}

// The copy keeps git's stat cache, so `git add -A` rehashes only files changed since git last looked; not its cached
// trees (withoutCaches). An index not read here is left behind: every file is then hashed.
async function copyIndex(repo: Repo, to: string): Promise<void> {
  let mtimeNs: bigint
  try {
    mtimeNs = (await stat(repo.index, { bigint: true })).mtimeNs
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return // a fresh repo has no index yet
    throw error
  }
  await copyFile(repo.index, to)
  let stripped = repo.objectBytes > 0 ? await withoutCaches(to, repo.objectBytes) : false
  if (stripped === 'split') {
    // The shared part sits beside the real index: git joins the two into the copy there.
    await run(repo.top, ['-c', 'core.fsmonitor=false', '-c', 'core.splitIndex=false', 'update-index', '--no-split-index'], { GIT_INDEX_FILE: to })
    stripped = await withoutCaches(to, repo.objectBytes)
  }
  if (stripped !== true) return rm(to, { force: true })
  // Git treats entries not older than the index file as "racily clean" and rereads them; keeping the
  // original mtime (rounded down, never later) keeps that protection intact.
  const seconds = Number(mtimeNs / 1000n - 1n) / 1e6
  await utimes(to, seconds, seconds)
}
