// The evidence file's format (SPEC §5) as a zod schema: the source of `verify schema evidence` and of the evidence
// types (EvidenceFile, CheckResult, Summary … in types.ts are inferred from it). Objects accept more fields, the format
// may grow: reading validates the known fields and keeps the file as it is. The JSDoc on a field is its type's doc.
import { z } from 'zod'
import { VERDICTS, WRITTEN_STATUSES } from '../status.js'

const sha256 = z.string().regex(/^sha256:[0-9a-f]{64}$/)
const isoTime = z.iso.datetime({ offset: true })
const verdict = z.enum(VERDICTS)

const outputSchema = z.object({
  /** Head and tail of the combined output, ANSI stripped, with an omission marker when truncated. */
  text: z.string(),
  /** Total bytes the check printed (stdout + stderr, raw). */
  bytes: z.number().int().min(0),
  truncated: z.boolean(),
  /** SHA-256 (hex) of the raw bytes printed, in arrival order. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Set when the full log in the logs folder is incomplete (beyond its cap): why, in words. */
  logTruncated: z.string().optional(),
})

const testFailureSchema = z.object({
  name: z.string(),
  file: z.string().optional(),
  line: z.number().int().min(1).optional(),
  message: z.string().optional(),
})

const testCountsSchema = z.object({
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  skipped: z.number().int().min(0),
  /** Tests marked todo, when the runner reports them apart from skipped ones. */
  todo: z.number().int().min(0).optional(),
})

const testsSchema = testCountsSchema.extend({ failures: z.array(testFailureSchema).optional() })

const recordedBySchema = z.object({
  runner: z.enum(['vitest', 'jest']),
  /** The runner's version. */
  version: z.string(),
  /** Every test of the suite was run, nothing filtered or cut off: only then does the evidence count. */
  fullRun: z.boolean(),
  /** Why it was not a full run, in words. */
  notFull: z.string().optional(),
})

export const evidenceSchema = z.object({
  type: z.string().min(1),
  passed: z.boolean(),
  command: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().min(0),
  /** ISO 8601 time the check finished. */
  timestamp: isoTime,
  /** ISO 8601 time the run that recorded it ended: its age counts from here (SPEC §6.1). Kept when reused. */
  runFinishedAt: isoTime.optional(),
  fingerprint: sha256,
  checkDigest: sha256,
  output: outputSchema,
  error: z.string().nullable(),
  tests: testsSchema.optional(),
  /** Runs it took: more than 1 when `retries` were used. */
  attempts: z.number().int().min(1).optional(),
  /** Passed only on a retry. */
  flaky: z.boolean().optional(),
  /** Carried from an earlier run because it was still valid. */
  reused: z.boolean().optional(),
  approval: z.object({ by: z.string(), note: z.string().nullable() }).optional(),
  recordedBy: recordedBySchema.optional(),
  metadata: z.record(z.string(), z.unknown()),
})

export const checkResultSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  evidenceType: z.string().min(1),
  required: z.boolean(),
  status: z.enum(WRITTEN_STATUSES),
  /** Why it is skipped / cancelled / stale / error / failed, in words. */
  reason: z.string().nullable(),
  evidence: evidenceSchema.nullable(),
})

export const summarySchema = z.object({
  total: z.number().int().min(0),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  skipped: z.number().int().min(0),
  /** Absent from files of earlier versions, which counted cancelled checks as skipped. */
  cancelled: z.number().int().min(0).optional(),
  pending: z.number().int().min(0),
  verdict,
  issues: z.array(z.string()),
  recommendations: z.array(z.string()),
  warnings: z.array(z.string()),
})

const workspaceSchema = z.object({
  fingerprint: sha256,
  /** `head` is for information: the fingerprint is bound to the tree, not to the commit. */
  git: z
    .object({
      head: z.string().nullable(),
      tree: z.string(),
      dirty: z.boolean(),
      /** Checked-out submodules' working trees, by path from the top (only when there are any). */
      submodules: z.record(z.string(), z.string()).optional(),
    })
    .nullable(),
})

const outputFileSchema = z.object({
  /** Relative to the evidence file's folder, `/`-separated. */
  path: z.string().min(1),
  /** `sha256:<hex>` of its content; absent for a copy of the evidence (recognised by its content). */
  sha256: sha256.optional(),
})

export const evidenceFileSchema = z
  .object({
    schemaVersion: z.literal(1),
    tool: z.object({ name: z.string(), version: z.string() }),
    protocol: z.object({ name: z.string(), digest: sha256, strictMode: z.boolean() }),
    /** `outputs`: files verify wrote (reports, merged shards) that later fingerprints leave out while unchanged. */
    workspace: workspaceSchema.extend({ outputs: z.array(outputFileSchema).optional() }),
    runId: z.string().min(1),
    startedAt: isoTime,
    finishedAt: isoTime,
    /** Set when the run was interrupted by a signal. */
    interrupted: z.string().optional(),
    /** Set on a shard's evidence: which share of the protocol it ran, and the verdict of that share alone. */
    shard: z
      .object({
        index: z.number().int().min(1),
        total: z.number().int().min(1),
        checks: z.array(z.string()),
        verdict,
      })
      .optional(),
    checks: z.array(checkResultSchema),
    summary: summarySchema,
    signature: z.object({ alg: z.literal('hmac-sha256'), value: z.string().min(1) }).optional(),
  })
  .meta({ title: 'verify-protocol evidence file', description: 'What `verify` writes to .verify/evidence.json (SPEC §5)' })

// The types, as reading a file gives them (z.output). types.ts exports them under these names; their fields' docs are
// the comments on the schema's fields above.

/** The evidence file (SPEC §5), as `verify` writes it and as reading it gives it. */
export type EvidenceFile = z.output<typeof evidenceFileSchema>
/** What one check's run (or approval) recorded. */
export type Evidence = z.output<typeof evidenceSchema>
/** One check as a written evidence file holds it: its status is never `pending` or `running`. */
export type WrittenCheckResult = z.output<typeof checkResultSchema>
/** The counts, the verdict, and what to do about each unsatisfied check. */
export type Summary = z.output<typeof summarySchema>
export type WorkspaceInfo = z.output<typeof workspaceSchema>
export type OutputRecord = z.output<typeof outputSchema>
/** A file verify wrote and left out of the fingerprint, with what it wrote there. */
export type OutputFile = z.output<typeof outputFileSchema>
export type TestCounts = z.output<typeof testCountsSchema>
/** Counts parsed from a test report, and the first few failing tests (at most 10; `failed` counts them all). */
export type TestsRecord = z.output<typeof testsSchema>
/**
 * One failing test as a report (or the runner's own output) names it. Anything that records evidence fills the same
 * shape: `name` as the runner shows it (`suite > test`), `file` relative to the check's folder, `line` 1-based, and
 * `message` the first line of the failure, each field only when known.
 */
export type TestFailure = z.output<typeof testFailureSchema>
/** Evidence a test runner recorded from its own run (its reporter), rather than a check that verify ran. */
export type RecordedBy = z.output<typeof recordedBySchema>
