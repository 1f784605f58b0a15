// `verify-protocol/vitest/reporter`: records the test check's evidence from Vitest's own run, so `verify run --reuse`
// and `verify check` need not run the suite again (SPEC §11).
import type { Reporter, TestModule, TestSpecification, Vitest } from 'vitest/node'
import { formatDuration } from '../../duration.js'
import { loadRecorder } from '../bundled.js'
import type { TestEvidenceOptions, TestRunFacts, TestRunRecording } from '../test-run.js'
import { shellEnvironment } from '../shell-env.js'
import { narrowedRunReason, partialRunReason, runFacts } from './facts.js'

export interface VerifyReporterOptions extends TestEvidenceOptions {
  /** The folder the verify config is found from (default: Vitest's root). */
  root?: string
  /** No line on the terminal about the evidence written. */
  silent?: boolean
}

type RunEnd = Parameters<NonNullable<Reporter['onTestRunEnd']>>

/** Marks reporters of this kind, so the plugin does not add a second one. */
export const VERIFY_REPORTER = Symbol.for('verify-protocol.vitest-reporter')

export default class VerifyReporter implements Reporter {
  readonly [VERIFY_REPORTER] = true
  private vitest: Vitest | undefined
  private recording: Promise<TestRunRecording> | null = null
  private notFull: string | null = null
  private afterCoverage: { recording: TestRunRecording; facts: TestRunFacts; exitCode: typeof process.exitCode } | null = null

  constructor(private readonly options: VerifyReporterOptions = {}) {}

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    this.recording = null
    // A watch rerun before the last run's coverage was reported: that run is recorded as it stood.
    await this.onFinishedReportCoverage()
    const vitest = this.vitest
    // Inside a check of `verify run`, verify records this check's evidence itself (and holds the evidence file).
    if (!vitest || process.env.VERIFY_CHECK_ID || specifications.length === 0) return
    this.notFull = await partialRunReason(vitest, specifications)
    // Taken now, before any test runs: the evidence is bound to the code the run started on.
    const { plainError, TestRunRecording } = await loadRecorder()
    this.recording = TestRunRecording.begin(this.options.root ?? vitest.config.root, this.options, shellEnvironment())
    // Awaited here so that a bad config fails the run at its start, not after the whole suite.
    const recording = await this.recording.catch((error: unknown) => {
      this.recording = null
      throw plainError(error)
    })
    this.notFull ??= narrowedRunReason(vitest, recording.check)
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: RunEnd[1], reason: RunEnd[2]): Promise<void> {
    const vitest = this.vitest
    const pending = this.recording
    this.recording = null
    if (!vitest || !pending) return
    const recording = await pending
    const facts = await runFacts(vitest, testModules, unhandledErrors, reason, this.notFull)
    // Vitest checks the coverage thresholds after this hook, and says so only in its exit code: a run whose tests all
    // passed is recorded once the coverage is reported (onFinishedReportCoverage).
    if (vitest.config.coverage.enabled && facts.failed === 0 && facts.errors.length === 0 && !facts.interrupted) {
      // In watch mode the exit code of an earlier failed run stays set: only what this run's coverage sets counts.
      this.afterCoverage = { recording, facts, exitCode: process.exitCode }
      process.exitCode = 0
      return
    }
    await this.record(vitest, recording, facts)
  }

  async onFinishedReportCoverage(): Promise<void> {
    const pending = this.afterCoverage
    this.afterCoverage = null
    if (!this.vitest || !pending) return
    const code = Number(process.exitCode ?? 0)
    if (code !== 0) pending.facts.runnerFailed = `it exits with code ${code} once the coverage is reported (a coverage threshold not met?)`
    else process.exitCode = pending.exitCode
    await this.record(this.vitest, pending.recording, pending.facts)
  }

  private async record(vitest: Vitest, recording: TestRunRecording, facts: TestRunFacts): Promise<void> {
    const result = await recording.finish(facts)
    if (this.options.silent) return
    const ran = facts.passed + facts.failed
    const what = result.status === 'passed' ? `${ran} tests, full run` : (result.reason ?? result.status)
    const took = result.evidence ? `, ${formatDuration(result.evidence.durationMs)}` : ''
    vitest.logger.log(`verify: recorded "${result.id}" evidence (${what}${took}) in ${recording.session.evidencePath}`)
  }
}
