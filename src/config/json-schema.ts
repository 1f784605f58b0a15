// JSON Schemas generated from the zod schemas (`verify schema`), for editors and for tools that read evidence.
// A JSON config is stricter than a TypeScript one: it cannot hold functions or RegExps. The rules zod checks in code
// (exactly one kind per check, one test report, kebab-case ids) are spelled out as JSON Schema keywords here.
import { z } from 'zod'
import { MAX_TIMER_MS } from '../duration.js'
import { approvalsFileSchema } from '../evidence/approvals.js'
import { evidenceFileSchema } from '../evidence/schema.js'
import {
  CHECK_ID_PATTERN,
  checkFieldsSchema,
  checkSchema,
  checksSchema,
  durationInputSchema,
  layerListSchema,
  protocolOptionsSchema,
  reporterEntrySchema,
  regExpSchema,
  runFunctionSchema,
  testsSchema,
} from './schema.js'

type JsonSchema = Record<string, unknown>

// Where a check may leave out its kind (it overrides an inherited check's fields): in a file over layers
// (`extends`), in a protocol that extends another, and in `$env` blocks.
const partialChecksSchema = z.record(z.string(), z.union([z.string().min(1), checkFieldsSchema, z.literal(false)]))
const options = protocolOptionsSchema.shape
const childProtocolSchema = z.strictObject({ ...options, extends: z.string().min(1).optional(), checks: partialChecksSchema.optional() })

/** What c12 merges over the file for one environment: the file's own shape, every field optional. */
const envOverrideSchema = z.union([
  z.strictObject({ ...options, checks: partialChecksSchema.optional() }),
  z.strictObject({ ...options, protocols: z.record(z.string(), childProtocolSchema) }),
])

const fileKeys = {
  allowRemote: z.boolean().optional(),
  $schema: z.string().optional(),
  /** c12's environment-specific overrides, by environment name (`VERIFY_ENV`, `ci` under CI, `NODE_ENV`). */
  $env: z.record(z.string(), envOverrideSchema).optional(),
  $development: envOverrideSchema.optional(),
  $production: envOverrideSchema.optional(),
  $test: envOverrideSchema.optional(),
}

const oneProtocol = z.strictObject({ ...options, ...fileKeys, checks: checksSchema.optional() })
const oneProtocolOverLayers = z.strictObject({ ...options, ...fileKeys, extends: layerListSchema, checks: partialChecksSchema.optional() })
const severalProtocols = z.strictObject({
  ...options,
  ...fileKeys,
  protocols: z.record(z.string(), z.union([z.strictObject({ ...options, checks: checksSchema }), childProtocolSchema.required({ extends: true })])),
})
const severalProtocolsOverLayers = z.strictObject({ ...options, ...fileKeys, extends: layerListSchema, protocols: z.record(z.string(), childProtocolSchema) })

/** A config file as written (`verify.config.json`, `.verifyrc`, package.json's "verify"): one protocol, or several. */
export const configFileSchema = z.union([oneProtocol, oneProtocolOverLayers, severalProtocols, severalProtocolsOverLayers])

// Names and titles for the JSON Schema only (a local registry: the zod schemas stay free of them). A schema with an
// id is written once, under `$defs`.
const registry = z.registry<Record<string, unknown>>()
registry.add(reporterEntrySchema, z.globalRegistry.get(reporterEntrySchema) ?? {})
registry.add(durationInputSchema, { id: 'duration' })
registry.add(checkSchema, { id: 'check', title: 'A check: exactly one of `command` or `manual`' })
registry.add(checkFieldsSchema, { id: 'checkOverride', title: "Fields over an inherited check's: at most one of `command` or `manual`" })
registry.add(checksSchema, { id: 'checks' })
registry.add(partialChecksSchema, { id: 'checkOverrides' })
registry.add(envOverrideSchema, { id: 'envOverride', title: 'Overrides for one environment' })
registry.add(oneProtocol, { title: 'One protocol (defineProtocol)' })
registry.add(oneProtocolOverLayers, { title: 'One protocol over layers (defineProtocol with extends)' })
registry.add(severalProtocols, { title: 'Several protocols (defineConfig)' })
registry.add(severalProtocolsOverLayers, { title: 'Several protocols over layers (defineConfig with extends)' })

// A check's kind: `command` or `manual` (`manual: false` is none); `run` is a function, never in JSON.
const KINDS = [{ required: ['command'] }, { required: ['manual'], properties: { manual: { not: { const: false } } } }]
const NOT_IN_JSON = (what: string) => ({ not: {}, description: `${what} (TypeScript / JavaScript configs only: JSON cannot hold one)` })

/** JSON Schema of a config file: what a `verify.config.json`, `.verifyrc` or package.json `verify` key may hold. */
export function configJsonSchema(): JsonSchema {
  return z.toJSONSchema(configFileSchema, {
    io: 'input',
    unrepresentable: 'any',
    metadata: registry,
    override: ({ zodSchema, jsonSchema }) => {
      const schema = zodSchema as unknown
      if (schema === durationInputSchema) {
        Object.assign(jsonSchema, {
          description: 'A duration: milliseconds, or a string like "500ms", "30s", "5m", "1.5h", "1d"; from 1ms to 24d',
          anyOf: [
            { type: 'number', minimum: 1, maximum: MAX_TIMER_MS },
            { type: 'string', pattern: String.raw`^\s*(\d+(\.\d+)?\s*(ms|s|m|h|d)|\d+)\s*$` },
          ],
        })
      } else if (schema === runFunctionSchema) {
        Object.assign(jsonSchema, NOT_IN_JSON('An async function ({ cwd, signal, env, checkId, runId }) => boolean | { passed, output? }'))
      } else if (schema === regExpSchema) {
        Object.assign(jsonSchema, NOT_IN_JSON('A RegExp'))
      } else if (schema === checkSchema) {
        jsonSchema.oneOf = KINDS
      } else if (schema === checkFieldsSchema) {
        // An override may leave the kind to the check it overrides, but never set two.
        jsonSchema.not = { allOf: KINDS }
      } else if (schema === testsSchema) {
        jsonSchema.oneOf = [{ required: ['junit'] }, { required: ['vitestJson'] }]
      } else if (schema === checksSchema || schema === partialChecksSchema) {
        jsonSchema.propertyNames = { type: 'string', pattern: CHECK_ID_PATTERN.source, description: 'A check id: kebab-case or snake_case' }
      }
    },
  }) as JsonSchema
}

/** JSON Schema of the evidence file (SPEC §5). Every object accepts more fields: the format may grow. */
export function evidenceJsonSchema(): JsonSchema {
  return z.toJSONSchema(evidenceFileSchema, { io: 'output', unrepresentable: 'any', override: openObjects }) as JsonSchema
}

/** JSON Schema of the approvals file (`.verify/approvals.json`, written by `verify approve`). */
export function approvalsJsonSchema(): JsonSchema {
  return z.toJSONSchema(approvalsFileSchema, { io: 'output', unrepresentable: 'any', override: openObjects }) as JsonSchema
}

// The zod objects strip unknown keys (their types name only the known fields) and never reject one; the JSON Schema
// says so rather than zod's `additionalProperties: false` for an object's output.
function openObjects({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  if (zodSchema instanceof z.ZodObject) jsonSchema.additionalProperties = {}
}
