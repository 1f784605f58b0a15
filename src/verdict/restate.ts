// A stored evidence file restated against the protocol and the code as they are now, before another writer (a test
// runner's reporter) writes it back with one record changed: the file never claims more than holds.
import type { Approval } from '../evidence/approvals.js'
import { writtenChecks } from '../evidence/record.js'
import type { CheckResult, EvidenceFile, ResolvedProtocol, WorkspaceInfo, WrittenCheckResult } from '../types.js'
import { acceptStoredEvidence } from './validate.js'

export interface Restated {
  /** The stored file, when its records may be carried over (right protocol, signed with the key when one is set). */
  base: EvidenceFile | null
  /** Every check of the protocol, judged again; a check with no evidence keeps what the file recorded, else skipped. */
  checks: CheckResult[]
}

export async function restateChecks(
  protocol: ResolvedProtocol,
  file: EvidenceFile | null,
  workspace: WorkspaceInfo,
  approvals: ReadonlyMap<string, Approval>,
  signingKey: string | undefined,
): Promise<Restated> {
  const options = { maxAgeMs: protocol.maxAgeMs, approvals, expect: { signingKey } }
  let judged = await acceptStoredEvidence(protocol, file, workspace, options)
  // A file that does not count (another protocol, a shard, not signed with the key) is not carried into the new one.
  const base = judged.file && !judged.file.accepted ? null : file
  if (!base && file) judged = await acceptStoredEvidence(protocol, null, workspace, options)
  const checks = keepRecorded(judged.results, base?.checks ?? [], 'no evidence recorded')
  return { base, checks }
}

/**
 * Judged results in which a check without evidence (`pending`) keeps what the stored file recorded of it (skipped
 * after a failed dependency, cancelled…), else is skipped for `reason`: a written file never holds `pending`.
 */
export function keepRecorded(results: readonly CheckResult[], recorded: readonly CheckResult[], reason: string): WrittenCheckResult[] {
  const byId = new Map(recorded.map((r) => [r.id, r]))
  return writtenChecks(
    results.map((result) => (result.status !== 'pending' ? result : (byId.get(result.id) ?? { ...result, status: 'skipped' as const, reason }))),
  )
}
