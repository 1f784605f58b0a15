// What a report shows of a run: the evidence as recorded (masked), and for a `--shard i/n` job only the checks it
// ran — its reports speak for its own share, not for the whole protocol (whose verdict only `verify merge` gives).
import { shareSummary } from '../verdict/run-summary.js'
import type { RunOutcome } from './types.js'

/**
 * The run as the evidence file records it — results and summary with secrets masked — limited to the shard's
 * checks when it is a shard. Reports written to files do not pass through the masked output, so they read this.
 */
export function ownShare(run: RunOutcome): RunOutcome {
  const outcome: RunOutcome = { ...run, checklist: { ...run.checklist, results: run.file.checks }, summary: run.file.summary }
  const shard = outcome.file.shard
  if (!shard) return outcome
  const own = new Set(shard.checks)
  const results = outcome.checklist.results.filter((r) => own.has(r.id))
  const summary = shareSummary(results, outcome.checklist.protocol.strictMode, own, { interrupted: outcome.interrupted !== null })
  return { ...outcome, checklist: { ...outcome.checklist, results }, summary }
}

/** `shard 1/3 of protocol x` or `protocol x`. */
export function scopeLabel(outcome: RunOutcome): string {
  const shard = outcome.file.shard
  const protocol = `protocol ${outcome.checklist.protocol.name}`
  return shard ? `shard ${shard.index}/${shard.total} of ${protocol}` : protocol
}
