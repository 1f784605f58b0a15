// One writer at a time per evidence file: `<evidence>.lock`, created atomically, naming who holds it. A lock left by
// a run that died (its pid gone, or reused by another process) is taken over.
import { randomBytes } from 'node:crypto'
import { existsSync, linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname } from 'node:path'
import { VerifyError } from '../errors.js'
import { makeFolder } from '../folder.js'
import { isAlive, isSameProcess, startTimeOf } from '../runner/procfs.js'

/** What a lock file holds: enough to tell whether its holder is still alive, and to name it in a message. */
export interface LockHolder {
  pid: number
  /** The holder's start time (see `ProcessStat`), so a reused pid is not taken for the holder. */
  startTime: string | null
  hostname: string
  command: string
  /** ISO time the lock was taken. */
  since: string
}

export interface LockOptions {
  /** What the holder is doing, for the message another run shows (e.g. `verify run`). */
  command: string
  /** How long to wait for a live holder: 0 (default) fails at once, Infinity waits as long as it takes. */
  waitMs?: number
  /** Called once when the lock is held by a live run and this one starts waiting. */
  onWait?: (holder: LockHolder) => void
  /** How often a waiting run looks again (default 200 ms). */
  pollMs?: number
}

/** The evidence file is locked by a live run (and waiting, if asked, did not help). */
export class VerifyLockedError extends VerifyError {
  readonly holder: LockHolder | null

  constructor(message: string, holder: LockHolder | null) {
    super('E_EVIDENCE', message)
    this.name = 'VerifyLockedError'
    this.holder = holder
  }
}

/** A held lock. `release()` is synchronous (safe in exit handlers) and idempotent. */
export interface EvidenceLock {
  path: string
  holder: LockHolder
  /** The stale lock this one replaced, when its run had died without releasing it. */
  tookOver: LockHolder | null
  release(): void
}

// A takeover that has not finished within this long was abandoned by a process that died in it.
const TAKEOVER_STALE_MS = 10_000

export function lockPath(evidencePath: string): string {
  return `${evidencePath}.lock`
}

/** Takes the lock of an evidence file, waiting for a live holder up to `waitMs`; throws VerifyLockedError. */
export async function acquireEvidenceLock(evidencePath: string, options: LockOptions): Promise<EvidenceLock> {
  const path = lockPath(evidencePath)
  const holder: LockHolder = {
    pid: process.pid,
    startTime: startTimeOf(process.pid),
    hostname: hostname(),
    command: options.command,
    since: new Date().toISOString(),
  }
  const deadline = Date.now() + (options.waitMs ?? 0)
  let tookOver: LockHolder | null = null
  let waiting = false
  for (;;) {
    if (create(path, holder)) return { path, holder, tookOver, release: () => releaseLock(path, holder) }
    // Something else is in the way (a folder of that name): no holder will ever release it.
    if (!isLockFile(path))
      throw new VerifyError(
        'E_EVIDENCE',
        `cannot lock the evidence file: ${path} is not a file (a folder?); remove it, or choose another place with --evidence`,
      )
    const current = readHolder(path)
    if (current === undefined) continue // released meanwhile: try again at once
    if (current === null || isStale(current)) {
      if (takeOver(path, current)) tookOver ??= current ?? { pid: 0, startTime: null, hostname: '?', command: '(unreadable lock file)', since: '?' }
      else await sleep(50)
      continue
    }
    if (Date.now() >= deadline) throw new VerifyLockedError(lockedMessage(evidencePath, current, options.waitMs ?? 0), current)
    if (!waiting) options.onWait?.(current)
    waiting = true
    await sleep(Math.min(options.pollMs ?? 200, Math.max(1, deadline - Date.now())))
  }
}

function isLockFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return true // gone meanwhile: released
  }
}

function create(path: string, holder: LockHolder): boolean {
  try {
    makeFolder(dirname(path))
    return tryCreate(path, holder)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new VerifyError('E_EVIDENCE', `cannot lock the evidence file: cannot write ${path} (${reason}); choose a writable place with --evidence`, {
      cause: error,
    })
  }
}

// The lock is written whole to a temporary file and hard-linked into place: it appears complete or not at all.
function tryCreate(path: string, holder: LockHolder): boolean {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { flag: 'wx' })
  try {
    linkSync(temporary, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    unlinkSync(temporary)
  }
}

/** The holder named by the lock file; undefined when there is no lock file, null when it cannot be read. */
export function readHolder(path: string): LockHolder | null | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null
  }
  try {
    const data = JSON.parse(text) as LockHolder
    return typeof data.pid === 'number' && typeof data.since === 'string' ? data : null
  } catch {
    return null
  }
}

/** A holder on this machine whose process is gone (or whose pid now names another process). */
function isStale(holder: LockHolder): boolean {
  // Another machine's process cannot be looked at: its lock is respected.
  if (holder.hostname !== hostname()) return false
  return !isSameProcess(holder.pid, holder.startTime)
}

// Removes a stale lock, one taker at a time: two runs that both saw it stale must not both remove a fresh one.
function takeOver(path: string, stale: LockHolder | null): boolean {
  const mutex = `${path}.takeover`
  const mine = `${process.pid} ${hostname()}\n`
  try {
    writeFileSync(mutex, mine, { flag: 'wx' })
  } catch {
    removeAbandoned(mutex)
    return false
  }
  try {
    const now = readHolder(path)
    const same = now === null || (now !== undefined && stale !== null && now.pid === stale.pid && now.since === stale.since)
    if (same && existsSync(path)) unlinkSync(path)
    return same
  } finally {
    // Ours still: taking longer than TAKEOVER_STALE_MS, it may have been removed, and another taker's put there.
    if (readText(mutex) === mine) unlinkSync(mutex)
  }
}

/**
 * Removes a takeover whose taker died in it (its pid gone, on this machine) or that has not finished in
 * TAKEOVER_STALE_MS. Several waiting runs may judge it so at once: each moves it aside first and looks at what it
 * moved, and puts back a fresh one that another taker made meanwhile.
 */
function removeAbandoned(mutex: string): void {
  try {
    const seen = readFileSync(mutex, 'utf8')
    const { ino, mtimeMs } = statSync(mutex)
    const [pid, host] = seen.trim().split(' ')
    const takerGone = host === hostname() && Number(pid) > 0 && !isAlive(Number(pid))
    if (!takerGone && Date.now() - mtimeMs <= TAKEOVER_STALE_MS) return
    const aside = `${mutex}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    renameSync(mutex, aside)
    try {
      if (statSync(aside).ino !== ino || readFileSync(aside, 'utf8') !== seen) linkSync(aside, mutex)
    } finally {
      unlinkSync(aside)
    }
  } catch {
    // Finished meanwhile, or another taker's is there again.
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

function releaseLock(path: string, holder: LockHolder): void {
  const current = readHolder(path)
  // Only our own lock is removed, never one another run took after ours was (wrongly) judged stale.
  if (current && current.pid === holder.pid && current.since === holder.since) {
    try {
      unlinkSync(path)
    } catch {
      // Gone already.
    }
  }
}

function lockedMessage(evidencePath: string, holder: LockHolder, waitedMs: number): string {
  const where = holder.hostname !== hostname() ? ` on ${holder.hostname}` : ''
  const since = Date.parse(holder.since)
  const ago = Number.isFinite(since) ? ` (${agoText(Date.now() - since)} ago)` : ''
  const waited = waitedMs > 0 ? ` Waited ${agoText(waitedMs)} for it.` : ' Pass --wait (or --wait=10m) to wait for it to finish.'
  const gone = where ? ` If that run is gone, remove ${lockPath(evidencePath)}.` : ''
  return `${evidencePath} is in use by another run: pid ${holder.pid}${where} (\`${holder.command}\`), since ${holder.since}${ago}. One run at a time writes an evidence file.${waited}${gone}`
}

function agoText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 120) return `${s}s`
  const m = Math.round(s / 60)
  return m < 120 ? `${m}m` : `${Math.round(m / 60)}h`
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
