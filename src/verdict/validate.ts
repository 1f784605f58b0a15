// Judges stored evidence against the current protocol and workspace, without running anything (SPEC §6.1, §7). Every
// command that consumes a stored file (`check`, `run --reuse`, `approve`, `merge`) comes through here: the file is
// judged as a whole (judgeEvidenceFile), then each record by the one rule (checkEvidence).
import type { Approval } from '../evidence/approvals.js'
import { checkDigest } from '../evidence/digest.js'
import { checkFingerprint } from '../evidence/binding.js'
import { loadPicomatch } from '../evidence/globs.js'
import { checkResult } from '../evidence/record.js'
import { changedFiles } from '../evidence/fingerprint.js'
import type { CheckResult, Evidence, EvidenceFile, ResolvedProtocol, WorkspaceInfo } from '../types.js'
import { checkEvidence, type EvidenceValidity } from './check-evidence.js'
import { judgeEvidenceFile, type FileExpectations, type FileJudgement } from './evidence-file.js'

export interface StoredJudgement {
  /** The check's result as the stored evidence supports it now. */
  result: CheckResult
  validity: EvidenceValidity
  /** True when the stored evidence is valid, passing proof that can be reused. */
  reusable: boolean
}

export interface ValidateOptions {
  maxAgeMs: number
  now?: Date
  /** Approvals of manual checks (already filtered to the trusted ones): they take the place of stored records. */
  approvals?: ReadonlyMap<string, Approval>
  /** What the file must be to count (its protocol is the one judged); without it, the file is taken as it is. */
  expect?: Omit<FileExpectations, 'protocol'>
}

/** Each check's judgement, and the judgement of the file as a whole (null when there was no file). */
export interface StoredEvidence {
  checks: Map<string, StoredJudgement>
  file: FileJudgement | null
  /** The checks' results, in the protocol's order. */
  results: CheckResult[]
}

const EMPTY_OUTPUT = { text: '', bytes: 0, truncated: false, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }

/** Evidence with the fields the rules read; anything else is treated as missing rather than trusted or crashed on. */
function wellFormed(evidence: unknown): evidence is Evidence {
  const e = evidence as Evidence
  return (
    !!e &&
    typeof e === 'object' &&
    typeof e.type === 'string' &&
    typeof e.passed === 'boolean' &&
    typeof e.timestamp === 'string' &&
    typeof e.fingerprint === 'string' &&
    typeof e.checkDigest === 'string' &&
    !!e.output &&
    typeof e.output.text === 'string'
  )
}

/** Evidence recorded from a person's approval. */
export function approvalEvidence(approval: Approval): Evidence {
  return {
    type: approval.evidenceType,
    passed: true,
    command: null,
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 0,
    timestamp: approval.timestamp,
    fingerprint: approval.fingerprint,
    checkDigest: approval.checkDigest,
    output: { ...EMPTY_OUTPUT },
    error: null,
    approval: { by: approval.by, note: approval.note },
    metadata: {},
  }
}

/** Judges each check's stored evidence (or approval) against the protocol and workspace as they are now. */
export async function judgeStoredEvidence(
  protocol: ResolvedProtocol,
  file: EvidenceFile | null,
  workspace: WorkspaceInfo,
  options: ValidateOptions,
): Promise<Map<string, StoredJudgement>> {
  return (await acceptStoredEvidence(protocol, file, workspace, options)).checks
}

/** {@link judgeStoredEvidence}, with the file's own judgement and the results in order. */
export async function acceptStoredEvidence(
  protocol: ResolvedProtocol,
  file: EvidenceFile | null,
  workspace: WorkspaceInfo,
  options: ValidateOptions,
): Promise<StoredEvidence> {
  const source = file && options.expect ? judgeEvidenceFile(file, { protocol: protocol.name, ...options.expect }) : null
  // Keyed by id in a Map: `constructor` or `__proto__` are ids like any other.
  const stored = new Map((file?.checks ?? []).filter((c) => c && typeof c.id === 'string').map((c) => [c.id, c]))
  const oldTree = file?.workspace?.git?.tree
  const newTree = workspace.git?.tree
  const changed = oldTree && newTree && oldTree !== newTree ? await changedFiles(protocol.rootDir, oldTree, newTree) : null
  const judgements = new Map<string, StoredJudgement>()
  const picomatch = changed && protocol.checks.some((check) => check.inputs) ? await loadPicomatch() : null
  for (const check of protocol.checks) {
    const given = check.kind === 'manual' ? options.approvals?.get(check.id) : undefined
    // An approval names the check it was given for (and, with a key, signs that name): one copied under another
    // check's id is no approval of that check. `approvals: 'tty'`: one recorded without a terminal does not count.
    const why = !given ? null : given.checkId !== check.id ? 'another check' : protocol.approvals === 'tty' && given.tty !== true ? 'no terminal' : null
    const refused = why ? given : undefined
    const approval = refused ? undefined : given
    const previous = stored.get(check.id)
    const evidence = approval ? approvalEvidence(approval) : wellFormed(previous?.evidence) ? previous.evidence : null
    const context = {
      maxAgeMs: options.maxAgeMs,
      fingerprint: await checkFingerprint(check, protocol.rootDir, workspace),
      checkDigest: checkDigest(check, protocol),
      ...(options.now ? { now: options.now } : {}),
      ...(changed
        ? { changedFiles: check.inputs && picomatch ? changed.filter((path) => picomatch.isMatch(path, check.inputs as string[], { dot: true })) : changed }
        : {}),
      // An approval comes from approvals.json, not from the file: the file's trust does not decide it.
      ...(source && !approval ? { source } : {}),
    }
    const validity = checkEvidence(check, evidence, context)
    let result: CheckResult
    if (!evidence) {
      const status = check.kind === 'manual' ? 'pending_manual' : 'pending'
      const reason = refused
        ? why === 'another check'
          ? `the approval by ${refused.by} in approvals.json was not given for "${check.id}" (it names ${refused.checkId === undefined ? 'no check' : `"${refused.checkId}"`}): approve it again`
          : `the approval by ${refused.by} was recorded without a terminal; this protocol accepts only approvals given by a person at a terminal (approvals: 'tty')`
        : check.kind === 'manual'
          ? (check.manual ?? null)
          : 'no evidence recorded'
      result = checkResult(check, status, reason)
    } else if (validity.valid) {
      result = checkResult(check, 'passed', null, evidence)
    } else {
      // A recorded failure still bound to this code, in a file that counts, is a failure; anything else is stale.
      const onlyFailed = validity.issues.length === 1 && evidence.passed === false
      const recorded = previous?.status
      const settled = recorded !== undefined && !['passed', 'pending', 'running', 'stale'].includes(recorded)
      result = onlyFailed
        ? checkResult(check, settled ? recorded : 'failed', previous?.reason ?? 'its evidence records a failure', evidence)
        : checkResult(check, 'stale', validity.issues.map((i) => i.replace(`${check.name}: `, '')).join('; '), evidence)
    }
    judgements.set(check.id, { result, validity, reusable: validity.valid })
  }
  return { checks: judgements, file: source, results: protocol.checks.map((check) => (judgements.get(check.id) as StoredJudgement).result) }
}
