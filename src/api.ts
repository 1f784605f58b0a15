// The seed's entry points as thin, typed wrappers over the engine.
import { randomUUID } from 'node:crypto'
import type { CheckDefinition } from './config/define.js'
import { resolveProtocol } from './config/resolve.js'
import { DEFAULTS } from './defaults.js'
import { checkDigest } from './evidence/digest.js'
import { checkFingerprint } from './evidence/binding.js'
import { workspaceFingerprint } from './evidence/fingerprint.js'
import { checkResult } from './evidence/record.js'
import { executeCheck } from './runner/run-check.js'
import { baseEnvironment, runChecks, type RunOptions } from './runner/schedule.js'
import type { CheckResult, Checklist, Environment, ResolvedCheck, ResolvedProtocol, Summary } from './types.js'
import { summarize } from './verdict/summary.js'

/** A check of the array form: a definition with its id. */
export type CheckWithId = CheckDefinition & { id: string }

/** Builds a protocol from an array of checks (the seed's form). Throws VerifyConfigError when invalid. */
export function createProtocol(
  name: string,
  description: string,
  checks: readonly CheckWithId[],
  strictMode = false,
  rootDir: string = process.cwd(),
): ResolvedProtocol {
  const keyed = Object.fromEntries(checks.map(({ id, ...check }) => [id, check]))
  return resolveProtocol({ name, description, strictMode, checks: keyed }, { rootDir, source: `protocol "${name}"` })
}

export interface RunSingleCheckOptions {
  /** The folder the protocol belongs to, for the check's digest (default: the check's cwd). */
  rootDir?: string
  signal?: AbortSignal
  env?: Environment
  /** Folder for the full output log; none by default. */
  logDir?: string | null
  graceMs?: number
  logLimitBytes?: number
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void
}

/** Runs one check outside a checklist. A manual check comes back `pending_manual`. */
export async function runSingleCheck(check: ResolvedCheck, options: RunSingleCheckOptions = {}): Promise<CheckResult> {
  if (check.kind === 'manual') return checkResult(check, 'pending_manual', check.manual ?? null)
  const rootDir = options.rootDir ?? check.cwd
  const workspace = await workspaceFingerprint(rootDir)
  const env = baseEnvironment(options.env ?? process.env)
  return executeCheck(check, {
    runId: randomUUID(),
    graceMs: options.graceMs ?? DEFAULTS.graceMs,
    logDir: options.logDir ?? null,
    logLimitBytes: options.logLimitBytes ?? DEFAULTS.logLimitBytes,
    fingerprint: await checkFingerprint(check, rootDir, workspace),
    checkDigest: checkDigest(check, { rootDir }),
    baseEnv: env,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
  })
}

/** Runs every check of the checklist (its results are updated in place) and returns the summary with the verdict. */
export async function runVerification(checklist: Checklist, options: RunOptions = {}): Promise<Summary> {
  const run = await runChecks(checklist, options)
  const summary = summarize(checklist.results, checklist.protocol.strictMode, { interrupted: run.interrupted, ...(run.logDir ? { logDir: run.logDir } : {}) })
  summary.warnings.push(...run.warnings)
  return summary
}
