// The verdict, in one place, by one rule (SPEC §6.2). Everything else asks this function.
import { isFailing } from '../status.js'
import type { CheckResult, CheckStatus, Verdict } from '../types.js'

export { isFailing } from '../status.js'

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
 * rejected: the stored evidence failed its integrity check, or a required check failed, timed out or errored (any
 * check, under strictMode);
 * incomplete: a required check has no valid passing evidence, nothing ran, the run was interrupted, or the results
 * are only a shard's share;
 * approved: otherwise. Optional checks that failed or were skipped only warn.
 */
export function computeVerdict(results: readonly Pick<CheckResult, 'status' | 'required'>[], options: VerdictOptions): Verdict {
  if (options.tampered) return 'rejected'
  if (options.interrupted) return 'incomplete'
  if (results.some((r) => isFailing(r.status) && (r.required || options.strictMode))) return 'rejected'
  if (options.partial) return 'incomplete'
  if (results.length === 0 || !results.some((r) => RAN.has(r.status))) return 'incomplete'
  if (results.some((r) => r.required && r.status !== 'passed')) return 'incomplete'
  return 'approved'
}
