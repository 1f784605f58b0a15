// Assembles the evidence file (SPEC §5) from a finished checklist, and each check's record in it.
import { isWritten } from '../status.js'
import type { CheckResult, CheckStatus, Checklist, Evidence, EvidenceFile, ResolvedCheck, Summary, WrittenCheckResult } from '../types.js'
import { TOOL } from '../version.js'
import { protocolDigest } from './digest.js'

/** A check's result record: what the check is, how it ended, why, and its evidence. */
export function checkResult(
  check: Pick<ResolvedCheck, 'id' | 'name' | 'evidenceType' | 'required'>,
  status: CheckStatus,
  reason: string | null = null,
  evidence: Evidence | null = null,
): CheckResult {
  return { id: check.id, name: check.name, evidenceType: check.evidenceType, required: check.required, status, reason, evidence }
}

export function buildEvidenceFile(checklist: Checklist, summary: Summary, interrupted?: string | null): EvidenceFile {
  const { protocol } = checklist
  const now = new Date().toISOString()
  const finishedAt = checklist.finishedAt ?? now
  const file: EvidenceFile = {
    schemaVersion: 1,
    tool: { ...TOOL },
    protocol: { name: protocol.name, digest: protocolDigest(protocol), strictMode: protocol.strictMode },
    workspace: checklist.workspace ?? { fingerprint: 'sha256:unknown', git: null },
    runId: checklist.runId,
    startedAt: checklist.startedAt ?? now,
    finishedAt,
    // The age of evidence counts from the end of the run that recorded it; reused evidence keeps its own run's end.
    checks: writtenChecks(checklist.results).map((result) => {
      const { evidence } = result
      const recordedNow = evidence && !evidence.reused && evidence.runFinishedAt === undefined
      return recordedNow ? { ...result, evidence: { ...evidence, runFinishedAt: finishedAt } } : { ...result }
    }),
    summary,
  }
  if (interrupted) file.interrupted = interrupted
  return file
}

/**
 * The results as a written file holds them. `pending` and `running` exist only while a run is under way: a check still
 * in one of them when a file is written (a checklist handed over before it settled) never ran, or did not finish.
 */
export function writtenChecks(results: readonly CheckResult[]): WrittenCheckResult[] {
  return results.map((result) => {
    const { status } = result
    if (isWritten(status)) return { ...result, status }
    return status === 'pending'
      ? { ...result, status: 'skipped', reason: result.reason ?? 'never ran: the file was written before it started' }
      : { ...result, status: 'cancelled', reason: result.reason ?? 'did not finish: the file was written while it ran' }
  })
}
