// Which check statuses are failures: one set, read by the runner (fail-fast), the verdict and every reporter.
import type { CheckStatus } from './types.js'

/** Statuses that make the verdict `rejected` when the check is required (any check, under strictMode). */
export const FAILING: ReadonlySet<CheckStatus> = new Set(['failed', 'timed_out', 'error'])

export function isFailing(status: CheckStatus): boolean {
  return FAILING.has(status)
}
