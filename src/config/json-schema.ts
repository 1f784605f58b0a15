// JSON Schemas generated from the zod schemas (`verify schema`), for editors and for tools that read evidence.
import { z } from 'zod'
import { evidenceFileSchema } from '../evidence/schema.js'
import { configFileSchema, durationInputSchema, regExpSchema, runFunctionSchema } from './schema.js'

type JsonSchema = Record<string, unknown>

/** JSON Schema of a config file: what a `verify.config.json`, `.verifyrc` or package.json `verify` key may hold. */
export function configJsonSchema(): JsonSchema {
  return z.toJSONSchema(configFileSchema, {
    io: 'input',
    // Functions and RegExps exist only in TypeScript / JavaScript configs; JSON cannot hold them.
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema === durationInputSchema) {
        Object.assign(jsonSchema, {
          description: 'A duration: milliseconds, or a string like "500ms", "30s", "5m", "1.5h", "1d"',
          anyOf: [
            { type: 'number', minimum: 0 },
            { type: 'string', pattern: String.raw`^\s*(\d+(\.\d+)?\s*(ms|s|m|h|d)|\d+)\s*$` },
          ],
        })
      } else if (zodSchema === runFunctionSchema) {
        Object.assign(jsonSchema, { description: 'An async function ({ cwd, signal, env, checkId, runId }) => boolean | { passed, output? } (TypeScript / JavaScript configs only)' })
      } else if (zodSchema === regExpSchema) {
        Object.assign(jsonSchema, { description: 'A RegExp (TypeScript / JavaScript configs only)' })
      }
    },
  }) as JsonSchema
}

/** JSON Schema of the evidence file (SPEC §5). */
export function evidenceJsonSchema(): JsonSchema {
  return z.toJSONSchema(evidenceFileSchema, { io: 'output', unrepresentable: 'any' }) as JsonSchema
}
