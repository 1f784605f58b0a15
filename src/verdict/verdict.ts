// The verdict, in one place, by one rule (SPEC §6.2). Everything else asks this function.
import { isFailing } from '../status.js'
import type { CheckResult, CheckStatus, Verdict } from '../types.js'

const RAN: ReadonlySet<CheckStatus> = new Set(['passed', 'failed', 'timed_out', 'error'])

export interface VerdictOptions {
  strictMode: boolean
  /** An interrupted run proves nothing either way. */
  interrupted?: boolean
  /** The stored evidence failed its integrity check (a signature that does not verify): forged proof rejects. */
  tampered?: boolean
  /** The results are one share of the protocol (a shard): a share never approves the whole. */
  partial?: boolean
}

/**
 * Whether a result holds the verdict back — an issue, not only a warning: a required check that did not pass, or
 * under strictMode any check that failed. Reporters and the summary ask this, never `required` alone.
 */
export function isBlocking(result: Pick<CheckResult, 'status' | 'required'>, strictMode: boolean): boolean {
  return result.status !== 'passed' && (result.required || (strictMode && isFailing(result.status)))
}

/**
 * rejected: the stored evidence failed its integrity check, or a required check failed, timed out or errored (any
 * check, under strictMode);
 * incomplete: a required check has no valid passing evidence, nothing ran, the run was interrupted, or the results
 * are only a shard's share;
 * approved: otherwise. Optional checks that failed or were skipped only warn.
 */
export function computeVerdict(results: readonly Pick<CheckResult, 'status' | 'required'>[], options: VerdictOptions): Verdict {
  if (options.tampered) return 'rejected'
  if (options.interrupted) return 'incomplete'
  if (results.some((r) => isFailing(r.status) && isBlocking(r, options.strictMode))) return 'rejected'
  if (options.partial) return 'incomplete'
  if (results.length === 0 || !results.some((r) => RAN.has(r.status))) return 'incomplete'
  if (results.some((r) => isBlocking(r, options.strictMode))) return 'incomplete'
  return 'approved'
}
