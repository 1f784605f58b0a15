// Runs a TypeScript function check with an AbortSignal and a timeout; a throw is an `error`, not a crash.
import { timerDelay } from '../duration.js'
import type { ResolvedCheck } from '../types.js'
import type { OutputCapture } from './capture.js'
import type { SpawnResult } from './spawn.js'

export interface FunctionRunOptions {
  cwd: string
  env: Record<string, string>
  runId: string
  signal?: AbortSignal
  capture: OutputCapture
}

export type FunctionRunResult = SpawnResult & { metadata?: Record<string, unknown> }

const TIMED_OUT = Symbol('timed out')
const CANCELLED = Symbol('cancelled')

export async function runFunctionCheck(check: ResolvedCheck, options: FunctionRunOptions): Promise<FunctionRunResult> {
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
    const outcome = await Promise.race([
      Promise.resolve().then(() => run({ cwd: options.cwd, signal: controller.signal, checkId: check.id, runId: options.runId, env: options.env })),
      limits,
    ])
    // A function that ignores its signal cannot be killed; the check is settled and its late result dropped.
    if (outcome === TIMED_OUT) return done({ timedOut: true })
    if (outcome === CANCELLED) return done({ cancelled: true })
    const result = typeof outcome === 'boolean' ? { passed: outcome } : outcome
    if (result === null || typeof result !== 'object' || typeof result.passed !== 'boolean') {
      return done({ error: 'the run function must return `true`, `false` or `{ passed: boolean, output?: string }`' })
    }
    if (typeof result.output === 'string' && result.output.length > 0) {
      options.capture.write(Buffer.from(result.output), 'stdout')
    }
    return done({ exitCode: result.passed ? 0 : 1, ...(result.metadata ? { metadata: jsonSafe(result.metadata) } : {}) })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return done({ error: `the run function threw: ${message}` })
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
  }
}

/** Metadata goes into the evidence file: what JSON cannot hold (BigInt, cycles) is replaced by a note, not a crash. */
function jsonSafe(metadata: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>
  } catch (error) {
    return { unserializable: `the metadata returned could not be stored as JSON: ${(error as Error).message}` }
  }
}
