// A run's live process groups on disk (`.verify/run/<runId>.json`), so that when verify itself is killed (SIGKILL,
// OOM) the next run can kill what it left and remove its half-written files, never touching a reused pid.
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { RUN_RECORD } from '../evidence/outputs.js'
import { makeFolder } from '../folder.js'
import { findTagged, isAlive, isSameProcess, startTimeOf } from './procfs.js'
import { killTagged, watchGroups } from './spawn.js'

/** The environment variable every check of a run carries (with the run's id); escaped processes are found by it. */
export const RUN_TAG_ENV = 'VERIFY_RUN_ID'

interface RegistryFile {
  runId: string
  pid: number
  startTime: string | null
  hostname: string
  startedAt: string
  groups: { pgid: number; startTime: string | null }[]
}

const WRITE_EVERY_MS = 100

/** What the next run cleaned after runs that died. */
export interface Cleanup {
  runs: number
  /** Processes of dead runs that were still alive, killed. */
  killed: number[]
  /** Temporary files of dead writers that were removed (names). */
  removed: string[]
}

export interface RunRegistry {
  /** Kills what is left of the run (by its tag), forgets the registry. Synchronous and idempotent. */
  close(): void
}

/**
 * Records the run in `dir` (created if needed) and keeps its list of live groups up to date. Best effort: a folder
 * that cannot be written costs the next run its clean-up, never this run its result.
 */
export function openRegistry(dir: string, runId: string): RunRegistry {
  const file = join(dir, `${runId}.json`)
  // Named by its writer: a kill before its first byte leaves a file with no record inside, which the next run on this
  // machine removes once that pid is gone.
  const temporary = `${file}.${writerName(process.pid)}.tmp`
  const record: RegistryFile = {
    runId,
    pid: process.pid,
    startTime: startTimeOf(process.pid),
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    groups: [],
  }
  let writable = true
  const write = () => {
    if (!writable) return
    try {
      // Small and rewritten whole at each change: a rename makes every version complete.
      writeFileSync(temporary, JSON.stringify(record))
      renameSync(temporary, file)
    } catch {
      writable = false
    }
  }
  try {
    makeFolder(dir)
  } catch {
    writable = false
  }
  write()
  let spawned = false
  // Written at most every WRITE_EVERY_MS: a file per spawn would cost more than the spawn. What a kill in between
  // leaves unrecorded is still found by the run's tag, which the file names from the start.
  let timer: NodeJS.Timeout | undefined
  const stop = watchGroups((groups) => {
    spawned = true
    record.groups = [...groups].map(([pgid, startTime]) => ({ pgid, startTime }))
    timer ??= setTimeout(() => {
      timer = undefined
      write()
    }, WRITE_EVERY_MS).unref()
  })
  let closed = false
  return {
    close() {
      if (closed) return
      closed = true
      clearTimeout(timer)
      stop()
      // Only what this run started carries its tag: a run that started nothing (all reused) skips the sweep.
      if (spawned) killTagged(RUN_TAG_ENV, runId)
      for (const name of [file, temporary]) removeFile(name)
    },
  }
}

/**
 * Cleans after runs of this machine that died without closing their registry: kills their groups (when the leader
 * is the very process recorded) and every process carrying their run tag, removes their registries and the
 * temporary files (`*.<pid>.<hex>.tmp`) of writers that are gone in `tempDirs`.
 */
export function cleanDeadRuns(dir: string, tempDirs: readonly string[]): Cleanup {
  const cleanup: Cleanup = { runs: 0, killed: [], removed: [] }
  for (const name of list(dir)) {
    // Only verify's own records: the folder may be the project's own run/ when the evidence sits in the project.
    const match = RUN_RECORD.exec(name)
    if (!match) continue
    const path = join(dir, name)
    const record = readRecord(path)
    if (record && record.hostname !== hostname()) continue
    if (!record) {
      const pid = Number(match[3])
      if (match[3] !== undefined) {
        // Another machine's copy (a shared folder): not this machine's to judge.
        if (`${match[2]}.${match[3]}` !== writerName(pid)) continue
        // Nothing to read, and its writer is gone: a kill before its first byte, at the run's first write, before it
        // started anything. Only the copy is left to remove.
        if (!isAlive(pid)) {
          cleanup.runs++
          if (removeFile(path)) cleanup.removed.push(name)
          continue
        }
      }
      // Cut by a kill mid-write, or being written: give a live writer a moment to finish.
      if (Date.now() - mtime(path) < 5000) continue
    }
    if (record && isSameProcess(record.pid, record.startTime)) continue
    const runId = record?.runId ?? (match[1] as string)
    cleanup.runs++
    // Counted before the kill: a group's members carry the tag too.
    const killed = new Set(findTagged(RUN_TAG_ENV, runId))
    for (const group of record?.groups ?? []) {
      if (!isSameProcess(group.pgid, group.startTime)) continue
      try {
        process.kill(-group.pgid, 'SIGKILL')
        killed.add(group.pgid)
      } catch {
        // Gone meanwhile.
      }
    }
    for (const { pid } of killTagged(RUN_TAG_ENV, runId)) killed.add(pid)
    cleanup.killed.push(...[...killed].toSorted((a, b) => a - b))
    for (const leftover of [path, join(dir, `${runId}.json`), join(dir, `${runId}.json.tmp`)]) removeFile(leftover)
    if (record) removeFile(join(dir, `${runId}.json.${writerName(record.pid)}.tmp`))
  }
  for (const tempDir of tempDirs) {
    for (const name of list(tempDir)) {
      const writer = /\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name)?.[1]
      if (!writer || isAlive(Number(writer))) continue
      if (removeFile(join(tempDir, name))) cleanup.removed.push(name)
    }
  }
  return cleanup
}

/** `<host>.<pid>`: who writes a registry's temporary copy (the host as a file name may hold it). */
function writerName(pid: number): string {
  return `${hostname().replace(/[^A-Za-z0-9.-]/g, '_')}.${pid}`
}

/** One line saying what was cleaned, or null when there was nothing. */
export function describeCleanup(cleanup: Cleanup): string | null {
  if (cleanup.killed.length === 0 && cleanup.removed.length === 0) return null
  const parts: string[] = []
  const pids = cleanup.killed.length > 10 ? `${cleanup.killed.slice(0, 10).join(', ')}, …` : cleanup.killed.join(', ')
  if (cleanup.killed.length > 0) parts.push(`killed ${cleanup.killed.length} leftover process${cleanup.killed.length === 1 ? '' : 'es'} (${pids})`)
  if (cleanup.removed.length > 0)
    parts.push(`removed ${cleanup.removed.length} half-written file${cleanup.removed.length === 1 ? '' : 's'} (${cleanup.removed.join(', ')})`)
  return `An earlier run was killed before it could clean up (${cleanup.runs === 1 ? 'one run' : `${cleanup.runs} runs`}): ${parts.join(' and ')}.`
}

function readRecord(path: string): RegistryFile | null {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as RegistryFile
    return typeof data.runId === 'string' && typeof data.pid === 'number' && Array.isArray(data.groups) ? data : null
  } catch {
    return null
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
}

function removeFile(path: string): boolean {
  try {
    unlinkSync(path)
    return true
  } catch {
    return false
  }
}
