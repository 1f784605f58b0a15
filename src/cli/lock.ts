// Taking the evidence file's lock for a command that writes it (run, approve, merge): `--wait[=<duration>]`, the
// message when another run holds it, and release on every way out (return, throw, exit, SIGINT/SIGTERM/SIGHUP).
import { acquireEvidenceLock, type EvidenceLock, type LockHolder } from '../evidence/lock.js'
import { duration } from './args.js'
import { exitCodeOfSignal } from './exit-code.js'
import type { CliIO } from './io.js'

export interface HeldLock {
  release(): void
  /** Until the returned function is called, SIGINT/SIGTERM/SIGHUP release the lock and exit 130/143/129. */
  exitOnSignals(): () => void
  /** Says a stale lock of a dead run was taken over, for the summary's warnings; null otherwise. */
  note: string | null
}

/** `--wait` alone waits as long as it takes (flags.ts reads it as `--wait=`); `--wait=<duration>` at most that long. */
function waitMs(value: string | undefined): number {
  if (value === undefined) return 0
  if (value === '') return Number.POSITIVE_INFINITY
  return duration('wait', value) as number
}

function describe(holder: LockHolder): string {
  return `pid ${holder.pid}, \`${holder.command}\`, since ${holder.since}`
}

export async function lockEvidence(io: CliIO, evidencePath: string, wait: string | undefined, command: string): Promise<HeldLock> {
  const lock: EvidenceLock = await acquireEvidenceLock(evidencePath, {
    command,
    waitMs: waitMs(wait),
    onWait: (holder) => io.stderr(`verify: waiting for the run that holds ${evidencePath} (${describe(holder)})…\n`),
  })
  const release = () => {
    process.off('exit', release)
    lock.release()
  }
  process.on('exit', release)
  return {
    release,
    exitOnSignals() {
      const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
        const handler = () => {
          release()
          process.exit(exitCodeOfSignal(signal))
        }
        process.on(signal, handler)
        return [signal, handler] as const
      })
      return () => {
        for (const [signal, handler] of handlers) process.off(signal, handler)
      }
    },
    note: lock.tookOver ? `Took over the lock of ${evidencePath}: the run that held it (${describe(lock.tookOver)}) ended without releasing it.` : null,
  }
}
