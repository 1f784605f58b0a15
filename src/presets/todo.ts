// The strict preset's `todo` check: no new TODO / FIXME / XXX markers in the lines a change adds, compared with the
// base branch (its merge base with HEAD) or, without one, HEAD (said in the output; an error under CI, where that
// means a shallow checkout). Untracked files count as wholly added.
import { execFile } from 'node:child_process'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import picomatch from 'picomatch'
import type { CheckDefinition } from '../config/define.js'
import type { CheckContext, FunctionCheckResult } from '../types.js'

const run = promisify(execFile)

export const DEFAULT_MARKERS = ['TODO', 'FIXME', 'XXX'] as const

/** Refs tried, in order, as the base branch; the first that exists is compared through its merge base with HEAD. */
export const BASE_CANDIDATES = ['origin/HEAD', 'origin/main', 'origin/master', 'main', 'master'] as const

// Git's empty tree: the base of a repository without commits.
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
const MAX_FILE_BYTES = 2 * 1024 * 1024

export interface TodoOptions {
  /**
   * The ref to compare with (default: `VERIFY_BASE`, else the first of BASE_CANDIDATES that is a real base, else HEAD
   * — an error under CI, where a shallow checkout has no base branch).
   */
  base?: string
  /** Words that mark unfinished work (whole words, case-sensitive). */
  markers?: readonly string[]
  /** Globs (relative to the check's folder) of files not to scan, e.g. fixtures that contain markers on purpose. */
  ignore?: readonly string[]
}

export interface AddedLine {
  file: string
  line: number
  text: string
}

export interface TodoScan {
  /** What the change was compared with, in words (`origin/main (merge base 1a2b3c4)`, `HEAD`). */
  base: string
  /** Why the comparison is weaker than it looks (no base branch was found), for the output. */
  note?: string
  /** Added lines with a marker. */
  found: AddedLine[]
  /** Files with added lines that were scanned. */
  files: number
}

async function git(args: readonly string[], cwd: string, signal?: AbortSignal): Promise<string> {
  const { stdout } = await run('git', ['-c', 'core.quotePath=false', ...args], { cwd, signal, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' })
  return stdout
}

async function tryGit(args: readonly string[], cwd: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return (await git(args, cwd, signal)).trim()
  } catch (error) {
    if (signal?.aborted) throw error
    return undefined
  }
}

function isCI(env: Readonly<Record<string, string | undefined>> | undefined): boolean {
  const value = env?.CI
  return Boolean(value) && value !== 'false' && value !== '0'
}

interface Base {
  commit: string
  name: string
  /** Said in the output: why the comparison is weaker than it looks. */
  note?: string
}

/** The branch a candidate ref stands for: `origin/HEAD` → the branch it points at, `origin/main` → `main`. */
async function branchOf(ref: string, cwd: string, signal?: AbortSignal): Promise<string | undefined> {
  if (ref !== 'origin/HEAD') return ref.replace(/^origin\//, '')
  const target = await tryGit(['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'], cwd, signal)
  return target?.replace(/^refs\/remotes\/origin\//, '')
}

/**
 * Whether a candidate whose merge base is HEAD itself is a real base. It is when HEAD is on that branch with its
 * history at hand (the change is what is not committed yet), or on another branch that has no commit of its own yet.
 * It is not when HEAD is detached, or when the repository is shallow and the candidate is HEAD's own branch: a CI
 * checkout of depth 1 has no base branch, and its `origin/HEAD` may point at the branch being built.
 */
async function isRealBase(ref: string, cwd: string, signal?: AbortSignal): Promise<boolean> {
  const current = await tryGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], cwd, signal)
  if (!current) return false
  if (current !== (await branchOf(ref, cwd, signal))) return true
  return (await tryGit(['rev-parse', '--is-shallow-repository'], cwd, signal)) === 'false'
}

/** The commit to compare with, and how to name it. Under CI, not finding a base branch is an error, not a pass. */
async function findBase(cwd: string, requested: string | undefined, ci: boolean, signal?: AbortSignal): Promise<Base> {
  const head = await tryGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], cwd, signal)
  if (requested !== undefined) {
    const commit = await tryGit(['rev-parse', '--verify', '--quiet', `${requested}^{commit}`], cwd, signal)
    if (!commit) throw new Error(`the base "${requested}" is not a commit of this repository`)
    const mergeBase = head ? await tryGit(['merge-base', 'HEAD', commit], cwd, signal) : undefined
    return { commit: mergeBase || commit, name: mergeBase && mergeBase !== commit ? `${requested} (merge base ${mergeBase.slice(0, 7)})` : requested }
  }
  if (!head) return { commit: EMPTY_TREE, name: 'an empty repository' }
  for (const ref of BASE_CANDIDATES) {
    const commit = await tryGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], cwd, signal)
    if (!commit) continue
    const mergeBase = await tryGit(['merge-base', 'HEAD', commit], cwd, signal)
    if (!mergeBase) continue
    if (mergeBase !== head) return { commit: mergeBase, name: `${ref} (merge base ${mergeBase.slice(0, 7)})` }
    // On the base branch itself the merge base is HEAD: the change is what is not committed yet.
    if (await isRealBase(ref, cwd, signal)) return { commit: head, name: 'HEAD' }
  }
  const tried = BASE_CANDIDATES.join(', ')
  if (ci) {
    throw new Error(
      `no base branch to compare with (tried ${tried}): this checkout has no history of the base branch, so the lines the change added cannot be told apart. ` +
        'Fetch the history (actions/checkout: `fetch-depth: 0`), or set VERIFY_BASE to the ref to diff against (e.g. VERIFY_BASE=origin/main).',
    )
  }
  return {
    commit: head,
    name: 'HEAD',
    note: `No base branch found (tried ${tried}): only changes not committed yet were scanned. Set VERIFY_BASE to the ref to diff against to include committed ones.`,
  }
}

function unquote(path: string): string {
  return path.startsWith('"') && path.endsWith('"') ? (JSON.parse(path) as string) : path
}

/** Added lines of a `git diff --unified=0` patch, with their file and line number in the new version. */
export function addedLines(patch: string): AddedLine[] {
  const lines: AddedLine[] = []
  let file: string | undefined
  let inHunk = false
  let next = 0
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      inHunk = false
      file = undefined
    } else if (!inHunk && line.startsWith('+++ ')) {
      const target = line.slice(4)
      // Git ends the name with a tab when it holds a space (`+++ b/my file.js\t`).
      const name = target.replace(/\t$/, '')
      file = name === '/dev/null' ? undefined : unquote(name).replace(/^b\//, '')
    } else if (line.startsWith('@@')) {
      const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line)
      inHunk = match !== null
      next = Number(match?.[1] ?? 0)
    } else if (inHunk && file !== undefined && line.startsWith('+')) {
      lines.push({ file, line: next++, text: line.slice(1) })
    } else if (inHunk && line.startsWith(' ')) {
      next++
    }
  }
  return lines
}

async function untrackedLines(cwd: string, signal?: AbortSignal): Promise<AddedLine[]> {
  const list = await git(['ls-files', '--others', '--exclude-standard', '-z'], cwd, signal)
  const lines: AddedLine[] = []
  for (const file of list.split('\0').filter(Boolean)) {
    const path = join(cwd, file)
    const info = await stat(path).catch(() => undefined)
    if (!info?.isFile() || info.size > MAX_FILE_BYTES) continue
    const content = await readFile(path)
    if (content.subarray(0, 8000).includes(0)) continue // binary
    content
      .toString('utf8')
      .split('\n')
      .forEach((text, i) => lines.push({ file, line: i + 1, text }))
  }
  return lines
}

/** Scans the lines a change adds (tracked changes against the base, and untracked files) for markers. */
export async function scanNewMarkers(
  cwd: string,
  options: TodoOptions & { signal?: AbortSignal; env?: Record<string, string | undefined> } = {},
): Promise<TodoScan> {
  const inside = await tryGit(['rev-parse', '--is-inside-work-tree'], cwd, options.signal)
  if (inside !== 'true') throw new Error(`${cwd} is not in a git repository, so there is no change to compare with a base`)
  const base = await findBase(cwd, options.base ?? (options.env?.VERIFY_BASE || undefined), isCI(options.env), options.signal)
  const patch = await git(['diff', '--no-color', '--no-ext-diff', '--unified=0', '--relative', '--diff-filter=ACMR', base.commit, '--'], cwd, options.signal)
  const added = [...addedLines(patch), ...(await untrackedLines(cwd, options.signal))]
  const markers = options.markers ?? DEFAULT_MARKERS
  const pattern = new RegExp(`\\b(?:${markers.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`)
  const ignored = options.ignore?.length ? picomatch([...options.ignore], { dot: true }) : () => false
  const scanned = added.filter((line) => !ignored(line.file))
  const found = scanned.filter((line) => pattern.test(line.text))
  return { base: base.name, ...(base.note ? { note: base.note } : {}), found, files: new Set(scanned.map((l) => l.file)).size }
}

const SHOWN = 50

/** The `todo` check: passes when no added line has a marker. Fails with each marker's file and line. */
export function todoCheck(options: TodoOptions = {}): CheckDefinition<never> {
  const markers = options.markers ?? DEFAULT_MARKERS
  return {
    name: `No new ${markers.join('/')} markers`,
    description: `Lines added since the base branch (or HEAD) contain no ${markers.join(', ')} marker`,
    evidenceType: 'todo_complete',
    run: async ({ cwd, signal, env }: CheckContext): Promise<FunctionCheckResult> => {
      const scan = await scanNewMarkers(cwd, { ...options, signal, env })
      const metadata = { base: scan.base, files: scan.files, markers: scan.found.length, ...(scan.note ? { baseFallback: true } : {}) }
      const note = scan.note ? [scan.note] : []
      if (scan.found.length === 0) {
        return {
          passed: true,
          output: [`No ${markers.join('/')} in the lines added to ${scan.files} file(s) since ${scan.base}.`, ...note].join('\n'),
          metadata,
        }
      }
      const shown = scan.found.slice(0, SHOWN).map((l) => `${l.file}:${l.line}: ${l.text.trim()}`)
      const more = scan.found.length > SHOWN ? [`… and ${scan.found.length - SHOWN} more`] : []
      return {
        passed: false,
        output: [`${scan.found.length} new marker(s) in lines added since ${scan.base}:`, ...shown, ...more, ...note].join('\n'),
        metadata,
      }
    },
  }
}
