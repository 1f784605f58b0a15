// Kind-specific requirements of evidence (SPEC §6.3): what a record must hold beyond type, outcome, time and binding,
// depending on the check it is for. Each rule is a value in one list, so a new source of evidence (a test runner's
// own reporter, say) adds its rule here and every command that judges stored evidence applies it.
import type { Evidence, ResolvedCheck } from '../types.js'
import { recordedRun } from './recorded-run.js'

/** What the acceptance rule knows of a check. */
export type EvidenceCheck = Pick<ResolvedCheck, 'id' | 'name' | 'evidenceType'> & Partial<Pick<ResolvedCheck, 'kind' | 'tests'>>

/** One unmet condition, in words a user can act on. */
export interface Unmet {
  issue: string
  /** What to do about it; the default is to record the check's evidence again. */
  recommendation?: string
}

export interface EvidenceRule {
  /** A short name, for tests and documentation. */
  name: string
  /** Conditions this rule finds unmet in the record; none when it does not apply. */
  unmet(check: EvidenceCheck, evidence: Evidence): Unmet[]
}

const approve = (check: EvidenceCheck) => `A person approves it with \`npx verify approve ${check.id} --by <name>\``

/** A manual check is proven by a person's approval, never by a record that claims to have run something. */
const manualIsApproved: EvidenceRule = {
  name: 'manual-approval',
  unmet: (check, evidence) => {
    if (check.kind !== 'manual' || isApproval(evidence)) return []
    return [{ issue: 'the evidence of a manual check must be a person’s approval, and this record carries none', recommendation: approve(check) }]
  },
}

/** A command or function check proves itself by running: an approval in its record proves nothing about it. */
const ranIsNotApproved: EvidenceRule = {
  name: 'ran-not-approved',
  unmet: (check, evidence) => {
    if (check.kind === undefined || check.kind === 'manual' || evidence.approval === undefined) return []
    return [{ issue: `the evidence carries an approval, but a ${check.kind} check proves itself by running` }]
  },
}

/** A check with `tests` passed only if its recorded counts say so: no failure, at least `min` tests passed. */
const testCounts: EvidenceRule = {
  name: 'test-counts',
  unmet: (check, evidence) => {
    const spec = check.tests
    // A record of a failure is judged as one (rejected while bound to this code), not also as missing counts.
    if (!spec || evidence.passed !== true) return []
    const counts = evidence.tests
    if (!counts || typeof counts.passed !== 'number' || typeof counts.failed !== 'number')
      return [{ issue: 'the evidence records no test counts, which the check requires' }]
    if (counts.failed > 0) return [{ issue: `the evidence records ${counts.failed} failed test(s)` }]
    if (counts.passed < spec.min) return [{ issue: `the evidence records ${counts.passed} passed test(s), the check requires at least ${spec.min}` }]
    return []
  },
}

/**
 * Every kind-specific rule, applied in order by `checkEvidence`. Add a rule for a new source of evidence here (for
 * example, evidence recorded by a test runner's reporter: a filtered or bailed run does not count).
 */
export const EVIDENCE_RULES: readonly EvidenceRule[] = [manualIsApproved, ranIsNotApproved, testCounts, recordedRun]

function isApproval(evidence: Evidence): boolean {
  const approval = evidence.approval as unknown
  return typeof approval === 'object' && approval !== null && typeof (approval as { by?: unknown }).by === 'string'
}
