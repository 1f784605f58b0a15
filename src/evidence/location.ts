// Where evidence and logs go: folders made one level at a time, and a location proved writable before a run.
import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs'
import * as path from 'node:path'
import { startsAsEvidence } from './outputs.js'

/** Why a folder could not be made or written, in words, with the path it is about. */
export class FolderError extends Error {
  readonly path: string
  readonly code: string | undefined

  constructor(message: string, at: string, code?: string) {
    super(message)
    this.name = 'FolderError'
    this.path = at
    this.code = code
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}

/** verify's own files beside the evidence, which evidence written at their path would destroy. */
const OWN_FILES = /^(?:approvals\.json|hook-blocks\.json|.*\.lock)$/

/**
 * Is this existing file one evidence may replace? An empty file, one that starts as verify's evidence, and a damaged
 * evidence file (a `.json` in verify's own `.verify` folder, or an `evidence.json` git does not track) are; anything
 * else (a package.json, a source file, a report or notes of the user's, tracked or not) is not.
 */
function isReplaceable(file: string, size: number): boolean {
  if (size === 0 || startsAsEvidence(firstBytes(file))) return true
  if (path.basename(path.dirname(file)) === '.verify' && file.endsWith('.json')) return true
  return path.basename(file) === 'evidence.json' && !isTracked(file)
}

// The first line of each report verify writes to a file: JUnit (after its XML declaration), markdown (and the job
// summary of github-actions), and the agent's digest. The json report is evidence.
const REPORT_START = [
  /^<\?xml[^>]*\?>\s*<testsuites name="verify"/,
  /^### \S+ verify(?: shard \d+\/\d+)?: (?:approved|rejected|incomplete)\n/,
  /^verify: (?:APPROVED|REJECTED|INCOMPLETE) — /,
]

/** Is this existing file one a report may replace? An empty file, or one that starts as a report or evidence verify wrote. */
function isReport(file: string, size: number): boolean {
  if (size === 0) return true
  const start = firstBytes(file)
  return startsAsEvidence(start) || REPORT_START.some((report) => report.test(start))
}

/** Does git track this file? False outside a repository, or without git. */
function isTracked(file: string): boolean {
  try {
    execFileSync('git', ['ls-files', '--error-unmatch', '--', `:(literal)${path.basename(file)}`], {
      cwd: path.dirname(file),
      stdio: 'ignore',
      timeout: 10_000,
    })
    return true
  } catch {
    return false
  }
}

/** The first 256 bytes of a file, as text; '' when it cannot be read. */
function firstBytes(file: string): string {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return ''
  }
  try {
    const start = Buffer.alloc(256)
    return start.subarray(0, readSync(fd, start, 0, start.length, 0)).toString('utf8')
  } catch {
    return ''
  } finally {
    closeSync(fd)
  }
}

function statOrNull(at: string): ReturnType<typeof statSync> | null {
  try {
    return statSync(at)
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return null
    throw new FolderError(`cannot look at ${at} (${codeOf(error) ?? (error as Error).message})`, at, codeOf(error))
  }
}

/**
 * Makes `dir` and its missing parents, one level at a time. Unlike `mkdir(…, { recursive: true })`, which
 * loops forever where the kernel answers ENOENT for a parent that exists (/proc, /sys), this ends with a
 * {@link FolderError} that names the first path it could not make, or the file that stands in the way.
 */
export function makeFolderSync(dir: string): void {
  const missing: string[] = []
  let at = path.resolve(dir)
  for (;;) {
    const found = statOrNull(at)
    if (found) {
      if (!found.isDirectory()) throw new FolderError(`${at} is a file, not a folder`, at, 'ENOTDIR')
      break
    }
    missing.unshift(at)
    const parent = path.dirname(at)
    if (parent === at) break
    at = parent
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder)
    } catch (error) {
      // Made meanwhile by another process: fine as long as it is a folder.
      if (codeOf(error) === 'EEXIST' && statOrNull(folder)?.isDirectory()) continue
      throw new FolderError(`cannot create the folder ${folder} (${codeOf(error) ?? (error as Error).message})`, folder, codeOf(error))
    }
  }
}

/** Writes and removes a small file in `dir`: the folder exists, may be written, and has room. */
function probeWrite(dir: string): void {
  const probe = path.join(dir, `.verify-probe.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  let fd: number | null = null
  try {
    fd = openSync(probe, 'wx')
    writeSync(fd, Buffer.alloc(4096, 0x20))
    fsyncSync(fd)
  } catch (error) {
    throw new FolderError(`cannot write in ${dir} (${codeOf(error) ?? (error as Error).message})`, dir, codeOf(error))
  } finally {
    if (fd !== null) closeSync(fd)
    rmSync(probe, { force: true })
  }
}

const ADVICE: Record<string, string> = {
  ENOSPC: 'the device is full: free some space',
  EDQUOT: 'the disk quota is used up: free some space',
  EACCES: 'permission denied: choose a folder you may write',
  EPERM: 'the operation is not permitted there: choose a folder on an ordinary disk',
  EROFS: 'the file system is read-only: choose a writable folder',
  ENOTDIR: 'a file stands where a folder must be: remove or rename it',
  ENOENT: 'it cannot hold files (a special file system such as /proc or /sys?): choose a folder on an ordinary disk',
}

/**
 * Proves, before any check runs, that the evidence file and the logs can be written: the folders are made
 * and a small file is written and removed in each. Returns null, or one paragraph that names the path and
 * what to do — so a long run never ends with results it cannot keep.
 */
export function evidenceLocationProblem(evidencePath: string, logDir: string): string | null {
  if (isStreamPath(evidencePath))
    return `--evidence ${evidencePath} names a stream, not a file: the evidence is written aside and renamed over its file, which a stream cannot be. Name a file (e.g. .verify/evidence.json); \`--reporter json\` prints the run as JSON on standard output. Nothing was run.`
  try {
    const target = statOrNull(evidencePath)
    if (target?.isDirectory())
      return `The evidence path ${evidencePath} is not a file but a folder: the run could not write its evidence there. Move the folder away, or name a file with --evidence (a path ending with / writes evidence.json into a folder). Nothing was run.`
    // A FIFO is not read (--reuse says so) and is replaced by the new evidence; a device or a socket is refused.
    if (target && !target.isFile() && !target.isFIFO()) return `--evidence ${evidencePath} is not a file: name a file, e.g. .verify/evidence.json`
    // The evidence is written aside and renamed over the path: a link to a device (/dev/stdout) would be replaced.
    if (target && !target.isFile() && lstatSync(evidencePath).isSymbolicLink())
      return `--evidence ${evidencePath} is a link to something that is not a file: writing the evidence would replace the link. Name a file, e.g. .verify/evidence.json. Nothing was run.`
    // Beside the evidence go the approvals and the lock: named as the evidence, they would be the evidence.
    if (OWN_FILES.test(path.basename(evidencePath)))
      return `--evidence ${evidencePath} is a file verify keeps beside the evidence (its approvals, its lock or the hook's count), not evidence: writing evidence there would destroy it. Name another file, e.g. .verify/evidence.json. Nothing was run.`
    if (target?.isFile() && !isReplaceable(evidencePath, Number(target.size)))
      return `--evidence ${evidencePath} is not a verify evidence file: verify does not overwrite it. Name a new file, or remove this one if it is evidence that was damaged. Nothing was run.`
    for (const dir of [path.dirname(evidencePath), logDir]) proveFolder(dir)
    return null
  } catch (error) {
    if (!(error instanceof FolderError)) throw error
    return `Cannot write the evidence at ${evidencePath}: ${error.message}; ${adviceFor(error)}, or pass --evidence <file> to write it elsewhere. Nothing was run.`
  }
}

/**
 * The same proof for a report file (`--reporter junit=<file>`, a config reporter's `file`): a run whose report
 * cannot be written is refused before it starts, not told so at its end. `source` names the reporter.
 */
export function reportLocationProblem(file: string, source: string): string | null {
  // Written to as it is, appended to when it leads to a file (reporters/output.ts): the file is the user's output.
  if (isStreamPath(file)) return null
  try {
    const target = statOrNull(file)
    if (target?.isDirectory()) return `Cannot write the ${source} report at ${file}: it is not a file but a folder. Name a file. Nothing was run.`
    // A device (/dev/stdout, /dev/null) or a FIFO is written as it is: a file the user chose on purpose. An existing
    // file is opened for writing without changing it: one it cannot replace would leave an old report for CI to read.
    if (!target) proveFolder(path.dirname(file))
    else if (target.isFile() && isTracked(file))
      return `Cannot write the ${source} report at ${file}: git tracks that file, and the report would replace it. Name a file of its own (reports/ in .gitignore, say). Nothing was run.`
    // Tracked or not (outside git, before the first commit): a file of the project's own is never replaced.
    else if (target.isFile() && !isReport(file, Number(target.size)))
      return `Cannot write the ${source} report at ${file}: that file is not a report verify wrote, and the report would replace it. Name a file of its own (reports/ in .gitignore, say), or remove this one if it is an old report. Nothing was run.`
    else if (target.isFile()) closeSync(openOrExplain(file))
    return null
  } catch (error) {
    if (!(error instanceof FolderError)) throw error
    return `Cannot write the ${source} report at ${file}: ${error.message}; ${adviceFor(error)}, or name another file. Nothing was run.`
  }
}

/**
 * A path that stands for one of the process's streams or a device: `/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`,
 * `/dev/null`. Whatever it leads to (a terminal, a pipe, the file standard output was redirected to) is written as it
 * is, never replaced.
 */
export function isStreamPath(file: string): boolean {
  const at = path.resolve(file)
  if (/^\/dev\/(?:stdout|stderr|stdin|fd\/\d+)$/.test(at) || /^\/proc\/(?:self|thread-self|\d+)\/fd\/\d+$/.test(at)) return true
  // Any other device (/dev/null, /dev/tty); a folder such as /dev/shm holds ordinary files.
  try {
    return statSync(at).isCharacterDevice()
  } catch {
    return false
  }
}

/** The process's own standard output or error named as a path (`/dev/stdout`, `/dev/fd/2`, `/proc/self/fd/1`), else null. */
export function ownStream(file: string): 'stdout' | 'stderr' | null {
  const at = path.resolve(file)
  const fd = /^\/dev\/(stdout|stderr)$/.exec(at)?.[1] ?? /^\/(?:dev|proc\/self)\/fd\/([12])$/.exec(at)?.[1]
  if (fd === 'stdout' || fd === '1') return 'stdout'
  if (fd === 'stderr' || fd === '2') return 'stderr'
  return null
}

function openOrExplain(file: string): number {
  try {
    return openSync(file, 'r+')
  } catch (error) {
    throw new FolderError(`cannot write ${file} (${codeOf(error) ?? (error as Error).message})`, file, codeOf(error))
  }
}

function proveFolder(dir: string): void {
  makeFolderSync(dir)
  probeWrite(dir)
}

function adviceFor(error: FolderError): string {
  return ADVICE[error.code ?? ''] ?? 'choose another location'
}
