// Runs one command in its own process group and supervises it: timeout, cancellation, leftovers, stdin closed.
import { randomBytes } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { spawn } from 'node:child_process'
import { timerDelay } from '../duration.js'
import type { OutputCapture } from './capture.js'
import { commandOf, findTagged, killPids, readStat, startTimeOf } from './procfs.js'

/** Set in every supervised process's environment, unique per spawn: how processes that left the group are found. */
export const SPAWN_TAG_ENV = 'VERIFY_SPAWN_ID'

// Checks that ran longer than this are swept through every process: pids may have wrapped around meanwhile.
const FULL_SWEEP_AFTER_MS = 2000

export interface SpawnOptions {
  /** A shell command, or argv run without a shell. */
  command: string | readonly string[]
  cwd: string
  env: Record<string, string>
  timeoutMs: number
  /** Time between SIGTERM and SIGKILL to the group. */
  graceMs: number
  /** Aborting it stops the command the same way a timeout does (fail-fast, interrupt). */
  signal?: AbortSignal
  capture: OutputCapture
  /** How long output may keep flowing from leftovers after the main process exited (default 2 s, within the timeout). */
  drainMs?: number
}

/** A process of the command that had left its process group (setsid, a double fork) and was killed. */
export interface EscapedProcess {
  pid: number
  command: string
}

export interface SpawnResult {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  cancelled: boolean
  /** Why the command could not run at all (missing binary, bad cwd), in words. */
  error: string | null
  durationMs: number
  /** Processes found by the spawn's environment tag outside its group once it ended, and killed. */
  escaped?: EscapedProcess[]
  /** Leftovers still held the output open when the drain window closed: verify stopped reading it. */
  outputHeld?: boolean
}

/**
 * Process groups alive right now (pgid → the leader's start time), so an interrupted `verify` can kill every one of
 * them synchronously and a registry on disk can name them for the next run if verify itself is killed.
 */
const liveGroups = new Map<number, string | null>()
const groupListeners = new Set<(groups: ReadonlyMap<number, string | null>) => void>()

/** Calls `listener` with the live groups each time one starts or ends; returns the function that stops it. */
export function watchGroups(listener: (groups: ReadonlyMap<number, string | null>) => void): () => void {
  groupListeners.add(listener)
  return () => groupListeners.delete(listener)
}

function groupsChanged(): void {
  for (const listener of groupListeners) listener(liveGroups)
}

/** Sends a signal to every live process group. Safe to call from a signal or exit handler. */
export function killAllGroups(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pgid of liveGroups.keys()) killGroup(pgid, signal)
}

/**
 * Kills every process whose environment carries `name=value`, a few rounds in case they fork meanwhile. Members of
 * `exceptGroup` are left out: that group was signalled already and its members are not escapees. `bornAfter`: see
 * `findTagged`.
 */
export function killTagged(name: string, value: string, exceptGroup?: number, bornAfter?: number): EscapedProcess[] {
  const killed = new Map<number, EscapedProcess>()
  for (let round = 0; round < 3; round++) {
    const found = findTagged(name, value, bornAfter).filter((pid) => !killed.has(pid) && (exceptGroup === undefined || readStat(pid)?.pgid !== exceptGroup))
    if (found.length === 0) break
    const named = found.map((pid) => ({ pid, command: commandOf(pid) }))
    const reached = new Set(killPids(found))
    for (const entry of named) if (reached.has(entry.pid)) killed.set(entry.pid, entry)
  }
  return [...killed.values()]
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: the group is already gone.
  }
}

function describeCommand(command: string | readonly string[]): string {
  return typeof command === 'string' ? command : command.join(' ')
}

async function cwdProblem(cwd: string): Promise<string | null> {
  try {
    const info = await stat(cwd)
    return info.isDirectory() ? null : `the check's cwd "${cwd}" is not a folder`
  } catch {
    return `the check's cwd "${cwd}" does not exist`
  }
}

export async function spawnSupervised(options: SpawnOptions): Promise<SpawnResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const base = { exitCode: null, signal: null, timedOut: false, cancelled: false }
  const badCwd = await cwdProblem(options.cwd)
  if (badCwd) return { ...base, error: badCwd, durationMs: elapsed() }
  if (options.signal?.aborted) return { ...base, cancelled: true, error: null, durationMs: 0 }

  const { command } = options
  const tag = randomBytes(8).toString('hex')
  const shell = typeof command === 'string'
  const [file, ...args] = shell ? [command] : (command as readonly string[])
  // Own process group (detached) so the whole tree can be signalled; stdin closed so nothing waits for input.
  const subprocess = spawn(file as string, args, {
    cwd: options.cwd,
    env: { ...options.env, [SPAWN_TAG_ENV]: tag },
    shell,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  })
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
    subprocess.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }))
    subprocess.once('close', (code, signal) => resolve({ code, signal }))
  })
  const pgid = subprocess.pid
  if (pgid !== undefined) {
    liveGroups.set(pgid, startTimeOf(pgid))
    groupsChanged()
  }

  let timedOut = false
  let cancelled = false
  let exited = false
  let endDrain: (() => void) | undefined
  let graceTimer: NodeJS.Timeout | undefined
  const stop = () => {
    if (pgid === undefined || graceTimer) return
    killGroup(pgid, 'SIGTERM')
    graceTimer = setTimeout(() => killGroup(pgid, 'SIGKILL'), timerDelay(options.graceMs))
  }
  const timeoutTimer = setTimeout(() => {
    timedOut = true
    stop()
  }, timerDelay(options.timeoutMs))
  const timeoutAt = Date.now() + options.timeoutMs
  const onAbort = () => {
    cancelled = true
    // The main process is gone already: nothing left to wait for but leftovers' output.
    if (exited) endDrain?.()
    else stop()
  }
  options.signal?.addEventListener('abort', onAbort, { once: true })

  for (const name of ['stdout', 'stderr'] as const) {
    const stream = subprocess[name]
    stream?.on('data', (chunk: Buffer) => {
      // The log file falls behind a fast producer: hold the pipe until it catches up rather than drop the log.
      if (!options.capture.write(chunk, name)) {
        stream.pause()
        void options.capture.drained().then(() => stream.resume())
      }
    })
  }

  // Once the main process exits, whatever is left of its group gets until the pipes close: at most drainMs, and not
  // past the check's timeout (with a moment to read what the main process left in the pipe).
  let drainTimer: NodeJS.Timeout | undefined
  let outputHeld = false
  subprocess.once('exit', () => {
    exited = true
    clearTimeout(timeoutTimer)
    if (pgid === undefined) return
    const streams = [subprocess.stdout, subprocess.stderr].filter((s) => s !== null && !s.closed)
    let open = streams.length
    const reap = () => {
      clearTimeout(drainTimer)
      killGroup(pgid, 'SIGKILL')
    }
    if (open === 0) return reap()
    for (const stream of streams) stream?.once('close', () => --open === 0 && reap())
    // A process that left the group (setsid) can hold the pipes for ever: stop reading them so the check ends.
    endDrain = () => {
      if (open === 0) return
      outputHeld = true
      reap()
      for (const stream of streams) stream?.destroy()
    }
    drainTimer = setTimeout(endDrain, Math.min(options.drainMs ?? 2000, Math.max(200, timeoutAt - Date.now())))
  })

  const result = await closed
  clearTimeout(timeoutTimer)
  clearTimeout(graceTimer)
  clearTimeout(drainTimer)
  options.signal?.removeEventListener('abort', onAbort)
  let escaped: EscapedProcess[] = []
  if (pgid !== undefined) {
    // The main process is gone and the pipes are closed or drained: nothing of the group may outlive the check,
    // nor anything it started that left the group.
    killGroup(pgid, 'SIGKILL')
    // A short check cannot have gone through the whole pid space: only pids handed out since its own are read.
    escaped = killTagged(SPAWN_TAG_ENV, tag, pgid, elapsed() < FULL_SWEEP_AFTER_MS ? pgid : undefined)
    liveGroups.delete(pgid)
    groupsChanged()
  }

  let error: string | null = null
  const code = result.error?.code
  if (code === 'ENOENT') error = `command not found: ${file} (is it installed and on PATH?)`
  else if (code === 'EACCES') error = `permission denied running ${file}`
  else if (result.error) error = `could not start \`${describeCommand(command)}\`: ${result.error.message}`
  return {
    exitCode: error ? null : result.code,
    signal: result.signal,
    timedOut,
    cancelled: cancelled && !timedOut,
    error,
    durationMs: elapsed(),
    ...(escaped.length > 0 ? { escaped } : {}),
    ...(outputHeld ? { outputHeld } : {}),
  }
}
