// What a `run` function's outcome is, in the same words whether it ran in verify's process or in one of its own.
import type { ProtocolSource } from '../types.js'

/** What a function check came to: its returned result, or why it has none. */
export type FunctionOutcome = { passed: boolean; output?: string; metadata?: Record<string, unknown> } | { error: string }

/** The environment variable that hands a function check's process its request. */
export const REQUEST_ENV = 'VERIFY_FUNCTION_REQUEST'

/** What verify asks of a function check's process. */
export interface FunctionRequest {
  source: ProtocolSource
  checkId: string
  runId: string
  /** The check's digest as verify loaded it: the process must find the same check. */
  checkDigest: string
  /** The digest of the config files the function was loaded from (ResolvedCheck.definedIn): did they change since? */
  definedIn?: string
  /** Variables the check's environment changed, with the value they had when verify loaded the config (null: unset). */
  loadEnv: Record<string, string | null>
  /** Where the process writes its FunctionOutcome as JSON; the output it returned goes beside it (outputFileOf). */
  resultFile: string
}

/** The returned output, apart from the result: verify reads it in chunks, so its size never weighs on verify's memory. */
export function outputFileOf(resultFile: string): string {
  return `${resultFile}.output`
}

/** The outcome of what `run` returned (`true`, `false` or `{ passed, output?, metadata? }`). */
export function returnedOutcome(value: unknown): FunctionOutcome {
  const result = typeof value === 'boolean' ? { passed: value } : value
  if (result === null || typeof result !== 'object' || typeof (result as { passed?: unknown }).passed !== 'boolean') {
    return { error: 'the run function must return `true`, `false` or `{ passed: boolean, output?: string }`' }
  }
  const { passed, output, metadata } = result as { passed: boolean; output?: unknown; metadata?: Record<string, unknown> }
  return {
    passed,
    ...(typeof output === 'string' && output.length > 0 ? { output } : {}),
    ...(metadata ? { metadata: jsonSafe(metadata) } : {}),
  }
}

export function thrownOutcome(error: unknown, how = 'threw'): { error: string } {
  return { error: `the run function ${how}: ${error instanceof Error ? error.message : String(error)}` }
}

/** Metadata goes into the evidence file: what JSON cannot hold (BigInt, cycles) is replaced by a note, not a crash. */
function jsonSafe(metadata: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>
  } catch (error) {
    return { unserializable: `the metadata returned could not be stored as JSON: ${(error as Error).message}` }
  }
}
