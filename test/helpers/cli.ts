// Shared helpers of the end-to-end tests: spawn the built CLI with a deadline, sandbox folders,
// evidence reading, and pid liveness. Every test gets a fresh folder for its evidence, logs and pid files.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CheckResult, EvidenceFile } from '../../src/types.js'
import { cliEnvironment, runCliInProcess } from './in-process.js'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const BIN = join(ROOT, 'bin', 'verify.cjs')

export function fixture(name: string): string {
  return join(ROOT, 'fixtures', name)
}

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  durationMs: number
  /** The test's own deadline hit and the CLI had to be killed. */
  killedByTest: boolean
}

export interface CliOptions {
  /** Working directory of the CLI process (default: the package root). */
  cwd?: string
  /** Variables added to (or, when undefined, removed from) the environment. */
  env?: Record<string, string | undefined>
  /** Deadline for the CLI; past it the CLI gets SIGTERM, then SIGKILL 2 s later. Default 20 s. */
  timeoutMs?: number
}

export interface RunningCli {
  child: ChildProcess
  done: Promise<CliResult>
}

const running = new Set<ChildProcess>()

/** Starts `node bin/verify.cjs ...args`; `done` settles when it exits (or is killed at the deadline). */
export function startCli(args: readonly string[], options: CliOptions = {}): RunningCli {
  const started = performance.now()
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: cliEnvironment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (stdout += text))
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  let killedByTest = false
  const deadline = setTimeout(() => {
    killedByTest = true
    child.kill('SIGTERM')
    setTimeout(() => child.kill('SIGKILL'), 2000).unref()
  }, options.timeoutMs ?? 20_000)
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(deadline)
      running.delete(child)
      resolve({ code, signal, stdout, stderr, durationMs: Math.round(performance.now() - started), killedByTest })
    })
  })
  return { child, done }
}

/** What to show when an exit code is not the expected one: the CLI's stderr and the end of its stdout. */
export function diagnose(result: CliResult): string {
  return `exit ${result.code}${result.signal ? ` (${result.signal})` : ''}; stderr:\n${result.stderr}\nstdout (end):\n${result.stdout.slice(-2000)}`
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done
}

/** A fresh folder for one test: evidence, logs and pid files. Removed (and its pids killed) by `cleanup()`. */
export interface Sandbox {
  dir: string
  evidencePath: string
  logDir: string
  /** Runs the CLI with `--evidence <dir>/evidence.json --no-color` and `E2E_TMP=<dir>` in its environment. */
  run(args: readonly string[], options?: CliOptions): Promise<CliResult>
  start(args: readonly string[], options?: CliOptions): RunningCli
  /** The evidence file the run wrote, parsed. */
  evidence(): EvidenceFile
  check(id: string): CheckResult
  path(name: string): string
}

const sandboxes: string[] = []

/** With `inProcess`, `run` goes through `cli()` in this process (test/helpers/in-process.ts); `start` always spawns. */
export function sandbox(mode: { inProcess?: boolean } = {}): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'verify-e2e-'))
  sandboxes.push(dir)
  // The temp dir of the CLI and its checks: what a killed verify leaves there goes with the sandbox.
  const temp = join(dir, 'tmp')
  mkdirSync(temp)
  const evidencePath = join(dir, 'evidence.json')
  const withDefaults = (args: readonly string[], options: CliOptions = {}): [string[], CliOptions] => [
    [...args, '--evidence', evidencePath, '--no-color'],
    { ...options, env: { E2E_TMP: dir, TMPDIR: temp, ...options.env } },
  ]
  const box: Sandbox = {
    dir,
    evidencePath,
    logDir: join(dir, 'logs'),
    run: (args, runOptions) => (mode.inProcess ? runCliInProcess : runCli)(...withDefaults(args, runOptions)),
    start: (args, options) => startCli(...withDefaults(args, options)),
    evidence: () => readEvidence(evidencePath),
    check: (id) => {
      const found = box.evidence().checks.find((c) => c.id === id)
      if (!found) throw new Error(`no check "${id}" in ${evidencePath}`)
      return found
    },
    path: (name) => join(dir, name),
  }
  return box
}

export function readEvidence(path: string): EvidenceFile {
  return JSON.parse(readFileSync(path, 'utf8')) as EvidenceFile
}

/** Pids written one a line by the fixture scripts. */
export function readPids(file: string): number[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0)
}

/** Is the process alive? A zombie (exited, not yet reaped by its new parent) counts as dead. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The state follows the parenthesised command name, which may itself contain spaces or parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Pids still alive after waiting up to `withinMs` for them to die. */
export async function survivors(pids: readonly number[], withinMs = 500): Promise<number[]> {
  const until = Date.now() + withinMs
  for (;;) {
    const alive = pids.filter(isAlive)
    if (alive.length === 0 || Date.now() >= until) return alive
    await sleep(25)
  }
}

/** Resolves once `file` exists; rejects after `timeoutMs`. */
export async function waitForFile(file: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!existsSync(file)) {
    if (Date.now() >= until) throw new Error(`${file} did not appear within ${timeoutMs}ms`)
    await sleep(20)
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Lines of a stack trace, which a user-facing error must never show. */
export const STACK_LINE = /^\s+at /m

/** The exact bytes `fixtures/bin/noisy.mjs <total>` writes (numbered 100-byte lines, cut at `total`). */
export function noisyBytes(total: number): Buffer {
  const lines: string[] = []
  let length = 0
  for (let i = 0; length < total; i++) {
    const line = `noisy line ${String(i).padStart(8, '0')} `.padEnd(99, '.') + '\n'
    lines.push(line)
    length += line.length
  }
  return Buffer.from(lines.join('')).subarray(0, total)
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

/**
 * Kills what a test may have left: CLIs still running, and every pid listed in a sandbox's pid files
 * (a safety net; the tests assert that verify itself killed them). Then removes the sandboxes.
 */
export async function cleanup(): Promise<void> {
  for (const child of running) child.kill('SIGKILL')
  for (const dir of sandboxes.splice(0)) {
    if (!existsSync(dir)) continue
    // By the sandbox's tag, not by the pids its files name: those died long ago, as the tests expect, and the kernel
    // hands their numbers out again (32768 of them, a few minutes of this suite), to other tests' processes.
    for (const pid of processesWithEnv('E2E_TMP', dir)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone meanwhile.
      }
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Pids of live processes whose environment holds `KEY=value`: what a test left behind, whatever its group. */
export function processesWithEnv(key: string, value: string): number[] {
  const found: number[] = []
  const needle = `${key}=${value}`
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(needle)) found.push(Number(name))
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
}
