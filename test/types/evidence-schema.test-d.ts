// The evidence JSON Schema comes from a zod schema that must describe EvidenceFile (src/types.ts) field for field.
import { describe, expectTypeOf, it } from 'vitest'
import { checkResultSchema, evidenceFileSchema, evidenceSchema, summarySchema } from '../../src/evidence/schema.js'
import type { CheckResult, Evidence, EvidenceFile, Summary } from '../../src/types.js'

type Known<S extends { shape: object }> = keyof S['shape']

describe('the evidence schema matches the EvidenceFile type', () => {
  it('has the same fields at every level', () => {
    expectTypeOf<Known<typeof evidenceFileSchema>>().toEqualTypeOf<keyof EvidenceFile>()
    expectTypeOf<Known<typeof checkResultSchema>>().toEqualTypeOf<keyof CheckResult>()
    expectTypeOf<Known<typeof evidenceSchema>>().toEqualTypeOf<keyof Evidence>()
    expectTypeOf<Known<typeof summarySchema>>().toEqualTypeOf<keyof Summary>()
    expectTypeOf<Known<typeof evidenceSchema.shape.output>>().toEqualTypeOf<keyof Evidence['output']>()
    expectTypeOf<Known<typeof evidenceFileSchema.shape.workspace>>().toEqualTypeOf<keyof EvidenceFile['workspace']>()
  })
})
