// Runs one command in its own process group and supervises it: timeout, cancellation, leftovers, stdin closed.
import { stat } from 'node:fs/promises'
import { spawn } from 'node:child_process'
import { timerDelay } from '../duration.js'
import type { OutputCapture } from './capture.js'

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
  /** How long output may keep flowing from leftovers after the main process exited. */
  drainMs?: number
}

export interface SpawnResult {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  cancelled: boolean
  /** Why the command could not run at all (missing binary, bad cwd), in words. */
  error: string | null
  durationMs: number
}

/** Process groups alive right now, so an interrupted `verify` can kill every one of them synchronously. */
const liveGroups = new Set<number>()

/** Sends a signal to every live process group. Safe to call from a signal or exit handler. */
export function killAllGroups(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pgid of liveGroups) killGroup(pgid, signal)
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
  const shell = typeof command === 'string'
  const [file, ...args] = shell ? [command] : (command as readonly string[])
  // Own process group (detached) so the whole tree can be signalled; stdin closed so nothing waits for input.
  const subprocess = spawn(file as string, args, {
    cwd: options.cwd,
    env: options.env,
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
  if (pgid !== undefined) liveGroups.add(pgid)

  let timedOut = false
  let cancelled = false
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
  const onAbort = () => {
    cancelled = true
    stop()
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

  // Once the main process exits, whatever is left of its group gets until the pipes close (at most drainMs).
  let drainTimer: NodeJS.Timeout | undefined
  subprocess.once('exit', () => {
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
    drainTimer = setTimeout(reap, options.drainMs ?? 2000)
  })

  const result = await closed
  clearTimeout(timeoutTimer)
  clearTimeout(graceTimer)
  clearTimeout(drainTimer)
  options.signal?.removeEventListener('abort', onAbort)
  if (pgid !== undefined) {
    // The main process is gone and the pipes are closed or drained: nothing of the group may outlive the check.
    killGroup(pgid, 'SIGKILL')
    liveGroups.delete(pgid)
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
  }
}
