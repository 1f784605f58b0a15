// Helpers of the reliability scenarios: the fixture project, the exact bytes of the flood fixture, and what the
// kernel says about a running verify (its memory high-water mark, its open files).
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fixture, sandbox, type CliOptions, type CliResult, type RunningCli, type Sandbox } from './cli.js'

export const PROJECT = fixture('reliability')
export const MIB = 1024 * 1024

/**
 * A sandbox whose runs use the reliability fixture project (cwd) and its own evidence, logs and pid files. With
 * `inProcess`, `verify` runs the CLI in the test's process (only the `marker` protocol reads $E2E_TMP at run time).
 */
export function scenario(mode: { inProcess?: boolean } = {}): Sandbox & {
  verify(args: readonly string[], options?: CliOptions): Promise<CliResult>
  spawn(args: readonly string[], options?: CliOptions): RunningCli
} {
  const box = sandbox(mode)
  return {
    ...box,
    verify: (args, options) => box.run(args, { cwd: PROJECT, ...options }),
    spawn: (args, options) => box.start(args, { cwd: PROJECT, ...options }),
  }
}

/** SHA-256 (hex) of what `fixtures/bin/flood-streams.mjs` writes in `total` bytes (lines, or one line of 'x'). */
export function floodSha256(total: number, oneLine = false): string {
  const line = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.\n'
  const block = Buffer.from(oneLine ? 'x'.repeat(64 * 1024) : line.repeat(1024))
  const hash = createHash('sha256')
  for (let left = total; left > 0; left -= block.length) hash.update(left >= block.length ? block : block.subarray(0, left))
  return hash.digest('hex')
}

/** The peak resident memory of a live process in KiB (VmHWM), or null once it is gone. */
export function peakRssKiB(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

/** Samples a process's VmHWM every 50 ms until it exits; resolves with the last (highest) value seen. */
export function watchPeakRss(pid: number): { stop(): number } {
  let peak = 0
  const timer = setInterval(() => {
    const now = peakRssKiB(pid)
    if (now !== null) peak = Math.max(peak, now)
  }, 50)
  return {
    stop() {
      clearInterval(timer)
      return peak
    },
  }
}

/** Open file descriptors of a live process. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length
}
