import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { copyFile, open, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import * as path from 'node:path'
import type { EvidenceFile } from '../types.js'
import { JsonShapeScanner } from './json-bounds.js'
import { makeFolderSync } from './location.js'

// The signature is read as it is and judged by the acceptance rule (a malformed one is a rejection, not a file that
// cannot be read); every other field must have its documented shape. Built by the first read: building the schemas
// costs a command that writes evidence or reads none (`verify list`) more than the rest of this module.
let readableEvidenceSchema: Promise<ReturnType<typeof readableSchema>> | undefined
const readableSchema = (schema: typeof import('./schema.js')) => schema.evidenceFileSchema.omit({ signature: true })

/** Bytes read at a time: a hostile file is refused after its first chunk, not after it was all in memory. */
const READ_CHUNK = 1024 * 1024

/** Evidence files larger than this are refused rather than parsed. */
export const MAX_EVIDENCE_BYTES = 64 * 1024 * 1024

export type ReadEvidenceResult = { ok: true; file: EvidenceFile } | { ok: false; reason: string }

/**
 * Write the evidence file atomically: a temporary file next to it is written, flushed to disk and
 * renamed over the target, so readers see the old file or the new one, never a partial one.
 */
export async function writeEvidenceFile(target: string, file: EvidenceFile): Promise<void> {
  await writeJsonAtomic(target, file)
}

/** Writes any JSON value atomically (temporary file, fsync, rename), with a trailing newline. */
export async function writeJsonAtomic(target: string, file: unknown): Promise<void> {
  await writeFilesAtomic([{ target, text: serialise(file) }])
}

/** The text of a JSON file as verify writes it. */
export function jsonText(value: unknown): string {
  return serialise(value)
}

/**
 * Replaces several files together, or none of them: every temporary file is written and flushed first, then each is
 * renamed over its target; if a rename fails, the targets already replaced get their previous content back.
 */
export async function writeFilesAtomic(files: readonly { target: string; text: string }[]): Promise<void> {
  const written: { target: string; temporary: string }[] = []
  const replaced: { target: string; backup: string | null }[] = []
  try {
    for (const { target, text } of files) {
      makeFolderSync(path.dirname(target))
      const temporary = temporaryPath(target)
      written.push({ target, temporary })
      const handle = await open(temporary, 'wx')
      try {
        await handle.writeFile(text)
        await handle.sync()
      } finally {
        await handle.close()
      }
    }
    for (const { target, temporary } of written) {
      const backup = files.length > 1 ? await backupOf(target) : null
      replaced.push({ target, backup })
      await rename(temporary, target)
    }
  } catch (error) {
    const failed = replaced.pop()
    if (failed?.backup) await rm(failed.backup, { force: true })
    for (const { target, backup } of replaced.toReversed()) {
      await (backup ? rename(backup, target) : rm(target, { force: true })).catch(() => {})
    }
    for (const { temporary } of written) await rm(temporary, { force: true })
    throw error
  }
  for (const { backup } of replaced) if (backup) await rm(backup, { force: true })
}

/** A copy of the target's current content to restore it from, or null when there is none. */
async function backupOf(target: string): Promise<string | null> {
  const backup = `${temporaryPath(target)}.bak`
  try {
    await copyFile(target, backup)
    return backup
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Synchronous {@link writeEvidenceFile}, for signal handlers where nothing async will finish. */
export function writeEvidenceFileSync(target: string, file: EvidenceFile): void {
  makeFolderSync(path.dirname(target))
  const temporary = temporaryPath(target)
  try {
    const fd = openSync(temporary, 'wx')
    try {
      writeFileSync(fd, serialise(file)) // loops until everything is written
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, target)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

/**
 * Read an evidence file. Never throws: a missing, empty, oversized, corrupt or foreign file gives
 * `ok: false` with a one-line reason that says what to do.
 */
// A folder may hold the approvals and the logs: the advice is to name the file in it, never to remove it.
const folderReason = (shown: string) =>
  `evidence path ${shown} is a folder, not a file: name the evidence file in it (--evidence ${shown.replace(/\/+$/, '')}/evidence.json)`

export async function readEvidenceFile(target: string): Promise<ReadEvidenceResult> {
  const shown = displayPath(target)
  const again = 'run `npx verify` to record it again'
  let text: string
  try {
    // Looked at before it is opened: opening a FIFO would block forever, and a device could be endless.
    const kind = await stat(target)
    if (kind.isDirectory()) return fail(folderReason(shown))
    if (!kind.isFile()) return fail(`evidence path ${shown} is not a regular file: remove it and ${again}`)
    const handle = await open(target, 'r')
    try {
      const { size } = await handle.stat()
      if (size > MAX_EVIDENCE_BYTES) {
        const mib = (size / 1024 / 1024).toFixed(1)
        return fail(`evidence at ${shown} is ${mib} MiB, over the 64 MiB limit: delete it and ${again}`)
      }
      const read = await readBounded(handle, size)
      if (!read.ok) return fail(`evidence at ${shown} is not a valid evidence file (${read.reason}): ${again}`)
      text = read.text
    } finally {
      await handle.close()
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return fail(`no evidence at ${shown}: run \`npx verify\` first`)
    if (code === 'EISDIR') return fail(folderReason(shown))
    if (code === 'EACCES' || code === 'EPERM') return fail(`cannot read evidence at ${shown}: permission denied`)
    return fail(`cannot read evidence at ${shown}: ${oneLine((error as Error).message)}`)
  }

  if (text.trim() === '') return fail(`evidence at ${shown} is empty: ${again}`)
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return fail(`evidence at ${shown} is not valid JSON (${oneLine((error as Error).message)}): delete it and ${again}`)
  }
  const problem = shapeProblem(data)
  if (problem) return fail(`evidence at ${shown} ${problem}: ${again}`)
  readableEvidenceSchema ??= import('./schema.js').then(readableSchema)
  const parsed = (await readableEvidenceSchema).safeParse(data)
  if (!parsed.success) return fail(`evidence at ${shown} is not a valid evidence file (${firstIssue(parsed.error)}): ${again}`)
  return { ok: true, file: data as EvidenceFile }
}

/** A small JSON file read: its data, or that it is missing, or why it cannot be read (`is empty`, `is not valid JSON (…)`). */
export type SmallJson = { ok: true; data: unknown } | { ok: false; missing: true } | { ok: false; missing: false; reason: string }

/**
 * Reads a small JSON file verify keeps beside the evidence (approvals). Anything but a missing file that does not give
 * JSON within `maxBytes` and the evidence shape limits says why. Never throws, never blocks on a FIFO.
 */
export async function readSmallJson(target: string, maxBytes: number): Promise<SmallJson> {
  let text: string
  try {
    const kind = await stat(target)
    if (!kind.isFile()) return unreadable(kind.isDirectory() ? 'is a folder, not a file' : 'is not a regular file')
    if (kind.size > maxBytes) return unreadable(`is ${(kind.size / 1024 / 1024).toFixed(1)} MiB, over its ${maxBytes / 1024 / 1024} MiB limit`)
    const handle = await open(target, 'r')
    try {
      const read = await readBounded(handle, Math.min((await handle.stat()).size, maxBytes))
      if (!read.ok) return unreadable(`is not valid (${read.reason})`)
      text = read.text
    } finally {
      await handle.close()
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { ok: false, missing: true }
    if (code === 'EACCES' || code === 'EPERM') return unreadable('cannot be read (permission denied)')
    return unreadable(`cannot be read (${oneLine((error as Error).message)})`)
  }
  if (text.trim() === '') return unreadable('is empty')
  try {
    return { ok: true, data: JSON.parse(text) }
  } catch (error) {
    return unreadable(`is not valid JSON (${oneLine((error as Error).message)})`)
  }
}

function unreadable(reason: string): SmallJson {
  return { ok: false, missing: false, reason }
}

/** The first problem zod found, with where it is: `checks.0.status: Invalid option …`. */
export function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const [issue] = error.issues
  const where = issue ? issue.path.map(String).join('.') || '(root)' : '(root)'
  return `${where}: ${issue?.message ?? 'invalid'}`
}

/** Reads at most `size` bytes in chunks, measuring the JSON's shape as they arrive; stops at the first excess. */
async function readBounded(handle: FileHandle, size: number): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  // Pages of this buffer become resident only as they are filled: a file refused early costs one chunk.
  const buffer = Buffer.allocUnsafe(size)
  const scanner = new JsonShapeScanner()
  let length = 0
  while (length < size) {
    const { bytesRead } = await handle.read(buffer, length, Math.min(READ_CHUNK, size - length), length)
    if (bytesRead === 0) break
    const problem = scanner.scan(buffer.subarray(length, length + bytesRead))
    if (problem) return { ok: false, reason: problem }
    length += bytesRead
  }
  const bom = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0
  return { ok: true, text: buffer.toString('utf8', bom, length) }
}

// The first, friendliest checks; the zod schema of the evidence file validates the rest.
function shapeProblem(data: unknown): string | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'is not a JSON object'
  const record = data as Record<string, unknown>
  if (record['schemaVersion'] !== 1) {
    const version = JSON.stringify(record['schemaVersion']) ?? 'none'
    return `has schemaVersion ${version}, this version of verify-protocol reads 1`
  }
  if (!Array.isArray(record['checks'])) return 'has no `checks` list'
  const summary = record['summary']
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary)) return 'has no `summary` object'
  return null
}

function fail(reason: string): ReadEvidenceResult {
  return { ok: false, reason }
}

function serialise(file: unknown): string {
  return `${JSON.stringify(file, null, 2)}\n`
}

function temporaryPath(target: string): string {
  return `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
}

// Paths inside the working directory read better relative: `.verify/evidence.json`.
export function displayPath(target: string): string {
  const relative = path.relative(process.cwd(), path.resolve(target))
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : target
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
