import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { open, rename, rm, stat } from 'node:fs/promises'
import * as path from 'node:path'
import type { EvidenceFile } from '../types.js'
import { makeFolderSync } from './location.js'
import { evidenceFileSchema } from './schema.js'

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
  makeFolderSync(path.dirname(target))
  const temporary = temporaryPath(target)
  try {
    const handle = await open(temporary, 'wx')
    try {
      await handle.writeFile(serialise(file))
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, target)
  } catch (error) {
    await rm(temporary, { force: true })
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
export async function readEvidenceFile(target: string): Promise<ReadEvidenceResult> {
  const shown = displayPath(target)
  const again = 'run `npx verify` to record it again'
  let text: string
  try {
    // Looked at before it is opened: opening a FIFO would block forever, and a device could be endless.
    const kind = await stat(target)
    if (kind.isDirectory()) return fail(`evidence path ${shown} is a folder, not a file: remove it and ${again}`)
    if (!kind.isFile()) return fail(`evidence path ${shown} is not a regular file: remove it and ${again}`)
    const handle = await open(target, 'r')
    try {
      const { size } = await handle.stat()
      if (size > MAX_EVIDENCE_BYTES) {
        const mib = (size / 1024 / 1024).toFixed(1)
        return fail(`evidence at ${shown} is ${mib} MiB, over the 64 MiB limit: delete it and ${again}`)
      }
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return fail(`no evidence at ${shown}: run \`npx verify\` first`)
    if (code === 'EISDIR') return fail(`evidence path ${shown} is a folder, not a file: remove it and ${again}`)
    if (code === 'EACCES' || code === 'EPERM') return fail(`cannot read evidence at ${shown}: permission denied`)
    return fail(`cannot read evidence at ${shown}: ${oneLine((error as Error).message)}`)
  }

  if (text.trim() === '') return fail(`evidence at ${shown} is empty: ${again}`)
  let data: unknown
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    return fail(`evidence at ${shown} is not valid JSON (${oneLine((error as Error).message)}): delete it and ${again}`)
  }
  const problem = shapeProblem(data)
  if (problem) return fail(`evidence at ${shown} ${problem}: ${again}`)
  const parsed = evidenceFileSchema.safeParse(data)
  if (!parsed.success) {
    const [issue] = parsed.error.issues
    const where = issue ? issue.path.join('.') || '(root)' : '(root)'
    return fail(`evidence at ${shown} is not a valid evidence file (${where}: ${issue?.message ?? 'invalid'}): ${again}`)
  }
  return { ok: true, file: data as EvidenceFile }
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
function displayPath(target: string): string {
  const relative = path.relative(process.cwd(), path.resolve(target))
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : target
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
