// Runtime shapes shared by the runner, the evidence store, the verdict and the reporters.
// The user-facing config types are inferred from the zod schema in `config/schema.ts`; the evidence file's types
// from the zod schema in `evidence/schema.ts`; the statuses and verdicts from the lists in `status.ts`.
import type { EvidenceFile, Summary, WorkspaceInfo, WrittenCheckResult } from './evidence/schema.js'
import type { CheckStatus } from './status.js'

export type { CheckStatus, Verdict, WrittenStatus } from './status.js'
export type {
  Evidence,
  EvidenceFile,
  OutputFile,
  OutputRecord,
  RecordedBy,
  Summary,
  TestCounts,
  TestFailure,
  TestsRecord,
  WorkspaceInfo,
  WrittenCheckResult,
} from './evidence/schema.js'

export type CheckKind = 'command' | 'function' | 'manual'

/** Environment variables, as `process.env` holds them (without needing Node's types to name them). */
export type Environment = Readonly<Record<string, string | undefined>>

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
  /**
   * For a command that runs package.json scripts (`npm test`, `pnpm run unit`): their bodies, and those of the scripts
   * they run, as the config's folder had them when the config was resolved (config/scripts.ts).
   */
  scripts?: Record<string, string>
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

/** One check's state in a run: a written one's fields, with the statuses of a run under way (`pending`, `running`). */
export interface CheckResult extends Omit<WrittenCheckResult, 'status'> {
  status: CheckStatus
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

/** What a run hands its reporters at the end. */
export interface RunOutcome {
  checklist: Checklist
  summary: Summary
  /** The evidence file as written. */
  file: EvidenceFile
  /** Where it was written (absolute). */
  evidencePath: string
  /** Set when the evidence could not be written there: why (the results are still reported). */
  notSaved?: string
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
