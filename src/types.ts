// Runtime shapes shared by the runner, the evidence store, the verdict and the reporters.
// The user-facing config types are inferred from the zod schema in `config/schema.ts`.

export type CheckKind = 'command' | 'function' | 'manual'

/** `pending` and `running` exist only while a run is under way; a written evidence file never holds them. */
export type CheckStatus =
  | 'pending'
  | 'running'
  | 'passed'
  | 'failed'
  | 'timed_out'
  | 'error'
  | 'cancelled'
  | 'skipped'
  | 'pending_manual'
  | 'stale'

export type Verdict = 'approved' | 'rejected' | 'incomplete'

/** What a `run` function check receives. */
export interface CheckContext {
  /** The folder the check runs in (absolute). */
  cwd: string
  /** Aborted when the check times out or the run is cancelled. */
  signal: AbortSignal
  /** The check's id. */
  checkId: string
  /** The id of this verification run. */
  runId: string
  /** The environment the check would get as a command (secrets like VERIFY_SIGNING_KEY removed). */
  env: Record<string, string>
}

/** What a `run` function check returns (or `true` / `false`). */
export interface FunctionCheckResult {
  passed: boolean
  output?: string
  metadata?: Record<string, unknown>
}

export type RunFunction = (context: CheckContext) => Promise<FunctionCheckResult | boolean> | FunctionCheckResult | boolean

export interface TestsSpec {
  junit?: string
  vitestJson?: string
  min: number
}

export interface ExpectSpec {
  output?: RegExp | string
  notOutput?: RegExp | string
}

/** A check after validation and defaults: what the engine runs. */
export interface ResolvedCheck {
  id: string
  name: string
  description?: string
  evidenceType: string
  required: boolean
  kind: CheckKind
  command?: string | string[]
  run?: RunFunction
  /** Instructions for a manual check. */
  manual?: string
  timeoutMs: number
  dependsOn: string[]
  /** Absolute folder the check runs in. */
  cwd: string
  env: Record<string, string>
  inputs?: string[]
  tests?: TestsSpec
  retries: number
  expect?: ExpectSpec
  /**
   * For a function check: a digest of the config files that define it (the config and its presets), so that a change
   * to what its closure reads (a threshold constant beside it) changes the check's digest, not only its source text.
   */
  definedIn?: string
}

/** Where a protocol was loaded from: the process of a function check loads it again from there (SPEC §4). */
export interface ProtocolSource {
  /** The folder the config was looked for in (absolute). */
  cwd: string
  /** The config file given instead of discovery (absolute). */
  configFile?: string
  /** The protocol asked for, as given. */
  protocol?: string
}

/** A protocol after validation and defaults. */
export interface ResolvedProtocol {
  name: string
  description?: string
  strictMode: boolean
  parallel: boolean
  concurrency: number
  failFast: boolean
  skipOptional: boolean
  timeoutMs: number
  maxAgeMs: number
  /** Time between SIGTERM and SIGKILL to a timed-out check's process group. */
  graceMs: number
  /** Folder the config lives in: the default cwd of every check. */
  rootDir: string
  /** Patterns whose matches are masked in everything written or printed. */
  redact: (string | RegExp)[]
  /** Cap of each check's full log file, in bytes. */
  logLimitBytes: number
  /** Which approvals of manual checks count: `tty` refuses those recorded without a terminal (a script, an agent). */
  approvals?: 'any' | 'tty'
  /** The config's `reporters`, used when no `--reporter` is given. */
  reporters?: ReporterEntry[]
  checks: ResolvedCheck[]
  /** Set when it was loaded from a config; a protocol built in memory has none and runs its function checks in process. */
  source?: ProtocolSource
}

export interface OutputRecord {
  /** Head and tail of the combined output, ANSI stripped, with an omission marker when truncated. */
  text: string
  /** Total bytes the check printed (stdout + stderr, raw). */
  bytes: number
  truncated: boolean
  /** SHA-256 (hex) of the raw bytes printed, in arrival order. */
  sha256: string
  /** Set when the full log in the logs folder is incomplete (beyond its cap): why, in words. */
  logTruncated?: string
}

export interface TestCounts {
  passed: number
  failed: number
  skipped: number
  /** Tests marked todo, when the runner reports them apart from skipped ones. */
  todo?: number
}

/** Evidence a test runner recorded from its own run (its reporter), rather than a check that verify ran. */
export interface RecordedBy {
  runner: 'vitest' | 'jest'
  /** The runner's version. */
  version: string
  /** Every test of the suite was run, nothing filtered or cut off: only then does the evidence count. */
  fullRun: boolean
  /** Why it was not a full run, in words. */
  notFull?: string
}

/**
 * One failing test as a report (or the runner's own output) names it. Anything that records evidence fills the same
 * shape: `name` as the runner shows it (`suite > test`), `file` relative to the check's folder, `line` 1-based, and
 * `message` the first line of the failure, each field only when known.
 */
export interface TestFailure {
  name: string
  file?: string
  line?: number
  message?: string
}

/** Counts parsed from a test report, and the first few failing tests (at most 10; `failed` counts them all). */
export interface TestsRecord extends TestCounts {
  failures?: TestFailure[]
}

export interface Evidence {
  type: string
  passed: boolean
  command: string | null
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  durationMs: number
  /** ISO 8601 time the check finished. */
  timestamp: string
  /** ISO 8601 time the run that recorded it ended: its age counts from here (SPEC §6.1). Kept when reused. */
  runFinishedAt?: string
  fingerprint: string
  checkDigest: string
  output: OutputRecord
  error: string | null
  tests?: TestsRecord
  /** Runs it took: more than 1 when `retries` were used. */
  attempts?: number
  /** Passed only on a retry. */
  flaky?: boolean
  /** Carried from an earlier run because it was still valid. */
  reused?: boolean
  approval?: { by: string; note: string | null }
  recordedBy?: RecordedBy
  metadata: Record<string, unknown>
}

/** One check's state in a run. */
export interface CheckResult {
  id: string
  name: string
  evidenceType: string
  required: boolean
  status: CheckStatus
  /** Why it is skipped / cancelled / stale / error / failed, in words. */
  reason: string | null
  evidence: Evidence | null
}

export interface WorkspaceInfo {
  fingerprint: string
  /** `head` is for information: the fingerprint is bound to the tree, not to the commit. */
  git: {
    head: string | null
    tree: string
    dirty: boolean
    /** Checked-out submodules' working trees, by path from the top (only when there are any). */
    submodules?: Record<string, string>
  } | null
}

/** One run's mutable instance of a protocol. */
export interface Checklist {
  protocol: ResolvedProtocol
  runId: string
  startedAt: string | null
  finishedAt: string | null
  workspace: WorkspaceInfo | null
  results: CheckResult[]
}

export interface Summary {
  total: number
  passed: number
  failed: number
  skipped: number
  cancelled: number
  pending: number
  verdict: Verdict
  issues: string[]
  recommendations: string[]
  warnings: string[]
}

/** A file verify wrote and left out of the fingerprint, with what it wrote there. */
export interface OutputFile {
  /** Relative to the evidence file's folder, `/`-separated. */
  path: string
  /** `sha256:<hex>` of its content; absent for a copy of the evidence (recognised by its content). */
  sha256?: string
}

export interface EvidenceFile {
  schemaVersion: 1
  tool: { name: string; version: string }
  protocol: { name: string; digest: string; strictMode: boolean }
  /** `outputs`: files verify wrote (reports, merged shards) that later fingerprints leave out while unchanged. */
  workspace: WorkspaceInfo & { outputs?: OutputFile[] }
  runId: string
  startedAt: string
  finishedAt: string
  /** Set when the run was interrupted by a signal. */
  interrupted?: string
  /** Set on a shard's evidence: which share of the protocol it ran, and the verdict of that share alone. */
  shard?: { index: number; total: number; checks: string[]; verdict: Verdict }
  checks: CheckResult[]
  summary: Summary
  signature?: { alg: 'hmac-sha256'; value: string }
}

/** What a run hands its reporters at the end. */
export interface RunOutcome {
  checklist: Checklist
  summary: Summary
  /** The evidence file as written. */
  file: EvidenceFile
  /** Where it was written (absolute). */
  evidencePath: string
  /** The signal that interrupted the run, if any. */
  interrupted: 'SIGINT' | 'SIGTERM' | 'SIGHUP' | null
}

/** A reporter in the config: a built-in name or module path, `[name or path, options]`, or a reporter object. */
export type ReporterEntry = string | [string, Record<string, unknown>] | Reporter

/** A reporter: optional lifecycle hooks, as in Vitest. */
export interface Reporter {
  onRunStart?(checklist: Checklist): void | Promise<void>
  onCheckStart?(check: ResolvedCheck, result: CheckResult): void
  /** Decoded output as it arrives (ANSI kept, secrets masked). */
  onCheckOutput?(check: ResolvedCheck, chunk: string, stream: 'stdout' | 'stderr'): void
  /** The check is settled: `result.status` and `result.evidence` are final for this run. */
  onCheckEnd?(check: ResolvedCheck, result: CheckResult): void
  onRunEnd?(outcome: RunOutcome): void | Promise<void>
}
