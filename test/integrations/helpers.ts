// Helpers of the test-runner integration tests: a fixture project (copied, with `verify-protocol`, `vitest` and
// `jest` linked into its node_modules as an installed package would be) and real Vitest / Jest runs in it, each in
// its own process group, bounded in time, with none of this suite's own Vitest variables leaking into them.
import { spawn, type ChildProcess } from 'node:child_process'
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { INHERITED } from '../setup/env.js'
import { ROOT } from '../helpers/cli.js'
import { project, type Project } from '../helpers/project.js'

export const VITEST_BIN = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
export const JEST_BIN = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js')

/** A fixture project that has verify-protocol, vitest, jest and typescript installed. */
export function runnerProject(name: string, options: { git?: boolean } = {}): Project {
  const p = project(name, options)
  for (const tool of ['vitest', 'jest', 'typescript']) symlinkSync(join(ROOT, 'node_modules', tool), join(p.dir, 'node_modules', tool), 'dir')
  return p
}

// What the Vitest that runs this suite sets in its workers, and what would make a tool pick another mode.
const OUTER = /^(?:VITEST.*|TEST|NODE_ENV|MODE|DEV|PROD|SSR|BASE_URL|FORCE_TTY|JEST_WORKER_ID|VERIFY_CHECK_ID|VERIFY_RUN_ID|VERIFY_LOG_DIR|CI|FORCE_COLOR)$/

/** The outer Vitest's variables, each set to undefined: pass as `env` to the e2e helpers' CLI runs to remove them. */
export function withoutOuterVitest(): Record<string, undefined> {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((key) => OUTER.test(key))
      .map((key) => [key, undefined]),
  )
}

/** This process's environment without the outer Vitest's variables, plus `extra` (undefined removes). */
export function toolEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!OUTER.test(key) && !INHERITED.includes(key)) env[key] = value
  env.NO_COLOR = '1'
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

export interface ToolResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface RunningTool {
  child: ChildProcess
  output(): string
  done: Promise<ToolResult>
  /** Ends the whole process group. */
  stop(): void
}

const started = new Set<number>()

/** Starts `node <script> ...args` in `cwd`, in a process group of its own, killed at the deadline (default 60 s). */
export function startTool(
  script: string,
  args: readonly string[],
  cwd: string,
  options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): RunningTool {
  const child = spawn(process.execPath, [script, ...args], { cwd, env: toolEnvironment(options.env), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const pid = child.pid as number
  started.add(pid)
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (stdout += text))
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  const stop = () => killGroup(pid)
  const deadline = setTimeout(stop, options.timeoutMs ?? 60_000)
  const done = new Promise<ToolResult>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(deadline)
      resolve({ code, stdout, stderr })
    })
  })
  return { child, output: () => stdout + stderr, done, stop }
}

export function runTool(
  script: string,
  args: readonly string[],
  cwd: string,
  options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<ToolResult> {
  return startTool(script, args, cwd, options).done
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

/** Is any process of the group still there? */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/** Kills every process group a test started and left (a safety net; tests assert their own cleanup). */
export function killTools(): void {
  for (const pid of started) killGroup(pid)
  started.clear()
}

/** Waits until `condition` holds (polled every 100 ms; a throw counts as not yet), else fails with `diagnose()`. */
export async function until(condition: () => boolean, diagnose: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      if (condition()) return
    } catch {
      // Not written yet, or being replaced.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting; output:\n${diagnose()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
