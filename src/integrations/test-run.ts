// Test evidence recorded where the tests already ran (SPEC §11): a test runner's reporter hands over what its run
// showed; this binds it to the code as it was when the run started and merges it into the evidence file.
import { createHash, randomUUID } from 'node:crypto'
import type { Environment } from '../config/index.js'
import { readApprovals, trustedApprovals } from '../evidence/approvals.js'
import { checkDigest } from '../evidence/digest.js'
import { checkFingerprint } from '../evidence/binding.js'
import { workspaceFingerprint } from '../evidence/fingerprint.js'
import { buildEvidenceFile, checkResult, writtenChecks } from '../evidence/record.js'
import { openEvidenceSession, type EvidenceSession } from '../evidence/session.js'
import { saveEvidence } from '../evidence/save.js'
import { readEvidenceFile } from '../evidence/store.js'
import { VerifyConfigError, VerifyError } from '../errors.js'
import { withEvidenceLock } from './lock.js'
import { formatDuration } from '../duration.js'
import type { CheckResult, Evidence, RecordedBy, ResolvedCheck, TestFailure, WorkspaceInfo } from '../types.js'
import { MAX_FAILURES } from '../test-reports/location.js'
import { restateChecks } from '../verdict/restate.js'
import { summarize } from '../verdict/summary.js'

/** Options every runner's reporter takes. */
export interface TestEvidenceOptions {
  /** The check this run stands for (default: the protocol's only `test_pass` check). */
  check?: string
  /** The protocol (default: "default", or the only one). */
  protocol?: string
  /** The verify config file (default: discovered from the runner's root). */
  config?: string
  /** The evidence file (default: `.verify/evidence.json` next to the config). */
  evidence?: string
}

/** What a finished test run showed, as the runner reported it. */
export interface TestRunFacts {
  runner: RecordedBy['runner']
  version: string
  /** How the run was started, for the evidence's `command`. */
  command: string
  passed: number
  failed: number
  skipped: number
  todo: number
  failures: TestFailure[]
  /** Errors outside any test (a file that failed to load, an unhandled rejection). */
  errors: string[]
  /** Why the run does not prove the whole suite; null for a full run. */
  notFull: string | null
  interrupted: boolean
  /** The runner failed the run once the tests were done (a coverage threshold, an obsolete snapshot under --ci): why. */
  runnerFailed?: string
}

/**
 * A verify error as a test runner should show it: one paragraph (the message, and a config error's problems), no
 * stack trace of verify's internals. Other errors are left as they are.
 */
export function plainError(error: unknown): unknown {
  if (!(error instanceof VerifyError)) return error
  const problems = error instanceof VerifyConfigError ? error.problems.map((p) => `\n  - ${p}`).join('') : ''
  const shown = new Error(`verify-protocol: ${error.message}${problems}`)
  shown.stack = shown.message
  return shown
}

/** Picks the check a reporter stands for: the one named, else the protocol's only `test_pass` check. */
export function testCheckOf(session: EvidenceSession, id: string | undefined): ResolvedCheck {
  const { protocol } = session.loaded
  if (id) {
    const check = protocol.checks.find((c) => c.id === id)
    if (!check)
      throw new VerifyError(
        'E_USAGE',
        `No check "${id}" in protocol "${protocol.name}" (the reporter's \`check\` option). Checks: ${protocol.checks.map((c) => c.id).join(', ')}.`,
      )
    // A test run proves tests, never a build or a lint: it stands only for a test_pass check.
    if (check.evidenceType !== 'test_pass')
      throw new VerifyError(
        'E_USAGE',
        `Check "${id}" of protocol "${protocol.name}" is a ${check.evidenceType} check (the reporter's \`check\` option): a test run can stand only for a test_pass check.`,
      )
    return check
  }
  const tests = protocol.checks.filter((c) => c.evidenceType === 'test_pass')
  if (tests.length === 1) return tests[0] as ResolvedCheck
  const found = tests.length === 0 ? 'has no test_pass check' : `has ${tests.length} test_pass checks (${tests.map((c) => c.id).join(', ')})`
  throw new VerifyError('E_USAGE', `Protocol "${protocol.name}" ${found}: name the check this test run stands for with the reporter's \`check\` option.`)
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** The run as text: counts, failing tests, errors; what `verify` shows as the check's output. */
function describeRun(facts: TestRunFacts, durationMs: number): string {
  const counts = `${facts.passed} passed, ${facts.failed} failed, ${facts.skipped} skipped, ${facts.todo} todo`
  const lines = [`${facts.runner} ${facts.version}: ${counts} (${formatDuration(durationMs)})`]
  for (const f of facts.failures.slice(0, MAX_FAILURES)) {
    const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ''} > ` : ''
    lines.push(`FAIL ${where}${f.name}${f.message ? `\n  ${f.message}` : ''}`)
  }
  for (const error of facts.errors.slice(0, 5)) lines.push(`Error: ${error.split('\n').slice(0, 8).join('\n  ')}`)
  if (facts.runnerFailed) lines.push(`${RUNNER_NAMES[facts.runner]} failed the run after the tests: ${facts.runnerFailed}`)
  if (facts.notFull) lines.push(`Not a full run: ${facts.notFull}`)
  return `${lines.join('\n')}\n`
}

const RUNNER_NAMES: Record<TestRunFacts['runner'], string> = { vitest: 'Vitest', jest: 'Jest' }

function judgeRun(facts: TestRunFacts): Pick<CheckResult, 'status' | 'reason'> {
  const ran = facts.passed + facts.failed
  const by = `the ${facts.runner} run`
  if (facts.interrupted) return { status: 'cancelled', reason: `${by} was interrupted` }
  if (facts.failed > 0) return { status: 'failed', reason: `${facts.failed} of ${plural(ran, 'test')} failed` }
  if (facts.errors.length > 0) return { status: 'failed', reason: `${plural(facts.errors.length, 'error')} outside tests: ${facts.errors[0]?.split('\n')[0]}` }
  if (facts.runnerFailed) return { status: 'failed', reason: `${RUNNER_NAMES[facts.runner]} failed the run after the tests: ${facts.runnerFailed}` }
  // A filtered run that matched nothing proves nothing either way: it does not count, and is no failure of the suite.
  if (facts.notFull) return { status: 'stale', reason: `${by} does not count: ${facts.notFull}` }
  if (ran === 0) return { status: 'failed', reason: `${by} ran no tests` }
  return { status: 'passed', reason: null }
}

/** One test run's recording: `begin` when the run starts (binds it to the code then), `finish` when it ends. */
export class TestRunRecording {
  private constructor(
    readonly session: EvidenceSession,
    readonly check: ResolvedCheck,
    private readonly workspace: WorkspaceInfo,
    private readonly fingerprint: string,
    private readonly startedAt: Date,
  ) {}

  /**
   * Loads the protocol and takes the workspace fingerprint now, as the run starts. `writeCaches` false: the config's
   * load writes nothing under the project (a watching runner would run again).
   */
  static async begin(root: string, options: TestEvidenceOptions, env: Environment, { writeCaches = true } = {}): Promise<TestRunRecording> {
    const startedAt = new Date()
    const session = await openEvidenceSession({
      cwd: root,
      env,
      configEnv: env,
      configFile: options.config,
      evidence: options.evidence,
      protocol: options.protocol,
      writeCaches,
    })
    const check = testCheckOf(session, options.check)
    const { rootDir } = session.loaded.protocol
    const workspace = await workspaceFingerprint(rootDir)
    const fingerprint = await checkFingerprint(check, rootDir, workspace)
    return new TestRunRecording(session, check, workspace, fingerprint, startedAt)
  }

  /** The check's result as the run supports it. */
  result(facts: TestRunFacts, now = new Date()): CheckResult {
    const { check, session } = this
    const durationMs = Math.max(0, now.getTime() - this.startedAt.getTime())
    const text = session.redact(describeRun(facts, durationMs))
    const { status, reason } = judgeRun(facts)
    const recordedBy: RecordedBy = { runner: facts.runner, version: facts.version, fullRun: facts.notFull === null && !facts.interrupted }
    if (!recordedBy.fullRun) recordedBy.notFull = facts.notFull ?? 'the run was interrupted'
    const evidence: Evidence = {
      type: check.evidenceType,
      passed: status === 'passed' || status === 'stale',
      command: facts.command,
      exitCode: null,
      signal: null,
      timedOut: false,
      durationMs,
      timestamp: now.toISOString(),
      fingerprint: this.fingerprint,
      checkDigest: checkDigest(check, session.loaded.protocol),
      output: { text, bytes: Buffer.byteLength(text), truncated: false, sha256: createHash('sha256').update(text).digest('hex') },
      error: null,
      tests: { passed: facts.passed, failed: facts.failed, skipped: facts.skipped, todo: facts.todo, failures: facts.failures.slice(0, MAX_FAILURES) },
      recordedBy,
      metadata: {},
    }
    return checkResult(check, status, reason, evidence)
  }

  /**
   * Writes the check's evidence into the evidence file, under its lock: the other checks' records are kept (judged
   * again against the code as it is), secrets are masked and the file is signed as `verify` would.
   */
  async finish(facts: TestRunFacts): Promise<CheckResult> {
    const finished = new Date()
    const mine = this.result(facts, finished)
    const { session } = this
    const { protocol } = session.loaded
    await withEvidenceLock(session.evidencePath, `${facts.runner} reporter`, async () => {
      const stored = await readEvidenceFile(session.evidencePath)
      const approvals = trustedApprovals(await readApprovals(session.approvalsPath), session.signingKey)
      // Evidence of another protocol, of a shard, or not signed with the key that will sign this file is not carried over.
      const restated = await restateChecks(protocol, stored.ok ? stored.file : null, this.workspace, approvals, session.signingKey)
      const { base } = restated
      const checks = writtenChecks(restated.checks.map((r) => (r.id === mine.id ? mine : r)))
      const summary = summarize(checks, protocol.strictMode)
      const fresh = buildEvidenceFile(
        {
          protocol,
          runId: randomUUID(),
          startedAt: this.startedAt.toISOString(),
          finishedAt: finished.toISOString(),
          workspace: this.workspace,
          results: checks,
        },
        summary,
      )
      const file = base ? { ...base, protocol: fresh.protocol, tool: fresh.tool, finishedAt: fresh.finishedAt, checks, summary } : fresh
      await saveEvidence(session, file)
    })
    return mine
  }
}
