// Step 3 of the config pipeline (discover → load → validate → merge → resolve): each layer's config object against the
// zod schema of schema.ts, on its own — options first, each check's own fields after, every problem at once. Whether a
// check has exactly one kind, and `dependsOn`, are judged once layers are merged (resolve.ts).
import type { z } from 'zod'
import { VerifyConfigError } from '../errors.js'
import { describeValue, EXPECTED_EXPORT, formatIssues, formatPath } from './messages.js'
import { CHECK_ID_PATTERN, checkFieldsSchema, configShallowSchema, protocolShallowSchema, type ProtocolSchemaOutput } from './schema.js'

export type Protocols = Record<string, ProtocolSchemaOutput>

export interface ParsedConfig {
  protocols: Protocols
  shared: Partial<ProtocolSchemaOutput>
  /** Every problem found; resolveProtocol adds those of the merged checks and throws them together. */
  problems: string[]
  /** Written with `defineConfig({ protocols })` rather than as one protocol. */
  isMulti: boolean
  /** Ids of checks whose own fields are invalid (already reported): their merged form is not judged again. */
  invalid: Set<string>
}

/** Keys about layers: consumed by the loader (layers.ts) before a config object is validated. */
export const LAYER_KEYS = ['extends', 'allowRemote'] as const

/** A copy of `value` without the keys the issues point at, so what remains can be validated further. */
function prune(value: unknown, rawIssues: readonly z.core.$ZodIssue[]): unknown {
  // A problem inside an array removes the whole array: deleting one element would leave a hole (and arrays are
  // not copied, so it would also change the user's own object).
  const issues = rawIssues.map((issue) => {
    const index = issue.path.findIndex((part) => typeof part === 'number')
    return index < 0 ? issue : ({ ...issue, code: 'custom', path: issue.path.slice(0, index) } as z.core.$ZodIssue)
  })
  const copy = structuredCloneShallowPaths(value, issues)
  for (const issue of issues) {
    const path = issue.code === 'unrecognized_keys' ? issue.path : issue.path.slice(0, -1)
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : issue.path.slice(-1)
    if (keys.length === 0) return undefined
    let target: unknown = copy
    for (const part of path) target = (target as Record<PropertyKey, unknown> | undefined)?.[part]
    if (target && typeof target === 'object') for (const key of keys) delete (target as Record<PropertyKey, unknown>)[key]
  }
  return copy
}

// Copies the objects along the issues' paths only: the user's config objects are never modified.
function structuredCloneShallowPaths(value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  const root = { ...(value as object) } as Record<PropertyKey, unknown>
  for (const issue of issues) {
    let node = root
    for (const part of issue.path.slice(0, -1)) {
      const child = node[part]
      if (!child || typeof child !== 'object' || Array.isArray(child)) break
      node[part] = { ...child }
      node = node[part] as Record<PropertyKey, unknown>
    }
  }
  return root
}

// A `__proto__` key would vanish in validation (records drop it) and take its check or protocol with it, silently.
const RESERVED_KEY = '__proto__'

function ownKeyed(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function reservedKeyProblems(raw: Record<string, unknown>, isMulti: boolean): string[] {
  const problems: string[] = []
  const inChecks = (checks: unknown, prefix: string[]) => {
    if (ownKeyed(checks) && Object.hasOwn(checks, RESERVED_KEY)) {
      problems.push(`${formatPath(prefix)}["${RESERVED_KEY}"]: "${RESERVED_KEY}" cannot be a check id (JavaScript reserves it): rename the check`)
    }
  }
  if (!isMulti) inChecks(raw.checks, ['checks'])
  else if (ownKeyed(raw.protocols)) {
    if (Object.hasOwn(raw.protocols, RESERVED_KEY))
      problems.push(`protocols["${RESERVED_KEY}"]: "${RESERVED_KEY}" cannot be a protocol name (JavaScript reserves it): rename the protocol`)
    for (const [name, protocol] of Object.entries(raw.protocols)) if (ownKeyed(protocol)) inChecks(protocol.checks, ['protocols', name, 'checks'])
  }
  return problems
}

/** Validates a raw config: options first (pruning what is invalid to find every problem), then each check's fields. */
export function collectConfig(raw: unknown, source: string): ParsedConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, [`(root): ${EXPECTED_EXPORT}, got ${describeValue(raw)}`])
  }
  // A module whose default export is undefined arrives as its namespace: `{ default: undefined }`.
  if ('default' in raw && !('checks' in raw) && !('protocols' in raw)) {
    const value = (raw as { default: unknown }).default
    throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, [
      `(root): the default export is ${value === undefined ? 'undefined' : describeValue(value)}: ${EXPECTED_EXPORT}`,
    ])
  }
  const isMulti = 'protocols' in raw
  const schema = isMulti ? configShallowSchema : protocolShallowSchema
  const problems: string[] = reservedKeyProblems(raw as Record<string, unknown>, isMulti)
  let candidate: unknown = raw
  // A single protocol's `extends` naming another protocol is reported below; any other is a layer list.
  const layerKeys = LAYER_KEYS.filter((key) => key in raw && (isMulti || key !== 'extends' || typeof (raw as { extends?: unknown }).extends !== 'string'))
  if (layerKeys.length > 0) {
    problems.push(
      `${layerKeys.join(', ')}: layers (presets, files) are resolved when a config file is loaded with loadVerifyConfig; a config object given directly cannot extend`,
    )
    candidate = Object.fromEntries(Object.entries(raw).filter(([key]) => !(layerKeys as string[]).includes(key)))
  }
  let data: z.output<typeof schema> | undefined
  for (let attempt = 0; attempt < 4 && candidate !== undefined; attempt++) {
    const result = schema.safeParse(candidate)
    if (result.success) {
      data = result.data
      break
    }
    for (const line of formatIssues(result.error.issues, candidate)) if (!problems.includes(line)) problems.push(line)
    candidate = prune(candidate, result.error.issues)
  }
  if (!data) throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, problems)

  let protocols: Record<string, z.output<typeof protocolShallowSchema>>
  let shared: Partial<ProtocolSchemaOutput> = {}
  if (isMulti) {
    const { protocols: named, ...rest } = data as z.output<typeof configShallowSchema>
    protocols = named
    shared = rest
    if (Object.keys(named).length === 0) problems.push('protocols: a config needs at least one protocol')
  } else {
    const protocol = data as z.output<typeof protocolShallowSchema>
    if (protocol.extends !== undefined) {
      problems.push(
        'extends: a single protocol cannot extend another protocol by name (use `defineConfig({ protocols })`); to extend a preset or a file, load the config with loadVerifyConfig',
      )
    }
    protocols = { [protocol.name ?? 'default']: protocol }
  }
  // Each check's own fields; whether it has exactly one kind is judged after layers are merged.
  const invalid = new Set<string>()
  for (const [name, protocol] of Object.entries(protocols)) {
    const prefix = isMulti ? ['protocols', name, 'checks'] : ['checks']
    for (const [id, entry] of Object.entries(protocol.checks)) {
      // An undefined entry is no entry: spreading a preset's optional checks must not fail.
      if (entry === undefined) delete protocol.checks[id]
      if (entry === undefined || entry === false) continue
      // Judged in the layer that declares the id, so the message names that layer.
      if (!CHECK_ID_PATTERN.test(id)) problems.push(`${formatPath(prefix)}[${JSON.stringify(id)}]: a check id is kebab-case or snake_case (e.g. "unit-tests")`)
      if (typeof entry === 'string' && entry.length > 0) continue
      const result = entry !== null && typeof entry === 'object' ? checkFieldsSchema.safeParse(entry) : undefined
      if (result?.success) {
        protocol.checks[id] = result.data
        continue
      }
      invalid.add(id)
      if (!result) problems.push(`${formatPath([...prefix, id])}: expected a command string, a check object or false`)
      else problems.push(...formatIssues(result.error.issues, entry, [...prefix, id]))
    }
  }
  return { protocols: protocols as Protocols, shared, problems, isMulti, invalid }
}

/** Validates a raw config and returns its protocols by name, keyed checks unmerged. Throws every problem at once. */
export function parseConfig(raw: unknown, source = 'the configuration'): Omit<ParsedConfig, 'problems' | 'isMulti' | 'invalid'> {
  const { problems, isMulti: _, invalid: __, ...parsed } = collectConfig(raw, source)
  if (problems.length > 0) throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, problems)
  return parsed
}

/** One layer of a config: the project's config file, or something it extends. */
export interface LayerInput {
  /** How messages and `verify list` name it: a path relative to the project, a package name. */
  label: string
  /** The config object, with `extends`, `allowRemote` and `$` keys already consumed. */
  raw: unknown
  /** Labels from the project's config down to this layer, for messages. Default: the label alone. */
  chain?: readonly string[]
}

/** A layer validated on its own. */
export type ValidatedLayer = Omit<ParsedConfig, 'problems'> & { label: string }

/**
 * Validates each layer (lowest first, the project's config last). Every problem is kept, each prefixed with the
 * layer's chain unless it is the project's own config; a layer too broken to read brings nothing.
 */
export function validateLayers(layers: readonly LayerInput[]): { layers: ValidatedLayer[]; problems: string[] } {
  const problems: string[] = []
  const validated = layers.map((layer, index): ValidatedLayer => {
    const own = index === layers.length - 1
    const prefix = own ? '' : `${(layer.chain ?? [layer.label]).join(' → ')}: `
    try {
      const { problems: found, ...config } = collectConfig(layer.raw, layer.label)
      problems.push(...found.map((problem) => prefix + problem))
      return { ...config, label: layer.label }
    } catch (error) {
      if (!(error instanceof VerifyConfigError)) throw error
      problems.push(...error.problems.map((problem) => prefix + problem))
      return { protocols: {}, shared: {}, isMulti: false, invalid: new Set<string>(), label: layer.label }
    }
  })
  return { layers: validated, problems }
}
