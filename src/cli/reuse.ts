// What a run can take from before it: valid evidence (--reuse, or checks left out), approvals of manual checks.
import { readApprovals, trustedApprovals } from '../evidence/approvals.js'
import { verifySignature } from '../evidence/sign.js'
import { readEvidenceFile } from '../evidence/store.js'
import type { CheckResult, WorkspaceInfo } from '../types.js'
import { judgeStoredEvidence } from '../verdict/validate.js'
import { isFailing } from '../verdict/verdict.js'
import type { CommandContext } from './context.js'

export interface PriorOptions {
  /** Reuse every check's valid evidence instead of running it. */
  reuse: boolean
  /** The checks this run selected (--only / --skip); the others keep only valid evidence. */
  selected: ReadonlySet<string>
}

/**
 * Results settled before anything runs. Valid passing evidence is carried with `reused: true` and its original
 * timestamp, so it ages as it would have; stale evidence of a check left out is reported as stale, never as fresh.
 */
export async function priorResults(context: CommandContext, workspace: WorkspaceInfo, options: PriorOptions): Promise<Map<string, CheckResult>> {
  const { protocol } = context.loaded
  const approvals = trustedApprovals(await readApprovals(context.approvalsPath), context.signingKey)
  const partial = options.selected.size < protocol.checks.length
  const previous = options.reuse || partial ? await readEvidenceFile(context.evidencePath) : null
  // Evidence of another protocol proves nothing about this one; with a key, neither does evidence not signed with
  // it (the new file will be signed, so unsigned input must not be laundered into it).
  const trusted = previous?.ok && (!context.signingKey || verifySignature(previous.file, context.signingKey).valid)
  const file = previous?.ok && trusted && previous.file.protocol?.name === protocol.name ? previous.file : null
  const judgements = await judgeStoredEvidence(protocol, file, workspace, { maxAgeMs: protocol.maxAgeMs, approvals })
  const settled = new Map<string, CheckResult>()
  for (const check of protocol.checks) {
    const judgement = judgements.get(check.id)
    if (!judgement) continue
    if (check.kind === 'manual') {
      if (approvals[check.id]) settled.set(check.id, judgement.result)
      continue
    }
    const left = !options.selected.has(check.id)
    if (!options.reuse && !left) continue
    const { result } = judgement
    if (judgement.reusable && result.evidence) settled.set(check.id, { ...result, evidence: { ...result.evidence, reused: true } })
    // A check left out keeps what is known of it: stale evidence as stale, a failure still bound to this code as failed.
    else if (left && (result.status === 'stale' || isFailing(result.status))) settled.set(check.id, result)
  }
  return settled
}
