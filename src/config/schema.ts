// The one zod schema of the configuration, which validate.ts (each layer) and layers.ts (`extends`) apply. Types of the
// DSL are inferred from it; JSON Schema is generated from it (json-schema.ts).
import { z } from 'zod'
import { DURATION_RULE, parseDurationSetting, type Duration } from '../duration.js'
import type { ReporterEntry, RunFunction } from '../types.js'
import type { Preset } from './define.js'
import { describeValue } from './messages.js'

export const CHECK_ID_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/

/** A duration as written: milliseconds or a string like "5m". Exported so the JSON Schema can describe it. */
export const durationInputSchema = z.custom<Duration>((value) => parseDurationSetting(value) !== undefined, {
  error: (issue) => `expected ${DURATION_RULE}, got ${JSON.stringify(issue.input) ?? String(issue.input)}`,
})

export const durationSchema = durationInputSchema.transform((value) => parseDurationSetting(value) as number)

export const regExpSchema = z.instanceof(RegExp)

const patternSchema = z.union([z.string().min(1), regExpSchema])

export const runFunctionSchema = z.custom<RunFunction>((value) => typeof value === 'function', {
  message: 'expected a function `async ({ cwd, signal }) => ({ passed, output })`',
})

export const testsSchema = z
  .strictObject({
    junit: z.string().min(1).optional(),
    vitestJson: z.string().min(1).optional(),
    min: z.number().int().min(1).default(1),
  })
  .refine((t) => (t.junit === undefined) !== (t.vitestJson === undefined), {
    message: 'set exactly one of `junit` or `vitestJson` (the report the command writes)',
  })

/** A check's fields, each valid on its own: what a layer that only overrides some fields must satisfy. */
export const checkFieldsSchema = z.strictObject({
  /** Ignored in keyed form (the key is the id); used by the array form of `createProtocol`. */
  id: z.string().optional(),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  evidenceType: z.string().min(1).optional(),
  required: z.boolean().optional(),
  command: z.union([z.string().min(1), z.array(z.string()).min(1, { message: 'an argv command needs at least the program' })]).optional(),
  run: runFunctionSchema.optional(),
  manual: z.union([z.boolean(), z.string().min(1)]).optional(),
  timeout: durationSchema.optional(),
  dependsOn: z.array(z.string()).optional(),
  cwd: z.string().min(1).optional(),
  env: z.record(z.string(), z.string()).optional(),
  inputs: z.array(z.string().min(1)).min(1).optional(),
  tests: testsSchema.optional(),
  retries: z.number().int().min(0).max(10).optional(),
  expect: z
    .strictObject({
      output: patternSchema.optional(),
      notOutput: patternSchema.optional(),
    })
    .optional(),
})

export const checkSchema = checkFieldsSchema.superRefine((check, ctx) => {
  const kinds = [check.command !== undefined, check.run !== undefined, check.manual !== undefined && check.manual !== false]
  const count = kinds.filter(Boolean).length
  if (count !== 1) {
    ctx.addIssue({
      code: 'custom',
      message: count === 0 ? 'a check needs exactly one of `command`, `run` or `manual`' : 'a check takes only one of `command`, `run` or `manual`',
    })
  }
})

/** A check: a shell command string, a check object, or `false` to remove an inherited check. */
export const checkEntrySchema = z.union([z.string().min(1), checkSchema, z.literal(false)])

const isReporterEntry = (value: unknown): boolean =>
  (typeof value === 'string' && value.length > 0) ||
  (Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    value[0].length > 0 &&
    value[1] !== null &&
    typeof value[1] === 'object' &&
    !Array.isArray(value[1])) ||
  (value !== null && typeof value === 'object' && !Array.isArray(value))

/** A reporter in the config: a built-in name or module path, `[name or path, options]`, or a reporter object. */
export const reporterEntrySchema = z
  .custom<ReporterEntry>(isReporterEntry, {
    message: 'expected a reporter name or module path, a [name or path, options] pair, or a reporter object with hooks',
  })
  .meta({
    description: 'A built-in reporter name or a module path, or [name or path, options] (reporter objects: TypeScript / JavaScript configs only)',
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', prefixItems: [{ type: 'string', minLength: 1 }, { type: 'object' }], minItems: 2, maxItems: 2 },
    ],
  })

const protocolOptionShape = {
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  strictMode: z.boolean().optional(),
  parallel: z.boolean().optional(),
  concurrency: z.number().int().min(1).optional(),
  failFast: z.boolean().optional(),
  skipOptional: z.boolean().optional(),
  timeout: durationSchema.optional(),
  maxAge: durationSchema.optional(),
  killGrace: durationSchema.optional(),
  redact: z.array(patternSchema).optional(),
  logLimitBytes: z.number().int().positive().optional(),
  /** Which approvals of manual checks count: any (default), or only those given at a terminal. */
  approvals: z.enum(['any', 'tty']).optional(),
  /** Used when no `--reporter` is given. */
  reporters: z.array(reporterEntrySchema).optional(),
}

/** A protocol's options without its checks and `extends`: what a layer or `$env` block may set too. */
export const protocolOptionsSchema = z.strictObject(protocolOptionShape)

/** Checks by id. */
export const checksSchema = z.record(z.string(), checkEntrySchema)

export const protocolSchema = z.strictObject({
  ...protocolOptionShape,
  /** Inside `defineConfig`: the name of another protocol this one builds on. */
  extends: z.string().min(1).optional(),
  checks: checksSchema,
})

export const configSchema = z.strictObject({
  ...protocolOptionShape,
  protocols: z.record(z.string(), protocolSchema),
})

/** `extends` of a JSON config file: paths (relative to the file), npm packages (presets), remote sources if allowed. */
export const layerListSchema = z.union([z.string().min(1), z.array(z.string().min(1))])

const isPresetValue = (value: unknown): boolean => typeof value === 'function' || (value !== null && typeof value === 'object' && !Array.isArray(value))

/** One entry of `extends` in any config file: a path, a package name, a remote source, or a preset given as a value. */
export const extendsEntrySchema = z.custom<string | Preset>((value) => (typeof value === 'string' && value.length > 0) || isPresetValue(value), {
  error: (issue) => `expected a path, a package name or a preset, got ${describeValue(issue.input)}`,
})

/** `extends` of a config file (SPEC §3.3): one entry, or a list of them; read as a list, lowest layer first. */
export const extendsSchema = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z
    .custom<unknown[]>(Array.isArray, { error: (issue) => `expected a path, a package name, a preset or a list of them, got ${describeValue(issue.input)}` })
    .pipe(z.array(extendsEntrySchema)),
)

/** A config file's keys about its layers, validated before its layers load; its other keys are for validate.ts. */
export const layerFieldsSchema = z.object({
  extends: extendsSchema.optional(),
  /** Lets `extends` fetch remote sources; only the project's own config may set it (layers.ts). */
  allowRemote: z.boolean().optional(),
})

// The same shapes with checks left unparsed: options are validated first, each check on its own after, so one
// bad check does not hide the others' problems.
// A layer may bring options only (its checks come from the layers below): `checks` defaults to none.
export const protocolShallowSchema = protocolSchema.extend({ checks: z.record(z.string(), z.unknown()).default({}) })
export const configShallowSchema = configSchema.extend({ protocols: z.record(z.string(), protocolShallowSchema) })

export type CheckSchemaInput = z.input<typeof checkSchema>
export type CheckSchemaOutput = z.output<typeof checkSchema>
export type ProtocolSchemaInput = z.input<typeof protocolSchema>
export type ProtocolSchemaOutput = z.output<typeof protocolSchema>
export type ConfigSchemaOutput = z.output<typeof configSchema>
export type { ReporterEntry } from '../types.js'
