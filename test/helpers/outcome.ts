// Builders for reporter tests: a finished run (RunOutcome) made in the test, and reporter options that record.
import { buildEvidenceFile } from '../../src/evidence/record.js'
import type { ReporterOptions } from '../../src/reporters/options.js'
import type { Reporter, RunOutcome } from '../../src/reporters/types.js'
import type { CheckResult, CheckStatus, Checklist, ResolvedCheck, ResolvedProtocol } from '../../src/types.js'
import { summarize } from '../../src/verdict/summary.js'

export const CWD = '/project'
export const EVIDENCE = '/project/.verify/evidence.json'

export interface ResultSpec {
  name?: string
  required?: boolean
  reason?: string | null
  /** Output text; a check with output (or a status that runs) gets evidence. */
  output?: string
  durationMs?: number
  exitCode?: number | null
  signal?: string | null
  command?: string | null
  /** No evidence at all (never ran). */
  noEvidence?: boolean
}

const RAN: ReadonlySet<CheckStatus> = new Set(['passed', 'failed', 'timed_out', 'error'])

export function result(id: string, status: CheckStatus, spec: ResultSpec = {}): CheckResult {
  const ran = !spec.noEvidence && (RAN.has(status) || spec.output !== undefined)
  const failing = status === 'failed' || status === 'timed_out' || status === 'error'
  const output = spec.output ?? ''
  return {
    id,
    name: spec.name ?? id,
    evidenceType: 'command_success',
    required: spec.required ?? true,
    status,
    reason: spec.reason !== undefined ? spec.reason : failing ? 'exit code 1' : status === 'passed' ? null : `${status} for a reason`,
    evidence: ran
      ? {
          type: 'command_success',
          passed: status === 'passed',
          command: spec.command === undefined ? `run ${id}` : spec.command,
          exitCode: spec.exitCode !== undefined ? spec.exitCode : status === 'passed' ? 0 : status === 'failed' ? 1 : null,
          signal: spec.signal ?? (status === 'timed_out' ? 'SIGTERM' : null),
          timedOut: status === 'timed_out',
          durationMs: spec.durationMs ?? 1234,
          timestamp: '2026-11-30T12:00:03.100Z',
          fingerprint: 'sha256:0',
          checkDigest: 'sha256:0',
          output: { text: output, bytes: Buffer.byteLength(output), truncated: false, sha256: '0'.repeat(64) },
          error: status === 'error' ? (spec.reason ?? 'could not run') : null,
          metadata: {},
        }
      : null,
  }
}

function resolvedCheck(r: CheckResult): ResolvedCheck {
  return {
    id: r.id,
    name: r.name,
    evidenceType: r.evidenceType,
    required: r.required,
    kind: 'command',
    command: r.evidence?.command ?? `run ${r.id}`,
    timeoutMs: 60_000,
    dependsOn: [],
    cwd: CWD,
    env: {},
    retries: 0,
  }
}

export function protocolOf(results: readonly CheckResult[], options: { name?: string; strictMode?: boolean } = {}): ResolvedProtocol {
  return {
    name: options.name ?? 'default',
    strictMode: options.strictMode ?? false,
    parallel: true,
    concurrency: 4,
    failFast: false,
    skipOptional: false,
    timeoutMs: 60_000,
    maxAgeMs: 300_000,
    graceMs: 5000,
    rootDir: CWD,
    redact: [],
    logLimitBytes: 50 * 1024 * 1024,
    checks: results.map(resolvedCheck),
  }
}

export function checklistOf(results: CheckResult[], options: { name?: string; strictMode?: boolean } = {}): Checklist {
  return {
    protocol: protocolOf(results, options),
    runId: '00000000-0000-4000-8000-000000000000',
    startedAt: '2026-11-30T12:00:00.000Z',
    finishedAt: '2026-11-30T12:00:03.210Z',
    workspace: { fingerprint: 'sha256:0', git: null },
    results,
  }
}

export interface OutcomeOptions {
  name?: string
  strictMode?: boolean
  interrupted?: 'SIGINT' | 'SIGTERM' | 'SIGHUP'
  /** Makes it a shard's run: `{ index, total, checks }`. */
  shard?: { index: number; total: number; checks: string[] }
}

export function outcome(results: CheckResult[], options: OutcomeOptions = {}): RunOutcome {
  const checklist = checklistOf(results, options)
  const summary = summarize(results, checklist.protocol.strictMode, { interrupted: options.interrupted !== undefined })
  const file = buildEvidenceFile(checklist, summary, options.interrupted ?? null)
  if (options.shard) {
    const own = results.filter((r) => options.shard?.checks.includes(r.id))
    file.shard = { ...options.shard, verdict: summarize(own, checklist.protocol.strictMode).verdict }
  }
  return { checklist, summary, file, evidencePath: EVIDENCE, interrupted: options.interrupted ?? null }
}

/** Reporter options whose output is collected in `out.text`. */
export function recorder(overrides: Partial<ReporterOptions> = {}): { options: ReporterOptions; out: { text: string } } {
  const out = { text: '' }
  const options: ReporterOptions = {
    write: (text) => void (out.text += text),
    color: false,
    isTTY: false,
    ci: false,
    cwd: CWD,
    env: {},
    ...overrides,
  }
  return { options, out }
}

/** Runs a reporter through a finished run's hooks, as the runner would. */
export async function replay(reporter: Reporter, run: RunOutcome): Promise<void> {
  await reporter.onRunStart?.(run.checklist)
  for (const [i, r] of run.checklist.results.entries()) {
    const check = run.checklist.protocol.checks[i] as ResolvedCheck
    reporter.onCheckStart?.(check, r)
    if (r.evidence?.output.text) reporter.onCheckOutput?.(check, r.evidence.output.text, 'stdout')
    reporter.onCheckEnd?.(check, r)
  }
  await reporter.onRunEnd?.(run)
}

/** `count` lines `prefix 1`, `prefix 2`, …, newline-terminated. */
export function lines(count: number, make: (i: number) => string): string {
  let text = ''
  for (let i = 1; i <= count; i++) text += `${make(i)}\n`
  return text
}
