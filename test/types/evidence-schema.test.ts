// The evidence types and the evidence schema agree both ways: the typed sample parses, and each change that does not
// typecheck (the @ts-expect-error lines, held by `npm run typecheck`) is one the schema rejects when a file holds it.
import { describe, expect, it } from 'vitest'
import { checkResultSchema, evidenceFileSchema, evidenceSchema, summarySchema } from '../../src/evidence/schema.js'
import { CHECK_STATUSES, VERDICTS, WRITTEN_STATUSES } from '../../src/status.js'
import type { Evidence, EvidenceFile, Summary, WrittenCheckResult } from '../../src/types.js'
import { check, evidence, file, is, summary } from './evidence-samples.js'

describe('the evidence types and schema agree', () => {
  it('a file typed as EvidenceFile parses', () => {
    expect(evidenceFileSchema.safeParse(file).error?.issues ?? []).toEqual([])
  })

  it('what does not typecheck, the schema rejects', () => {
    const { fingerprint: _dropped, ...unbound } = evidence
    const refused = [
      evidenceFileSchema.safeParse(
        // @ts-expect-error the schema reads schemaVersion 1 only
        is<EvidenceFile>({ ...file, schemaVersion: 2 }),
      ),
      checkResultSchema.safeParse(
        // @ts-expect-error a written file never holds a check that is still running
        is<WrittenCheckResult>({ ...check, status: 'running' }),
      ),
      summarySchema.safeParse(
        // @ts-expect-error the verdict is one of three
        is<Summary>({ ...summary, verdict: 'maybe' }),
      ),
      evidenceSchema.safeParse(
        // @ts-expect-error evidence is bound to the code: its fingerprint is required
        is<Evidence>(unbound),
      ),
      evidenceSchema.safeParse(
        // @ts-expect-error metadata is an object, not text
        is<Evidence>({ ...evidence, metadata: 'none' }),
      ),
      evidenceFileSchema.safeParse(
        // @ts-expect-error a signature names its algorithm
        is<EvidenceFile>({ ...file, signature: { value: 'abc' } }),
      ),
    ]
    expect(refused.map((r) => r.success)).toEqual(refused.map(() => false))
  })

  it('the status and verdict enums are the lists of src/status.ts', () => {
    expect(checkResultSchema.shape.status.options).toEqual([...WRITTEN_STATUSES])
    expect(CHECK_STATUSES).toEqual(['pending', 'running', ...WRITTEN_STATUSES])
    expect(summarySchema.shape.verdict.options).toEqual([...VERDICTS])
  })
})
