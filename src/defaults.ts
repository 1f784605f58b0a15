// Every default verify applies, in one place: the config's resolution, the library entry points, the hook and the
// CLI's help read them from here, so a default is changed once and said the same way everywhere.
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'

export const DEFAULTS = {
  /** A check's time limit. */
  timeoutMs: 10 * 60_000,
  /** How long evidence stays fresh. */
  maxAgeMs: 5 * 60_000,
  /** From SIGTERM to SIGKILL when a check is stopped. */
  graceMs: 5_000,
  /** What a check's log may hold before its middle is cut. */
  logLimitBytes: 50 * 1024 * 1024,
  /** Loading the config, every layer. */
  configTimeoutMs: 30_000,
  /** Agents give a hook ten minutes unless told otherwise (Claude Code's default); verify answers within that. */
  hookBudgetMs: 10 * 60_000,
  /** Blocks in a row before an agent's stop goes through unverified. */
  hookMaxBlocks: 8,
} as const

/** Checks at once: one per core the process may use. */
export function defaultConcurrency(): number {
  return availableParallelism()
}

/** The folder verify writes in, relative to the project; left out of the workspace fingerprint. */
export const VERIFY_DIR = '.verify'

/** The evidence file when `--evidence` names none. */
export function defaultEvidencePath(rootDir: string): string {
  return join(rootDir, VERIFY_DIR, 'evidence.json')
}

/** Where the approvals of manual checks live: beside the evidence file. */
export function approvalsPathOf(evidencePath: string): string {
  return join(dirname(evidencePath), 'approvals.json')
}

/** Where the checks' full logs are written: `logs/` beside the evidence file. */
export function logDirOf(evidencePath: string): string {
  return join(dirname(evidencePath), 'logs')
}
