// When does a stored record satisfy a check (SPEC §6.1)? One rule, used by every command that consumes stored evidence:
// type, outcome, freshness, binding, the kind-specific rules, and the trust of the file it came from. Every unmet
// condition is an issue and a recommendation.
import { dirname, relative } from 'node:path'
import { formatDuration } from '../duration.js'
import type { Evidence } from '../types.js'
import { EVIDENCE_RULES, type EvidenceCheck } from './evidence-rules.js'
import type { FileJudgement } from './evidence-file.js'

export type { EvidenceCheck } from './evidence-rules.js'

export interface EvidenceContext {
  /** Evidence older than this is stale (a manual check's approval excepted). */
  maxAgeMs: number
  /** The fingerprint the evidence must be bound to now (workspace, or the check's inputs); unchecked when omitted. */
  fingerprint?: string
  /** The check's current definition digest; unchecked when omitted. */
  checkDigest?: string
  now?: Date
  /** Files changed since the evidence was recorded, when known: named in the issue. */
  changedFiles?: readonly string[]
  /** How the file the record came from was judged (signature, protocol, shard): a file not accepted proves nothing. */
  source?: FileJudgement
}

export interface EvidenceValidity {
  valid: boolean
  issues: string[]
  recommendations: string[]
}

/** A few file names for a message: `a.ts, b.ts and 3 more`. */
export function nameFiles(files: readonly string[], max = 5): string {
  return `${files.slice(0, max).join(', ')}${files.length > max ? ` and ${files.length - max} more` : ''}`
}

/** Evidence may claim a time this far ahead of the clock (clock skew between machines); no further. */
export const FUTURE_TOLERANCE_MS = 30_000

/**
 * The instant the age of evidence counts from: the end of the run that recorded it (so a long run is fresh as a whole
 * when it ends), or the check's own end for records written before runs recorded theirs — whichever is later, as a
 * run never ends before its checks. NaN when either is unreadable.
 */
export function evidenceTime(evidence: Pick<Evidence, 'timestamp' | 'runFinishedAt'>): number {
  const ended = parseTime(evidence.timestamp)
  return evidence.runFinishedAt === undefined ? ended : Math.max(ended, parseTime(evidence.runFinishedAt))
}

function parseTime(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN
}

export function checkEvidence(check: EvidenceCheck, evidence: Evidence | null | undefined, context: EvidenceContext): EvidenceValidity {
  const issues: string[] = []
  const recommendations: string[] = []
  const rerun = `Run \`npx verify run --only ${check.id}\` to record fresh evidence`
  const add = (issue: string, recommendation = rerun) => {
    issues.push(`${check.name}: ${issue}`)
    if (!recommendations.includes(recommendation)) recommendations.push(recommendation)
  }
  if (!evidence) {
    add('no evidence recorded')
    return { valid: false, issues, recommendations }
  }
  if (context.source && !context.source.accepted) {
    for (const [i, issue] of context.source.issues.entries()) add(issue, context.source.recommendations[i] ?? rerun)
  }
  if (evidence.type !== check.evidenceType) add(`evidence is of type "${evidence.type}", the check requires "${check.evidenceType}"`)
  if (evidence.passed !== true) add('the evidence records a failure', `Fix "${check.id}" and run \`npx verify\` again`)
  checkTime(check, evidence, context, add)
  if (context.fingerprint !== undefined && evidence.fingerprint !== context.fingerprint) {
    const files = context.changedFiles?.length ? `: ${nameFiles(context.changedFiles)}` : ''
    add(`the code changed since the evidence was recorded${files}`)
  }
  if (context.checkDigest !== undefined && evidence.checkDigest !== context.checkDigest) {
    add("the check's definition changed since the evidence was recorded")
  }
  for (const rule of EVIDENCE_RULES) for (const unmet of rule.unmet(check, evidence)) add(unmet.issue, unmet.recommendation)
  return { valid: issues.length === 0, issues, recommendations }
}

/** Fresh: times parsed, none in the future, the run's end no older than maxAge (a manual check's approval never ages). */
function checkTime(check: EvidenceCheck, evidence: Evidence, context: EvidenceContext, add: (issue: string, recommendation?: string) => void): void {
  const now = (context.now ?? new Date()).getTime()
  const ended = parseTime(evidence.timestamp)
  const runEnded = evidenceTime(evidence)
  if (Number.isNaN(ended)) return add('the evidence has no valid timestamp')
  if (Number.isNaN(runEnded)) return add('the evidence has no valid time for the end of its run (runFinishedAt)')
  if (runEnded - now > FUTURE_TOLERANCE_MS) {
    return add(`the evidence is dated ${formatDuration(runEnded - now)} in the future`, 'Check the machine clock, then record fresh evidence')
  }
  // People do not re-approve every five minutes: an approval is bound to the code and the check, not to the clock.
  const approved = check.kind === 'manual' && evidence.approval !== undefined
  if (!approved && now - runEnded > context.maxAgeMs) {
    add(`the evidence is ${formatDuration(now - runEnded)} old, older than maxAge ${formatDuration(context.maxAgeMs)}`)
  }
}

/**
 * The warning for verify's own files that git tracks (a `.verify/` committed before it was ignored, an evidence file
 * committed as proof): they change with every run, so no evidence can match the code. Null when there are none.
 */
export function ownFilesTrackedWarning(rootDir: string, evidencePath: string, files: readonly string[]): string | null {
  if (files.length === 0) return null
  const own = relative(rootDir, dirname(evidencePath)) || '.'
  const named = nameFiles(files.map((file) => relative(rootDir, file) || file))
  return `verify's own files are tracked by git (${named}): they change with every run, so no evidence can match the code, and \`--reuse\` never reuses any. Untrack them: \`git rm -r --cached ${own}\`, and add \`${own}/\` to .gitignore.`
}
