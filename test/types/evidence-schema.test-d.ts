// The evidence types are inferred from the zod schema (src/evidence/schema.ts): what the schema rejects does not
// typecheck, what it accepts does, and the statuses and verdicts come from the one list in src/status.ts.
import { describe, expectTypeOf, it } from 'vitest'
import type { z } from 'zod'
import type { Approval, approvalsFileSchema } from '../../src/evidence/approvals.js'
import type { checkResultSchema, evidenceFileSchema } from '../../src/evidence/schema.js'
import type { CHECK_STATUSES, VERDICTS, WRITTEN_STATUSES } from '../../src/status.js'
import type { CheckResult, CheckStatus, Evidence, EvidenceFile, Summary, Verdict, WrittenCheckResult, WrittenStatus } from '../../src/types.js'
import { check, evidence, file, is, SHA, summary } from './evidence-samples.js'

describe('the evidence types are the schema’s', () => {
  it('are what parsing a file gives', () => {
    expectTypeOf<z.output<typeof evidenceFileSchema>>().toEqualTypeOf<EvidenceFile>()
    expectTypeOf(file).toEqualTypeOf<EvidenceFile>()
  })

  it('name the known fields only: a misspelt one does not typecheck, though the schema lets a file carry more', () => {
    // @ts-expect-error a misspelt field is not an evidence field (the types have no index signature)
    is<Evidence>({ ...evidence, flakey: true })
    // @ts-expect-error nor of a check's result
    is<WrittenCheckResult>({ ...check, reasons: [] })
    // @ts-expect-error nor of the file
    is<EvidenceFile>({ ...file, sumary: summary })
  })

  it('optional fields of the schema are optional in the type, and only those', () => {
    // Files of earlier versions have no `cancelled` count.
    expectTypeOf<Summary['cancelled']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Evidence['runFinishedAt']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<Evidence['exitCode']>().toEqualTypeOf<number | null>()
    expectTypeOf<EvidenceFile['workspace']['git']>().toEqualTypeOf<{
      head: string | null
      tree: string
      dirty: boolean
      submodules?: Record<string, string> | undefined
    } | null>()
  })
})

describe('one list of statuses, one of verdicts', () => {
  it('types and zod enums come from the same lists', () => {
    expectTypeOf<CheckStatus>().toEqualTypeOf<(typeof CHECK_STATUSES)[number]>()
    expectTypeOf<WrittenStatus>().toEqualTypeOf<Exclude<CheckStatus, 'pending' | 'running'>>()
    expectTypeOf<WrittenStatus>().toEqualTypeOf<(typeof WRITTEN_STATUSES)[number]>()
    expectTypeOf<z.input<typeof checkResultSchema>['status']>().toEqualTypeOf<WrittenStatus>()
    expectTypeOf<Verdict>().toEqualTypeOf<(typeof VERDICTS)[number]>()
    expectTypeOf<Summary['verdict']>().toEqualTypeOf<Verdict>()
    expectTypeOf<NonNullable<EvidenceFile['shard']>['verdict']>().toEqualTypeOf<Verdict>()
  })

  it("a run's result is a written one's fields with a run's statuses", () => {
    expectTypeOf<Omit<CheckResult, 'status'>>().toEqualTypeOf<Omit<WrittenCheckResult, 'status'>>()
    expectTypeOf<CheckResult['status']>().toEqualTypeOf<CheckStatus>()
    expectTypeOf<WrittenCheckResult>().toExtend<CheckResult>()
  })
})

describe('approvals.json', () => {
  it('Approval is the schema’s', () => {
    expectTypeOf<z.output<typeof approvalsFileSchema>['approvals'][string]>().toEqualTypeOf<Approval>()
    // @ts-expect-error an approval is bound to the code: its fingerprint is required
    is<Approval>({ by: 'ada', note: null, timestamp: '2026-11-30T12:00:00.000Z', checkDigest: SHA, evidenceType: 'manual_approval' })
  })
})
