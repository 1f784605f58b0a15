// Evidence a test runner's reporter recorded (SPEC §11) proves what the check would prove only when the runner ran
// the whole suite: no file or name filter, no --changed, no shard, no .only, no bail cut-off, and some tests; and it
// proves a test_pass check only.
import type { EvidenceRule } from './evidence-rules.js'

/** A kind-specific rule of `checkEvidence` (listed in EVIDENCE_RULES); none of it applies to evidence verify recorded. */
export const recordedRun: EvidenceRule = {
  name: 'recorded-run',
  unmet: (check, evidence) => {
    const by = evidence.recordedBy
    if (!by) return []
    // A test run proves tests: the reporter's `check` option, or a hand-made record, cannot make it stand for a build.
    if (check.evidenceType !== 'test_pass') {
      return [
        {
          issue: `recorded by a ${by.runner} reporter, but only a test_pass check can be: a test run proves no other kind of check`,
          recommendation: `Run \`npx verify run --only ${check.id}\``,
        },
      ]
    }
    // A recorded failure is a failure, filtered run or not: only passing evidence must prove the whole suite.
    if (evidence.passed !== true) return []
    const whole = `Run the whole suite (\`${by.runner === 'jest' ? 'npx jest' : 'npx vitest run'}\`, no filter) or \`npx verify run --only ${check.id}\``
    if (by.fullRun !== true) return [{ issue: `recorded by a ${by.runner} run that does not count: ${by.notFull ?? 'not a full run'}`, recommendation: whole }]
    const ran = (evidence.tests?.passed ?? 0) + (evidence.tests?.failed ?? 0)
    // With `tests`, the test-counts rule holds it to `min`; without, one test at least: zero tests is not a pass.
    if (!check.tests && ran === 0) return [{ issue: `the ${by.runner} run ran no tests`, recommendation: whole }]
    return []
  },
}
