// Runs a function check. One loaded from a config runs in a process of its own (function-process.ts), supervised like
// a command; one of a protocol built in memory cannot be loaded again elsewhere and runs here, in verify's process,
// with an AbortSignal and a timeout: a throw is an `error`, not a crash (docs/function-checks.md says what it cannot do).
import { timerDelay } from '../duration.js'
import type { ProtocolSource, ResolvedCheck } from '../types.js'
import type { OutputCapture } from './capture.js'
import { runFunctionProcess } from './function-process.js'
import { returnedOutcome, thrownOutcome } from './function-result.js'
import type { SpawnResult } from './spawn.js'

export interface FunctionRunOptions {
  cwd: string
  env: Record<string, string>
  runId: string
  signal?: AbortSignal
  capture: OutputCapture
  /** Where the protocol was loaded from; without it the check runs in this process. */
  source?: ProtocolSource
  /** The check's digest, which its own process must find again. */
  checkDigest?: string
  /** The environment the config was loaded with, before the check's own variables. */
  loadEnv?: Record<string, string>
  graceMs?: number
}

export type FunctionRunResult = SpawnResult & {
  metadata?: Record<string, unknown>
  /** Timed out in this process: the function could not be stopped, only left behind. */
  abandoned?: boolean
}

const TIMED_OUT = Symbol('timed out')
const CANCELLED = Symbol('cancelled')

export async function runFunctionCheck(check: ResolvedCheck, options: FunctionRunOptions): Promise<FunctionRunResult> {
  if (options.source && options.checkDigest) {
    return runFunctionProcess(check, {
      ...options,
      source: options.source,
      checkDigest: options.checkDigest,
      graceMs: options.graceMs ?? 5000,
      loadEnv: options.loadEnv ?? options.env,
    })
  }
  return runInProcess(check, options)
}

async function runInProcess(check: ResolvedCheck, options: FunctionRunOptions): Promise<FunctionRunResult> {
  const started = performance.now()
  const base = { exitCode: null, signal: null, timedOut: false, cancelled: false, error: null }
  const done = (extra: Partial<FunctionRunResult>): FunctionRunResult => ({ ...base, ...extra, durationMs: Math.round(performance.now() - started) })
  const controller = new AbortController()
  const onAbort = () => controller.abort(options.signal?.reason)
  if (options.signal?.aborted) return done({ cancelled: true })
  options.signal?.addEventListener('abort', onAbort, { once: true })

  let timer: NodeJS.Timeout | undefined
  const limits = new Promise<typeof TIMED_OUT | typeof CANCELLED>((resolve) => {
    timer = setTimeout(() => {
      // Settle as timed out before aborting: the abort listener below would otherwise win as "cancelled".
      resolve(TIMED_OUT)
      controller.abort(new Error(`timed out after ${check.timeoutMs}ms`))
    }, timerDelay(check.timeoutMs))
    controller.signal.addEventListener('abort', () => resolve(CANCELLED), { once: true })
  })
  try {
    const run = check.run as NonNullable<ResolvedCheck['run']>
    const returned = await Promise.race([
      Promise.resolve().then(() => run({ cwd: options.cwd, signal: controller.signal, checkId: check.id, runId: options.runId, env: options.env })),
      limits,
    ])
    // A function that ignores its signal cannot be killed here; the check is settled and its late result dropped.
    if (returned === TIMED_OUT) return done({ timedOut: true, abandoned: true })
    if (returned === CANCELLED) return done({ cancelled: true })
    const outcome = returnedOutcome(returned)
    if ('error' in outcome) return done({ error: outcome.error })
    if (outcome.output) options.capture.write(Buffer.from(outcome.output), 'stdout')
    return done({ exitCode: outcome.passed ? 0 : 1, ...(outcome.metadata ? { metadata: outcome.metadata } : {}) })
  } catch (error) {
    return done(thrownOutcome(error))
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
  }
}
