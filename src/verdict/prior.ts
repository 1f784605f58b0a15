// What a run can take from before it: valid evidence (--reuse, or checks left out), approvals of manual checks.
import { readApprovals, trustedApprovals } from '../evidence/approvals.js'
import type { EvidenceSession } from '../evidence/session.js'
import { readEvidenceFile, type ReadEvidenceResult } from '../evidence/store.js'
import { isFailing } from '../status.js'
import type { CheckResult, WorkspaceInfo } from '../types.js'
import { acceptStoredEvidence } from './validate.js'

export interface PriorOptions {
  /** The evidence file as the command read it, under its lock; read here when not given. */
  stored?: ReadEvidenceResult
  /** Reuse every check's valid evidence instead of running it. */
  reuse: boolean
  /** The checks this run selected (--only / --skip); the others keep only valid evidence. */
  selected: ReadonlySet<string>
  /** This run is one shard: its own earlier file may be reused, another shard's or a whole run's may not. */
  shard?: { index: number; total: number }
}

export interface PriorResults {
  settled: Map<string, CheckResult>
  /** Why stored evidence could not be used, for the run's warnings (empty when it could, or was not asked for). */
  warnings: string[]
}

/**
 * Results settled before anything runs. Valid passing evidence is carried with `reused: true` and its original
 * timestamps, so it ages as it would have; stale evidence of a check left out is reported as stale, never as fresh.
 * The stored file is judged by the acceptance rule: with a key, an unsigned or altered file is used for nothing
 * (the new file will be signed, so unsigned input must not be laundered into it).
 */
export async function priorResults(
  context: Pick<EvidenceSession, 'loaded' | 'evidencePath' | 'approvalsPath' | 'signingKey'>,
  workspace: WorkspaceInfo,
  options: PriorOptions,
): Promise<PriorResults> {
  const { protocol } = context.loaded
  const approvals = trustedApprovals(await readApprovals(context.approvalsPath), context.signingKey)
  const partial = options.selected.size < protocol.checks.length
  const previous = options.reuse || partial ? (options.stored ?? (await readEvidenceFile(context.evidencePath))) : null
  const warnings: string[] = []
  // A missing file is the ordinary first run; anything else unusable is worth a sentence.
  if (previous && !previous.ok && !previous.reason.startsWith('no evidence at'))
    warnings.push(`Stored evidence was not used, every selected check runs: ${previous.reason}`)
  const judged = await acceptStoredEvidence(protocol, previous?.ok ? previous.file : null, workspace, {
    maxAgeMs: protocol.maxAgeMs,
    approvals,
    expect: { signingKey: context.signingKey, ...(options.shard ? { shard: options.shard } : {}) },
  })
  if (judged.file && !judged.file.accepted) warnings.push(`Stored evidence was not used, every selected check runs: ${judged.file.issues.join('; ')}`)
  const settled = new Map<string, CheckResult>()
  for (const check of protocol.checks) {
    const judgement = judged.checks.get(check.id)
    if (!judgement) continue
    if (check.kind === 'manual') {
      if (approvals.has(check.id)) settled.set(check.id, judgement.result)
      continue
    }
    const left = !options.selected.has(check.id)
    if (!options.reuse && !left) continue
    const { result } = judgement
    if (judgement.reusable && result.evidence) settled.set(check.id, { ...result, evidence: { ...result.evidence, reused: true } })
    // A check left out keeps what is known of it: stale evidence as stale, a failure still bound to this code as failed,
    // marked as carried over (`reused`) so that no reporter shows it as a run of now.
    else if (left && result.status === 'stale') settled.set(check.id, result)
    else if (left && isFailing(result.status)) settled.set(check.id, result.evidence ? { ...result, evidence: { ...result.evidence, reused: true } } : result)
  }
  return { settled, warnings }
}
