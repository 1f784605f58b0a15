// Runs one check of any kind and turns what happened into a CheckResult with its evidence.
import { join } from 'node:path'
import type { CheckResult, CheckStatus, Evidence, OutputRecord, ProtocolSource, ResolvedCheck, TestFailure, TestsRecord } from '../types.js'
import { formatDuration } from '../duration.js'
import { checkResult } from '../evidence/record.js'
import { OutputCapture } from './capture.js'
import { commandText } from './command-text.js'
import { runFunctionCheck, type FunctionRunResult } from './function-check.js'
import { spawnSupervised } from './spawn.js'
import { RUN_TAG_ENV } from './registry.js'
import { readTestReport } from './test-report.js'

export interface CheckRunContext {
  runId: string
  graceMs: number
  /** Folder of full output logs; null writes none. */
  logDir: string | null
  logLimitBytes: number
  /** The fingerprint this check's evidence is bound to (workspace, or its inputs). */
  fingerprint: string
  checkDigest: string
  /** Environment of every check before its own `env` (already without secrets that must not leak). */
  baseEnv: Record<string, string>
  signal?: AbortSignal
  /** Where the protocol was loaded from: function checks run in a process of their own that loads it again. */
  source?: ProtocolSource
  /** Masks secrets in text before it is stored or shown. */
  transform?: (text: string) => string
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void
  now?: () => Date
}

interface Attempt {
  status: CheckStatus
  reason: string | null
  spawn: FunctionRunResult
  output: OutputRecord
  tests?: Evidence['tests']
}

function recordedCommand(check: ResolvedCheck): string | null {
  return check.command === undefined ? null : commandText(check.command)
}

/** Test names and messages come from the report, not the captured output: masked the same way. */
function maskFailures(tests: TestsRecord, transform: ((text: string) => string) | undefined): TestsRecord {
  if (!transform || !tests.failures) return tests
  const mask = (text: string | undefined) => (text === undefined ? undefined : transform(text))
  return {
    ...tests,
    failures: tests.failures.map((f) => {
      const masked: TestFailure = { name: transform(f.name) }
      if (f.file !== undefined) masked.file = mask(f.file) as string
      if (f.line !== undefined) masked.line = f.line
      if (f.message !== undefined) masked.message = mask(f.message) as string
      return masked
    }),
  }
}

/** Judges what a finished command or function produced. */
function judge(check: ResolvedCheck, spawn: FunctionRunResult, shell: boolean): { status: CheckStatus; reason: string | null } {
  if (spawn.error) return { status: 'error', reason: spawn.error }
  if (spawn.timedOut) {
    const what = spawn.abandoned ? 'the function was abandoned (it must stop when its signal aborts)' : 'its process group was killed'
    return { status: 'timed_out', reason: `timed out after ${formatDuration(check.timeoutMs)}; ${what}` }
  }
  if (spawn.cancelled) return { status: 'cancelled', reason: 'cancelled while running' }
  if (shell && spawn.exitCode === 127) return { status: 'error', reason: 'the shell could not find the command (exit code 127)' }
  if (spawn.exitCode === 0) return { status: 'passed', reason: null }
  if (check.kind === 'function') return { status: 'failed', reason: 'the function returned passed: false' }
  if (spawn.signal) return { status: 'failed', reason: `killed by ${spawn.signal}` }
  return { status: 'failed', reason: `exit code ${spawn.exitCode}` }
}

async function attemptOnce(check: ResolvedCheck, ctx: CheckRunContext, attempt: number): Promise<Attempt> {
  const startedAt = Date.now()
  const suffix = attempt > 1 ? `.attempt-${attempt}` : ''
  const capture = new OutputCapture({
    logFile: ctx.logDir ? join(ctx.logDir, `${check.id}${suffix}.log`) : undefined,
    logLimitBytes: ctx.logLimitBytes,
    transform: ctx.transform,
    onText: ctx.onOutput,
    // `expect` is judged on the whole output as it streams, not on the excerpt kept in the evidence.
    watch: [check.expect?.output, check.expect?.notOutput].filter((p): p is RegExp | string => p !== undefined),
  })
  const env: Record<string, string> = { ...ctx.baseEnv, ...check.env, VERIFY_CHECK_ID: check.id, [RUN_TAG_ENV]: ctx.runId }
  // Checks that read other checks' output (the strict preset's error-free) find the logs of this run here.
  if (ctx.logDir) env.VERIFY_LOG_DIR = ctx.logDir
  const spawn =
    check.kind === 'command'
      ? await spawnSupervised({
          command: check.command as string | string[],
          cwd: check.cwd,
          env,
          timeoutMs: check.timeoutMs,
          graceMs: ctx.graceMs,
          signal: ctx.signal,
          capture,
        })
      : await runFunctionCheck(check, {
          cwd: check.cwd,
          env,
          runId: ctx.runId,
          signal: ctx.signal,
          capture,
          ...(ctx.source ? { source: ctx.source } : {}),
          checkDigest: ctx.checkDigest,
          loadEnv: ctx.baseEnv,
          graceMs: ctx.graceMs,
        })
  const output = await capture.finish()
  let { status, reason } = judge(check, spawn, typeof check.command === 'string')
  let tests: Evidence['tests']
  // Read also when the command failed: the counts and the failing tests are what the user needs then.
  if ((status === 'passed' || status === 'failed') && check.tests) {
    const report = await readTestReport(check.tests, check.cwd, startedAt)
    tests = report.counts && maskFailures(report.counts, ctx.transform)
    if (!report.ok && status === 'passed') ({ status, reason } = { status: 'failed', reason: report.reason })
    else if (!report.ok && report.counts) reason = `${reason}; ${report.reason}`
  }
  const seen = capture.seen()
  const expected = check.expect?.output !== undefined ? seen.shift() : true
  const forbidden = check.expect?.notOutput !== undefined ? seen.shift() : false
  if (status === 'passed' && !expected) {
    ;({ status, reason } = { status: 'failed', reason: `its output does not match the expected ${String(check.expect?.output)}` })
  }
  if (status === 'passed' && forbidden) {
    ;({ status, reason } = { status: 'failed', reason: `its output matches the forbidden ${String(check.expect?.notOutput)}` })
  }
  return { status, reason, spawn, output, ...(tests ? { tests } : {}) }
}

// What supervision had to do beyond the group, in any attempt, for the evidence (and the summary's warnings).
function supervisionNotes(spawns: readonly FunctionRunResult[]): Record<string, unknown> {
  const escaped = spawns.flatMap((spawn) => spawn.escaped ?? [])
  return { ...(escaped.length > 0 ? { escaped } : {}), ...(spawns.some((spawn) => spawn.outputHeld) ? { outputHeld: true } : {}) }
}

/** Runs a command or function check with its retries. Manual checks are not run here. */
export async function executeCheck(check: ResolvedCheck, ctx: CheckRunContext): Promise<CheckResult> {
  const now = ctx.now ?? (() => new Date())
  let result = await attemptOnce(check, ctx, 1)
  let attempts = 1
  // An earlier attempt's escaped processes are part of the record too: the attempt that passed did not undo them.
  const spawns = [result.spawn]
  while ((result.status === 'failed' || result.status === 'timed_out') && attempts <= check.retries && !ctx.signal?.aborted) {
    attempts++
    result = await attemptOnce(check, ctx, attempts)
    spawns.push(result.spawn)
  }
  const evidence: Evidence = {
    type: check.evidenceType,
    passed: result.status === 'passed',
    command: recordedCommand(check),
    exitCode: check.kind === 'command' ? result.spawn.exitCode : null,
    signal: result.spawn.signal,
    timedOut: result.spawn.timedOut,
    durationMs: result.spawn.durationMs,
    timestamp: now().toISOString(),
    fingerprint: ctx.fingerprint,
    checkDigest: ctx.checkDigest,
    output: result.output,
    error: result.status === 'error' ? result.reason : null,
    metadata: { ...result.spawn.metadata, ...supervisionNotes(spawns) },
  }
  if (result.tests) evidence.tests = result.tests
  if (attempts > 1) {
    evidence.attempts = attempts
    evidence.flaky = result.status === 'passed'
  }
  return checkResult(check, result.status, result.reason, evidence)
}
