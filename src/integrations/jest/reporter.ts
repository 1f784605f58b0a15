// `verify-protocol/jest/reporter`: records the test check's evidence from Jest's own run (SPEC §11). Jest loads it
// with require() (Node's require of an ES module) or, failing that, import(); it receives Jest's plain result objects,
// so only the fields read here are typed.
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import type { ResolvedCheck, TestFailure } from '../../types.js'
import { shellEnvironment } from '../shell-env.js'
import { firstMessageLine, MAX_FAILURES, testFailure } from '../../test-reports/location.js'
import { optionLeftOut, optionNotGiven } from '../command-words.js'
import { focusedFile, samePlace } from '../focus.js'
import { loadRecorder, type Recorder } from '../bundled.js'
import type { TestEvidenceOptions, TestRunFacts, TestRunRecording } from '../test-run.js'
import { recordWouldRerun, type JestProjectConfig } from './watch.js'

/** The fields of Jest's GlobalConfig this reporter reads. */
export interface JestGlobalConfig {
  rootDir: string
  bail: number
  collectCoverage?: boolean
  coverageThreshold?: unknown
  forceExit?: boolean
  testNamePattern?: string
  testPathPatterns?: { patterns?: readonly string[]; isSet?: () => boolean } | readonly string[]
  /** Jest 29's form of `testPathPatterns`. */
  testPathPattern?: string
  onlyChanged?: boolean
  onlyFailures?: boolean
  changedSince?: string
  lastCommit?: boolean
  findRelatedTests?: boolean
  watch?: boolean
  watchAll?: boolean
  /** `all` under `-u`, or after `u` in watch mode: failing snapshots are rewritten to pass. */
  updateSnapshot?: string
  coverageDirectory?: string
  filter?: string
  shard?: { shardIndex: number; shardCount: number }
}

interface JestAssertion {
  fullName: string
  status: string
  failureMessages: string[]
  location?: { line: number; column: number } | null
}

interface JestFileResult {
  testFilePath: string
  testExecError?: { message?: string } | null
  failureMessage?: string | null
  numPendingTests: number
  testResults: JestAssertion[]
}

/** The fields of Jest's AggregatedResult this reporter reads. */
export interface JestAggregatedResult {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTodoTests: number
  numTotalTestSuites: number
  numRuntimeErrorTestSuites: number
  wasInterrupted: boolean
  testResults: JestFileResult[]
  /** `failure`: obsolete, unwritten or unmatched snapshots that fail the run (under --ci, or unchecked). */
  snapshot?: { failure?: boolean; unchecked?: number; unmatched?: number; filesRemoved?: number }
  /** Set by Jest once every reporter is done: false when anything failed the run, a coverage threshold included. */
  success?: boolean
}

const toStderr = (text: string) => void process.stderr.write(text)

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g

function jestVersion(rootDir: string): string {
  for (const from of [join(rootDir, 'package.json'), import.meta.url]) {
    try {
      return (createRequire(from)('jest/package.json') as { version: string }).version
    } catch {
      // Not resolvable from there.
    }
  }
  return 'unknown'
}

/** Why the run does not cover the whole suite, from its options alone; null when nothing filtered it. */
export function partialRunReason(config: JestGlobalConfig): string | null {
  const patterns = config.testPathPatterns
  const listed = Array.isArray(patterns) ? patterns : ((patterns as { patterns?: readonly string[] } | undefined)?.patterns ?? [])
  const paths = [...listed, ...(config.testPathPattern ? [config.testPathPattern] : [])]
  if (config.testNamePattern) return `tests filtered by name (-t ${config.testNamePattern})`
  if (paths.length > 0) return `test files filtered (${paths.join(' ')})`
  if (config.onlyChanged || config.watch) return 'only tests related to changed files ran (-o / --watch)'
  // `-u` on the command line is an option the check does not give (narrowedRunReason); `u` in watch mode sets it too.
  if (config.updateSnapshot === 'all' && config.watchAll) return 'snapshots that did not match were rewritten (-u, or u in watch mode)'
  if (config.changedSince) return `only tests related to files changed since ${config.changedSince} ran (--changedSince)`
  if (config.lastCommit) return 'only tests related to the last commit ran (--lastCommit)'
  if (config.findRelatedTests) return 'only tests related to some files ran (--findRelatedTests)'
  if (config.onlyFailures) return 'only the tests that failed last time ran (--onlyFailures)'
  if (config.filter) return `test files filtered by ${config.filter} (--filter)`
  if (config.shard) return `a shard of the suite (--shard ${config.shard.shardIndex}/${config.shard.shardCount})`
  return null
}

/**
 * Jest options that change only how it reports, caches or spreads its work, or that make a run stricter: never which
 * tests run, nor whether they pass (`--watchAll` runs the whole suite again at each change). Any other option on the
 * command line that the check's own command does not give (a setup file, a sequencer, a timeout, `-u`, a config, roots
 * or test patterns …) makes the run another run.
 */
const REPORTING_OPTIONS = new Set(
  `ci color colors noColor noColors verbose silent json outputFile useStderr expand noStackTrace coverageDirectory coverageReporters
  runInBand i maxWorkers w workerIdleMemoryLimit cache noCache cacheDirectory watchman noWatchman
  detectOpenHandles forceExit logHeapUsage notify errorOnDeprecated reporters watchAll`.split(/\s+/),
)

/**
 * Options a run may have beside the check's own: those above, and coverage turned on, which can only add a failure
 * (a threshold). Coverage turned off, or its thresholds or files changed, decides whether the run passes.
 */
function harmless(name: string, value: string | undefined): boolean {
  if (name === 'coverage' || name === 'collectCoverage') return value === undefined || value === 'true'
  return REPORTING_OPTIONS.has(name)
}

// jest/bin/jest.js, jest-cli/bin/jest.js, node_modules/.bin/jest: what Jest's own command line runs.
const JEST_SCRIPT = /(?:^|[\\/])jest(?:\.js)?$/

/**
 * Why this Jest is not set up as the check's own command sets it up, or null: its rootDir is not the check's folder,
 * it was started from code (whose options cannot be seen), or its command line (`argv`, after `script`) gives an
 * option the check's command does not give, but for how Jest reports. Options that filter the run have their own
 * reasons (partialRunReason), given first.
 */
export function narrowedRunReason(script: string, argv: readonly string[], rootDir: string, check: ResolvedCheck): string | null {
  if (!samePlace(rootDir, check.cwd)) return `Jest's rootDir is ${rootDir}, not the folder the "${check.id}" check runs in (${check.cwd})`
  if (!JEST_SCRIPT.test(script)) return `Jest was not started from its command line (${script || 'node'}): the options it was given cannot be seen`
  const option = optionNotGiven(argv, check, harmless, [['c', 'config']])
  if (option) return `Jest was started with ${option}, which the "${check.id}" check's command does not give`
  const left = optionLeftOut(argv, check, JEST_SCRIPT, needed, [
    ['c', 'config'],
    ['coverage', 'collectCoverage'],
  ])
  return left ? `Jest was started without ${left}, which the "${check.id}" check's command gives` : null
}

// Left out of a run, an option that is not harmless changes it, and so does coverage that the check turns on.
function needed(name: string, value: string | undefined): boolean {
  return !harmless(name, value) || name === 'coverage' || name === 'collectCoverage'
}

function failureOf(file: JestFileResult, test: JestAssertion, rootDir: string): TestFailure {
  const message = test.failureMessages[0]?.replace(ANSI, '')
  const at = message ? new RegExp(`${file.testFilePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+):\\d+`).exec(message) : null
  const line = test.location?.line ?? (at ? Number(at[1]) : undefined)
  return testFailure(test.fullName, { file: relative(rootDir, file.testFilePath), line, message: firstMessageLine(message) })
}

export async function runFacts(config: JestGlobalConfig, results: JestAggregatedResult): Promise<TestRunFacts> {
  const { rootDir } = config
  const facts: TestRunFacts = {
    runner: 'jest',
    version: jestVersion(rootDir),
    command: ['jest', ...process.argv.slice(2)].join(' '),
    passed: results.numPassedTests,
    failed: results.numFailedTests,
    skipped: results.numPendingTests,
    todo: results.numTodoTests,
    failures: [],
    errors: [],
    notFull: partialRunReason(config),
    interrupted: false,
  }
  for (const file of results.testResults) {
    if (file.testExecError)
      facts.errors.push(`${relative(rootDir, file.testFilePath)}: ${(file.testExecError.message ?? 'failed to run').replace(ANSI, '').split('\n')[0]}`)
    for (const test of file.testResults) {
      if (test.status === 'failed' && facts.failures.length < MAX_FAILURES) facts.failures.push(failureOf(file, test, rootDir))
    }
  }
  const ranSuites = results.testResults.length
  if (config.bail > 0 && facts.failed >= config.bail && ranSuites < results.numTotalTestSuites) {
    facts.notFull ??= `bail stopped the run after ${facts.failed} failed test${facts.failed === 1 ? '' : 's'} (${ranSuites} of ${results.numTotalTestSuites} files ran)`
  } else if (results.wasInterrupted) facts.interrupted = true
  if (results.snapshot?.failure) {
    const { unchecked = 0, unmatched = 0 } = results.snapshot
    facts.runnerFailed = `its snapshots fail the run (${unchecked} obsolete, ${unmatched} not matching; \`jest -u\` updates them)`
  }
  const focused = await focusedFile(results.testResults.filter((f) => f.numPendingTests > 0).map((f) => f.testFilePath))
  if (focused) facts.notFull ??= `tests focused with .only / fit in ${relative(rootDir, focused)}: the others were skipped`
  return facts
}

export interface JestVerifyReporterOptions extends TestEvidenceOptions {
  /** No line on the terminal about the evidence written. */
  silent?: boolean
}

/** Jest reporter: `reporters: ['default', 'verify-protocol/jest/reporter']` (or `[…, { check: 'unit' }]`). */
export default class JestVerifyReporter {
  private recording: Promise<TestRunRecording> | null = null
  private recorder: Recorder | undefined
  private lastError: Error | undefined

  constructor(
    private readonly globalConfig: JestGlobalConfig,
    private readonly options: JestVerifyReporterOptions = {},
  ) {}

  async onRunStart(): Promise<void> {
    this.recording = null
    if (process.env.VERIFY_CHECK_ID) return
    try {
      this.recorder = await loadRecorder()
      // Taken now, before any test runs: the evidence is bound to the code the run started on. A watching Jest runs
      // again at a change of any file under its roots, node_modules included: the load writes no cache there.
      const watching = Boolean(this.globalConfig.watch || this.globalConfig.watchAll)
      this.recording = this.recorder.TestRunRecording.begin(this.globalConfig.rootDir, this.options, shellEnvironment(), { writeCaches: !watching })
      await this.recording
    } catch (error) {
      this.fail(error)
      this.recording = null
    }
  }

  async onRunComplete(contexts: ReadonlySet<{ config: JestProjectConfig }> | undefined, results: JestAggregatedResult): Promise<void> {
    const pending = this.recording
    this.recording = null
    if (!pending) return
    try {
      const recording = await pending
      const watching = this.globalConfig.watch || this.globalConfig.watchAll
      if (watching && recordWouldRerun(contexts ?? [], recording.session.evidencePath, recording.check.id, this.globalConfig.coverageDirectory, toStderr))
        return
      const facts = await runFacts(this.globalConfig, results)
      facts.notFull ??= narrowedRunReason(process.argv[1] ?? '', process.argv.slice(2), this.globalConfig.rootDir, recording.check)
      const { collectCoverage, coverageThreshold, forceExit } = this.globalConfig
      const passing = facts.failed === 0 && facts.errors.length === 0 && !facts.runnerFailed && !facts.interrupted
      if (passing && collectCoverage && coverageThreshold) {
        // Jest's coverage reporter runs after this one and fails the run only in results.success, set once every
        // reporter is done: the recording waits for the end of the run (Jest then lets the event loop run out).
        if (forceExit) facts.notFull ??= 'its coverage thresholds are checked after this reporter, and --forceExit ends Jest before they are known'
        // A watching Jest does not end between runs.
        else if (watching) facts.notFull ??= 'its coverage thresholds are checked after this reporter, and watch mode does not end the run'
        else return void process.once('beforeExit', () => void this.record(recording, facts, results, true))
      }
      await this.record(recording, facts, results, false)
    } catch (error) {
      this.fail(error)
    }
  }

  private async record(recording: TestRunRecording, facts: TestRunFacts, results: JestAggregatedResult, ended: boolean): Promise<void> {
    try {
      if (ended && results.success === false) facts.runnerFailed = 'a coverage threshold is not met (or another reporter failed the run)'
      const result = await recording.finish(facts)
      if (this.options.silent) return
      const ran = results.numPassedTests + results.numFailedTests
      const what = result.status === 'passed' ? `${ran} tests, full run` : (result.reason ?? result.status)
      process.stderr.write(`verify: recorded "${result.id}" evidence (${what}) in ${recording.session.evidencePath}\n`)
    } catch (error) {
      if (!ended) throw error
      // Too late for Jest to fail the run with it: said, and the exit code made a failure.
      this.fail(error)
      process.exitCode = 1
    }
  }

  /** Jest fails the run with the error but does not print it: it is printed here, in one paragraph. */
  private fail(error: unknown): void {
    this.lastError = (this.recorder ? this.recorder.plainError(error) : error) as Error
    process.stderr.write(`${this.lastError.message}\n`)
  }

  /** Jest fails the run with this error (a bad verify config, an evidence file that cannot be written). */
  getLastError(): Error | undefined {
    return this.lastError
  }
}
