// Records another writer added to the evidence file while a run ran (a test runner's reporter recording the test
// check), so that the run's own write does not lose them.
import type { CheckResult, EvidenceFile } from '../types.js'

const time = (iso: string | undefined) => (iso ? Date.parse(iso) : Number.NaN)

/**
 * The run's checks with each one replaced by the stored record when that record was written during the run and is
 * newer than what the run holds for it (nothing, evidence carried from before, or an older result). Null when there
 * is nothing to take.
 */
export function newerStoredRecords(file: EvidenceFile, stored: EvidenceFile): CheckResult[] | null {
  if (stored.protocol?.name !== file.protocol.name) return null
  const since = time(file.startedAt)
  const onDisk = new Map(stored.checks.map((c) => [c.id, c]))
  let taken = false
  const checks = file.checks.map((own) => {
    const other = onDisk.get(own.id)
    const at = time(other?.evidence?.timestamp)
    if (!other?.evidence || other.evidence.reused || !(at > since)) return own
    if (own.evidence && !own.evidence.reused && time(own.evidence.timestamp) >= at) return own
    taken = true
    return other
  })
  return taken ? checks : null
}
