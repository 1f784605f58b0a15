// The evidence file's format (SPEC §5) as a zod schema: the source of `verify schema evidence`. It matches
// `EvidenceFile` in types.ts (test/types/evidence-schema.test-d.ts holds them together). Objects accept more fields: the format may grow.
import { z } from 'zod'

const sha256 = z.string().regex(/^sha256:[0-9a-f]{64}$/)
const isoTime = z.iso.datetime({ offset: true })

/** Statuses a written evidence file holds (`pending` and `running` exist only during a run). */
export const WRITTEN_STATUSES = ['passed', 'failed', 'timed_out', 'error', 'cancelled', 'skipped', 'pending_manual', 'stale'] as const

const outputSchema = z.looseObject({
  text: z.string(),
  bytes: z.number().int().min(0),
  truncated: z.boolean(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  logTruncated: z.string().optional(),
})

/** A failing test named by the report (TestFailure in types.ts). */
const testFailureSchema = z.looseObject({
  name: z.string(),
  file: z.string().optional(),
  line: z.number().int().min(1).optional(),
  message: z.string().optional(),
})

export const evidenceSchema = z.looseObject({
  type: z.string().min(1),
  passed: z.boolean(),
  command: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().min(0),
  timestamp: isoTime,
  runFinishedAt: isoTime.optional(),
  fingerprint: sha256,
  checkDigest: sha256,
  output: outputSchema,
  error: z.string().nullable(),
  tests: z
    .looseObject({
      passed: z.number().int().min(0),
      failed: z.number().int().min(0),
      skipped: z.number().int().min(0),
      todo: z.number().int().min(0).optional(),
      failures: z.array(testFailureSchema).optional(),
    })
    .optional(),
  attempts: z.number().int().min(1).optional(),
  flaky: z.boolean().optional(),
  reused: z.boolean().optional(),
  approval: z.looseObject({ by: z.string(), note: z.string().nullable() }).optional(),
  recordedBy: z
    .looseObject({ runner: z.enum(['vitest', 'jest']), version: z.string(), fullRun: z.boolean(), notFull: z.string().optional() })
    .optional(),
  metadata: z.record(z.string(), z.unknown()),
})

export const checkResultSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  evidenceType: z.string().min(1),
  required: z.boolean(),
  status: z.enum(WRITTEN_STATUSES),
  reason: z.string().nullable(),
  evidence: evidenceSchema.nullable(),
})

export const summarySchema = z.looseObject({
  total: z.number().int().min(0),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  skipped: z.number().int().min(0),
  // Absent from files of earlier versions, which counted cancelled checks as skipped.
  cancelled: z.number().int().min(0).optional(),
  pending: z.number().int().min(0),
  verdict: z.enum(['approved', 'rejected', 'incomplete']),
  issues: z.array(z.string()),
  recommendations: z.array(z.string()),
  warnings: z.array(z.string()),
})

export const evidenceFileSchema = z
  .looseObject({
    schemaVersion: z.literal(1),
    tool: z.looseObject({ name: z.string(), version: z.string() }),
    protocol: z.looseObject({ name: z.string(), digest: sha256, strictMode: z.boolean() }),
    workspace: z.looseObject({
      fingerprint: sha256,
      git: z
        .looseObject({ head: z.string().nullable(), tree: z.string(), dirty: z.boolean(), submodules: z.record(z.string(), z.string()).optional() })
        .nullable(),
      outputs: z.array(z.looseObject({ path: z.string().min(1), sha256: sha256.optional() })).optional(),
    }),
    runId: z.string().min(1),
    startedAt: isoTime,
    finishedAt: isoTime,
    interrupted: z.string().optional(),
    shard: z
      .looseObject({
        index: z.number().int().min(1),
        total: z.number().int().min(1),
        checks: z.array(z.string()),
        verdict: z.enum(['approved', 'rejected', 'incomplete']),
      })
      .optional(),
    checks: z.array(checkResultSchema),
    summary: summarySchema,
    signature: z.looseObject({ alg: z.literal('hmac-sha256'), value: z.string().min(1) }).optional(),
  })
  .meta({ title: 'verify-protocol evidence file', description: 'What `verify` writes to .verify/evidence.json (SPEC §5)' })

/** The evidence file's type as the schema reads it (test/types/evidence-schema.test-d.ts keeps it in step with EvidenceFile). */
export type EvidenceFileFromSchema = z.output<typeof evidenceFileSchema>
