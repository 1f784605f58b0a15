// What Linux's /proc says about processes: start times (to tell a reused pid from ours) and environment tags
// (to find processes that left their process group). Elsewhere every function answers "unknown" (null, []).
import { readdirSync, readFileSync } from 'node:fs'

const NUL = Buffer.from([0])

export interface ProcessStat {
  /** One-letter state: R, S, D, Z (zombie), T … */
  state: string
  pgid: number
  /** Start time in clock ticks since boot: with the pid, it names one process for good. */
  startTime: string
}

/** The process's state, group and start time, or null when it does not exist (or /proc is not there). */
export function readStat(pid: number): ProcessStat | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  // Fields follow the command name in parentheses, which may itself hold spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const [state, , pgid] = fields
  const startTime = fields[19]
  if (!state || !pgid || !startTime) return null
  return { state, pgid: Number(pgid), startTime }
}

/** The start time of a process (see {@link ProcessStat}), or null when it is gone. */
export function startTimeOf(pid: number): string | null {
  return readStat(pid)?.startTime ?? null
}

/** Is this the very process that had this start time (alive, not a zombie, pid not reused)? */
export function isSameProcess(pid: number, startTime: string | null): boolean {
  const stat = readStat(pid)
  if (!stat || stat.state === 'Z') return false
  // Without /proc (another OS) the start time is unknown: only liveness can be checked.
  return startTime === null || stat.startTime === startTime
}

/** Is a process with this pid alive (a zombie counts as dead)? */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const stat = readStat(pid)
  return stat === null ? true : stat.state !== 'Z'
}

/** The command line of a process, shortened for a message. */
export function commandOf(pid: number): string {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ')
    return text.length > 120 ? `${text.slice(0, 119)}…` : text
  } catch {
    return ''
  }
}

/** The pid the kernel handed out last (Linux: /proc/loadavg), or null when unknown. */
export function lastPid(): number | null {
  try {
    const pid = Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ')[4])
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

/**
 * Pids of the live processes whose environment (as it was when they started) holds `NAME=value` — how a run's
 * processes are found after they left their process group (setsid, a double fork). Zombies and verify itself are
 * left out. Synchronous so it can run in an exit handler; it reads one small file per process.
 *
 * With `bornAfter` (a pid), only processes created after that one are read: pids are handed out in turn, so those
 * are the pids from it up to the last one handed out (wrapping around). The caller makes sure the pid space cannot
 * have wrapped all the way round meanwhile (a short time).
 */
export function findTagged(name: string, value: string, bornAfter?: number): number[] {
  const needle = Buffer.from(`\0${name}=${value}\0`)
  const found: number[] = []
  for (const pid of candidates(bornAfter)) {
    if (pid === process.pid) continue
    let environ: Buffer
    try {
      environ = readFileSync(`/proc/${pid}/environ`)
    } catch {
      continue // gone, or another user's
    }
    // Each variable ends with a NUL; the first has none before it.
    if (!Buffer.concat([NUL, environ]).includes(needle)) continue
    // A thread's id opens /proc/<tid> as well (hidden from the listing): only whole processes count.
    if (readStat(pid)?.state === 'Z' || !isProcess(pid)) continue
    found.push(pid)
  }
  return found
}

function isProcess(pid: number): boolean {
  try {
    return new RegExp(`^Tgid:\\s+${pid}$`, 'm').test(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

// Below this many pids to look at, they are tried one by one rather than by listing /proc.
const DIRECT_RANGE = 256

function candidates(bornAfter: number | undefined): number[] {
  const last = bornAfter === undefined ? null : lastPid()
  if (bornAfter !== undefined && last !== null && last >= bornAfter && last - bornAfter < DIRECT_RANGE) {
    return Array.from({ length: last - bornAfter + 1 }, (_, i) => bornAfter + i)
  }
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const pids = names.filter((entry) => entry.charCodeAt(0) >= 48 && entry.charCodeAt(0) <= 57).map(Number)
  if (bornAfter === undefined || last === null) return pids
  return pids.filter((pid) => (last >= bornAfter ? pid >= bornAfter && pid <= last : pid >= bornAfter || pid <= last))
}

/** Sends SIGKILL to each pid; returns those it reached. */
export function killPids(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    try {
      process.kill(pid, 'SIGKILL')
      return true
    } catch {
      return false
    }
  })
}
