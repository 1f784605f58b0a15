// Files verify itself writes (evidence, approvals, logs, reports, other shards' evidence) are left out of the
// fingerprint, so writing them never makes verify's own evidence stale. What may be left out is decided from what
// the running command knows, or from content verify can recognise — never from a list taken on trust: an evidence
// file is untrusted input, and a path it could exclude at will would hide code (docs/evidence.md, "What verify
// writes").
import { createHash } from 'node:crypto'
import { lstat, open, readdir, readFile } from 'node:fs/promises'
import * as path from 'node:path'
import { approvalsPathOf, logDirOf } from '../defaults.js'
import type { EvidenceFile, OutputFile } from '../types.js'

/** Outputs larger than this are never recognised (and so never left out). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024
const SHA256 = /^sha256:[0-9a-f]{64}$/
// How every evidence file verify writes begins (JSON.stringify with two spaces, schemaVersion first).
const EVIDENCE_START = /^\{\s*"schemaVersion":\s*1,\s*"tool":\s*\{\s*"name":\s*"verify-protocol"/

/** Does this text (a file's first 256 bytes or more) start as verify writes an evidence file? */
export function startsAsEvidence(text: string): boolean {
  return EVIDENCE_START.test(text)
}

/**
 * The name of a run's record in the run registry (`run/<run id>.json`, the id a UUID), or of its temporary copy
 * (`<run id>.json.<writer's host>.<writer's pid>.tmp`; `<run id>.json.tmp` from earlier versions). Group 1: the run id;
 * 2 and 3: the writer's host and pid.
 */
export const RUN_RECORD = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json(?:(?:\.([A-Za-z0-9_.-]+)\.(\d+))?\.tmp)?$/

/**
 * What verify writes beside an evidence file: the file itself, `approvals.json` and the check logs
 * (`logs/<id>.log`, `logs/<id>.attempt-<n>.log`) of `checkIds`. Absolute paths; they need not exist.
 */
export async function besideEvidence(evidencePath: string, checkIds: readonly string[]): Promise<string[]> {
  const dir = path.dirname(evidencePath)
  const logs = logDirOf(evidencePath)
  const ids = new Set(checkIds)
  let names: string[] = []
  try {
    names = await readdir(logs)
  } catch {
    // No logs folder yet.
  }
  const ownLogs = names.filter((name) => ids.has(name.replace(/(?:\.attempt-\d+)?\.log$/, '')) && name.endsWith('.log'))
  // The lock and the run registry's records exist only while verify runs (src/evidence/lock.ts, src/runner/registry.ts).
  // Only the records: evidence kept in the project's own folder may sit beside a run/ folder of the project.
  let records: string[] = []
  try {
    records = (await readdir(path.join(dir, 'run'))).filter((name) => RUN_RECORD.test(name)).map((name) => path.join(dir, 'run', name))
  } catch {
    // No run in progress.
  }
  const running = [`${evidencePath}.lock`, `${evidencePath}.lock.takeover`, ...records]
  return [evidencePath, approvalsPathOf(evidencePath), ...ownLogs.map((name) => path.join(logs, name)), ...running]
}

/**
 * Other evidence files in the evidence file's folder — the files of other shards run in the same checkout:
 * `.json` files whose content reads as verify evidence.
 */
export async function siblingEvidence(evidencePath: string): Promise<string[]> {
  const dir = path.dirname(evidencePath)
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return []
  }
  const found: string[] = []
  for (const name of names) {
    const file = path.join(dir, name)
    if (name.endsWith('.json') && file !== evidencePath && (await isEvidenceFile(file))) found.push(file)
  }
  return found
}

/**
 * The outputs `file` (read from `evidencePath`) recorded in `workspace.outputs` that are still what verify wrote:
 * exactly the recorded content (`sha256`), or, for a copy of this evidence (the `json` reporter's file, recorded
 * without a hash), evidence of the same run. One that was edited, replaced by a link or grew too large counts as
 * code again.
 */
export async function unchangedOutputs(evidencePath: string, file: EvidenceFile | null | undefined): Promise<string[]> {
  const recorded: unknown = file?.workspace?.outputs
  if (!file || !Array.isArray(recorded)) return []
  const dir = path.dirname(evidencePath)
  const kept: string[] = []
  for (const entry of recorded as Partial<OutputFile>[]) {
    if (!entry || typeof entry.path !== 'string') continue
    const output = path.resolve(dir, entry.path)
    const unchanged =
      entry.sha256 === undefined
        ? (await readEvidence(output))?.runId === file.runId
        : SHA256.test(entry.sha256) && (await contentHash(output)) === entry.sha256
    if (unchanged) kept.push(output)
  }
  return kept
}

/**
 * Records `files` (absolute) that exist, relative to the evidence file's folder, with their content hash; and
 * `copies`, copies of the evidence still to be written, without one.
 */
export async function describeOutputs(evidencePath: string, files: readonly string[], copies: readonly string[] = []): Promise<OutputFile[]> {
  const dir = path.dirname(evidencePath)
  const relative = (file: string) => path.relative(dir, file).split(path.sep).join('/')
  const outputs: OutputFile[] = copies.map((file) => ({ path: relative(file) }))
  for (const file of new Set(files)) {
    if (copies.includes(file)) continue
    const hash = await contentHash(file)
    if (hash) outputs.push({ path: relative(file), sha256: hash })
  }
  return outputs
}

// Regular files only: a symlink could point anywhere, and its target's content is not what verify wrote.
async function contentHash(file: string): Promise<string | null> {
  try {
    const stats = await lstat(file)
    if (!stats.isFile() || stats.size > MAX_OUTPUT_BYTES) return null
    return `sha256:${createHash('sha256')
      .update(await readFile(file))
      .digest('hex')}`
  } catch {
    return null
  }
}

async function isEvidenceFile(file: string): Promise<boolean> {
  return (await readEvidence(file)) !== null
}

// A file that reads as verify evidence, or null: JSON as verify writes it, with checks and a workspace.
async function readEvidence(file: string): Promise<{ runId?: unknown } | null> {
  try {
    const stats = await lstat(file)
    if (!stats.isFile() || stats.size > MAX_OUTPUT_BYTES) return null
    const handle = await open(file, 'r')
    const start = Buffer.alloc(256)
    try {
      const { bytesRead } = await handle.read(start, 0, start.length, 0)
      if (!EVIDENCE_START.test(start.subarray(0, bytesRead).toString('utf8'))) return null
    } finally {
      await handle.close()
    }
    const data = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
    return Array.isArray(data.checks) && typeof data.workspace === 'object' && data.workspace !== null ? data : null
  } catch {
    return null
  }
}
