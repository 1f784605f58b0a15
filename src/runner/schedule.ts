// Runs a checklist: dependencies first, up to `concurrency` at once, fail-fast and interruption by cancellation.
import { randomUUID } from 'node:crypto'
import { relative } from 'node:path'
import { defaultEvidencePath, logDirOf } from '../defaults.js'
import { isFailing } from '../status.js'
import type { CheckResult, Checklist, Environment, Reporter, ResolvedCheck, ResolvedProtocol, WorkspaceInfo } from '../types.js'
import { checkDigest } from '../evidence/digest.js'
import { checkResult } from '../evidence/record.js'
import { protocolRedactor } from '../evidence/redact.js'
import { SIGNING_KEY_ENV } from '../evidence/sign.js'
import { checkFingerprint } from '../evidence/binding.js'
import { inputsWarnings, workspaceFingerprint } from '../evidence/fingerprint.js'

export interface RunOptions {
  /** Aborting it (e.g. on SIGINT) cancels running and unstarted checks. */
  signal?: AbortSignal
  reporter?: Reporter
  /** One at a time, in declaration order (dependencies still first). */
  sequential?: boolean
  /** Run only these ids (and what they depend on). */
  only?: readonly string[]
  /** Leave these ids out. */
  skip?: readonly string[]
  /** Run only this share of the protocol (`--shard i/n`); the other checks are skipped as run elsewhere. */
  shard?: { index: number; total: number; checks: ReadonlySet<string> }
  /** Folder of full output logs; null writes none. Default `<rootDir>/.verify/logs`. */
  logDir?: string | null
  /** The environment checks inherit. Default `process.env`. */
  env?: Environment
  /** Masks secrets in all captured text. */
  transform?: (text: string) => string
  /**
   * Results already settled before the run: valid evidence reused from an earlier run, approvals, stale evidence of
   * checks left out. These checks are not run.
   */
  settled?: ReadonlyMap<string, CheckResult>
  /** The workspace to bind evidence to; computed when omitted. */
  workspace?: WorkspaceInfo
  now?: () => Date
}

/** Variables never handed to a check. */
const WITHHELD_ENV = [SIGNING_KEY_ENV]

/** A fresh checklist: every check pending, nothing run. */
export function createChecklist(protocol: ResolvedProtocol): Checklist {
  return {
    protocol,
    runId: randomUUID(),
    startedAt: null,
    finishedAt: null,
    workspace: null,
    results: protocol.checks.map((check) => checkResult(check, 'pending')),
  }
}

/** Ids selected by --only (with their dependencies, transitively) minus --skip. */
export function selectChecks(checks: readonly ResolvedCheck[], only?: readonly string[], skip?: readonly string[]): Set<string> {
  const byId = new Map(checks.map((c) => [c.id, c]))
  const selected = new Set<string>()
  const add = (id: string) => {
    if (selected.has(id)) return
    selected.add(id)
    for (const dep of byId.get(id)?.dependsOn ?? []) add(dep)
  }
  for (const check of checks) if (!only || only.length === 0 || only.includes(check.id)) add(check.id)
  for (const id of skip ?? []) selected.delete(id)
  return selected
}

/** The environment every check starts from: defined values only, without what checks must never see. */
export function baseEnvironment(env: Environment): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !WITHHELD_ENV.includes(key)) out[key] = value
  }
  return out
}

/** What a run of the checks leaves beside the checklist's results, for the summary. */
export interface ChecksRun {
  interrupted: boolean
  /** The log folder relative to the project, for recommendations; absent when no logs are written. */
  logDir?: string
  /** Warnings found while running (an `inputs` pattern that matches no file). */
  warnings: string[]
}

/**
 * Runs every check of the checklist, updating its results in place. The runner only runs: the summary and verdict
 * are the verdict layer's (`runVerification` in api.ts joins the two).
 */
export async function runChecks(checklist: Checklist, options: RunOptions = {}): Promise<ChecksRun> {
  const { protocol } = checklist
  const reporter = options.reporter ?? {}
  const now = options.now ?? (() => new Date())
  checklist.startedAt = now().toISOString()
  const workspace = options.workspace ?? (await workspaceFingerprint(protocol.rootDir))
  checklist.workspace = workspace
  // Found while the checks run; a listing that fails fails their fingerprints too, with the reason.
  const warnings = inputsWarnings(protocol.rootDir, protocol.checks, workspace).catch((): string[] => [])
  const logDir = options.logDir === undefined ? logDirOf(defaultEvidencePath(protocol.rootDir)) : options.logDir
  const baseEnv = baseEnvironment(options.env ?? process.env)
  // Library callers get the same masking as the CLI unless they bring their own.
  const transform = options.transform ?? protocolRedactor(options.env ?? process.env, [protocol])
  const results = new Map(checklist.results.map((r) => [r.id, r]))
  const selected = selectChecks(protocol.checks, options.only, options.skip)
  const limit = options.sequential || !protocol.parallel ? 1 : Math.max(1, protocol.concurrency)

  // One controller stops everything: fail-fast or the caller's signal.
  const stopAll = new AbortController()
  let stopReason: string | null = null
  const onOuterAbort = () => {
    stopReason ??= `interrupted${typeof options.signal?.reason === 'string' ? ` by ${options.signal.reason}` : ''}`
    stopAll.abort()
  }
  if (options.signal?.aborted) onOuterAbort()
  options.signal?.addEventListener('abort', onOuterAbort, { once: true })

  // Skipping optional checks must never block a required one: optional checks it depends on still run.
  const neededByRequired = new Set<string>()
  const byId = new Map(protocol.checks.map((c) => [c.id, c]))
  const need = (id: string) => {
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      if (!neededByRequired.has(dep)) {
        neededByRequired.add(dep)
        need(dep)
      }
    }
  }
  for (const check of protocol.checks) if (check.required) need(check.id)

  await reporter.onRunStart?.(checklist)

  const settle = (check: ResolvedCheck, patch: Partial<CheckResult>) => {
    const result = results.get(check.id) as CheckResult
    Object.assign(result, patch)
    reporter.onCheckEnd?.(check, result)
  }
  for (const check of protocol.checks) {
    const prior = options.settled?.get(check.id)
    if (prior) settle(check, { status: prior.status, reason: prior.reason, evidence: prior.evidence })
    else if (options.shard && !options.shard.checks.has(check.id))
      settle(check, { status: 'skipped', reason: `runs in another shard (of ${options.shard.total})` })
    else if (!selected.has(check.id))
      settle(check, { status: 'skipped', reason: options.skip?.includes(check.id) ? 'left out with --skip' : 'not selected with --only' })
    else if (protocol.skipOptional && !check.required && !neededByRequired.has(check.id))
      settle(check, { status: 'skipped', reason: 'optional check skipped (skipOptional)' })
    else if (check.kind === 'manual') settle(check, { status: 'pending_manual', reason: check.manual ?? null })
  }

  const running = new Set<Promise<void>>()
  const start = (check: ResolvedCheck) => {
    const result = results.get(check.id) as CheckResult
    result.status = 'running'
    reporter.onCheckStart?.(check, result)
    const run = async (): Promise<CheckResult> => {
      const fingerprint = await checkFingerprint(check, protocol.rootDir, workspace)
      // What runs a check (spawning, capture, function checks, test reports) loads with the first check that runs:
      // a run that reuses every result needs none of it.
      const { executeCheck } = await import('./run-check.js')
      return executeCheck(check, {
        runId: checklist.runId,
        graceMs: protocol.graceMs,
        logDir,
        logLimitBytes: protocol.logLimitBytes,
        fingerprint,
        checkDigest: checkDigest(check, protocol),
        baseEnv,
        signal: stopAll.signal,
        ...(protocol.source ? { source: protocol.source } : {}),
        transform,
        onOutput: reporter.onCheckOutput ? (chunk, stream) => reporter.onCheckOutput?.(check, chunk, stream) : undefined,
        now,
      })
    }
    const task = (async () => {
      // Whatever goes wrong inside verify for one check (a spawn that throws, a log that cannot be opened) is that
      // check's error: the run goes on and the evidence is written.
      const outcome = await run().catch((error: unknown): CheckResult =>
        checkResult(check, 'error', `verify could not run it: ${error instanceof Error ? error.message : String(error)}`),
      )
      if (outcome.status === 'cancelled' && stopReason) outcome.reason = stopReason
      settle(check, outcome)
      if (protocol.failFast && check.required && isFailing(outcome.status) && !stopAll.signal.aborted) {
        stopReason = `cancelled by fail-fast: "${check.id}" ${outcome.status.replace('_', ' ')}`
        stopAll.abort()
      }
    })()
    const tracked = task.finally(() => running.delete(tracked))
    running.add(tracked)
  }

  for (;;) {
    let waiting = 0
    for (const check of protocol.checks) {
      const result = results.get(check.id) as CheckResult
      if (result.status !== 'pending') continue
      if (stopAll.signal.aborted) {
        settle(check, { status: 'cancelled', reason: stopReason })
        continue
      }
      const blocker = check.dependsOn
        .map((id) => results.get(id) as CheckResult)
        .find((dep) => dep.status !== 'pending' && dep.status !== 'running' && dep.status !== 'passed')
      if (blocker) {
        settle(check, { status: 'skipped', reason: `its dependency "${blocker.id}" did not pass (${blocker.status.replace('_', ' ')})` })
        continue
      }
      const ready = check.dependsOn.every((id) => results.get(id)?.status === 'passed')
      if (ready && running.size < limit) start(check)
      else waiting++
      // Sequential runs keep declaration order: nothing overtakes a check that waits for its turn.
      if (limit === 1 && running.size > 0) break
    }
    if (running.size === 0) {
      if (waiting === 0) break
      // Cannot happen with a validated protocol (no cycles, no unknown ids); guard against an endless loop.
      for (const check of protocol.checks) {
        if (results.get(check.id)?.status === 'pending') settle(check, { status: 'skipped', reason: 'its dependencies can never run' })
      }
      break
    }
    await Promise.race(running)
  }
  options.signal?.removeEventListener('abort', onOuterAbort)
  checklist.finishedAt = now().toISOString()
  return {
    interrupted: options.signal?.aborted ?? false,
    ...(logDir ? { logDir: relative(protocol.rootDir, logDir) || '.' } : {}),
    warnings: await warnings,
  }
}
