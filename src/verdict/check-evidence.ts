// When does evidence satisfy a check (SPEC §6.1)? Every unmet condition is an issue and a recommendation.
import { formatDuration } from '../duration.js'
import type { Evidence, ResolvedCheck } from '../types.js'

export interface EvidenceContext {
  /** Evidence older than this is stale. */
  maxAgeMs: number
  /** The fingerprint the evidence must be bound to now (workspace, or the check's inputs); unchecked when omitted. */
  fingerprint?: string
  /** The check's current definition digest; unchecked when omitted. */
  checkDigest?: string
  now?: Date
  /** Files changed since the evidence was recorded, when known: named in the issue. */
  changedFiles?: readonly string[]
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

export function checkEvidence(check: Pick<ResolvedCheck, 'id' | 'name' | 'evidenceType'>, evidence: Evidence | null | undefined, context: EvidenceContext): EvidenceValidity {
  const issues: string[] = []
  const recommendations: string[] = []
  const rerun = `Run \`npx verify run --only ${check.id}\` to record fresh evidence`
  const add = (issue: string, recommendation = rerun) => {
    issues.push(issue)
    if (!recommendations.includes(recommendation)) recommendations.push(recommendation)
  }
  if (!evidence) {
    add(`${check.name}: no evidence recorded`)
    return { valid: false, issues, recommendations }
  }
  if (evidence.type !== check.evidenceType) {
    add(`${check.name}: evidence is of type "${evidence.type}", the check requires "${check.evidenceType}"`)
  }
  if (evidence.passed !== true) add(`${check.name}: the evidence records a failure`, `Fix "${check.id}" and run \`npx verify\` again`)
  const now = (context.now ?? new Date()).getTime()
  const at = typeof evidence.timestamp === 'string' ? Date.parse(evidence.timestamp) : Number.NaN
  if (Number.isNaN(at)) {
    add(`${check.name}: the evidence has no valid timestamp`)
  } else if (at - now > FUTURE_TOLERANCE_MS) {
    add(`${check.name}: the evidence is dated ${formatDuration(at - now)} in the future`, 'Check the machine clock, then record fresh evidence')
  } else if (now - at > context.maxAgeMs) {
    add(`${check.name}: the evidence is ${formatDuration(now - at)} old, older than maxAge ${formatDuration(context.maxAgeMs)}`)
  }
  if (context.fingerprint !== undefined && evidence.fingerprint !== context.fingerprint) {
    const files = context.changedFiles?.length ? `: ${nameFiles(context.changedFiles)}` : ''
    add(`${check.name}: the code changed since the evidence was recorded${files}`)
  }
  if (context.checkDigest !== undefined && evidence.checkDigest !== context.checkDigest) {
    add(`${check.name}: the check's definition changed since the evidence was recorded`)
  }
  return { valid: issues.length === 0, issues, recommendations }
}
