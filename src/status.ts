// The check statuses and the verdicts, each listed once: the types, the evidence schema's enums and every rule over
// them (which statuses are failures) are built from these lists.

/** Statuses a written evidence file holds. */
export const WRITTEN_STATUSES = ['passed', 'failed', 'timed_out', 'error', 'cancelled', 'skipped', 'pending_manual', 'stale'] as const

/** Every status of a check: `pending` and `running` exist only while a run is under way, never in a written file. */
export const CHECK_STATUSES = ['pending', 'running', ...WRITTEN_STATUSES] as const

/** What a run or a stored file comes to (SPEC §6.2). */
export const VERDICTS = ['approved', 'rejected', 'incomplete'] as const

/** `pending` and `running` exist only while a run is under way; a written evidence file never holds them. */
export type CheckStatus = (typeof CHECK_STATUSES)[number]

/** A status a written evidence file holds. */
export type WrittenStatus = (typeof WRITTEN_STATUSES)[number]

export type Verdict = (typeof VERDICTS)[number]

const WRITTEN: ReadonlySet<string> = new Set(WRITTEN_STATUSES)

/** Whether a written evidence file may hold the status (it is not `pending` or `running`). */
export function isWritten(status: CheckStatus): status is WrittenStatus {
  return WRITTEN.has(status)
}

/** Statuses that make the verdict `rejected` when the check is required (any check, under strictMode). */
export const FAILING: ReadonlySet<CheckStatus> = new Set(['failed', 'timed_out', 'error'])

export function isFailing(status: CheckStatus): boolean {
  return FAILING.has(status)
}
