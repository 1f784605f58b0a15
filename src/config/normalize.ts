// From a loaded config object to the ResolvedProtocol the engine runs: validation, inheritance, defaults.
import { availableParallelism } from 'node:os'
import type { z } from 'zod'
import { resolve } from 'node:path'
import { VerifyConfigError } from '../errors.js'
import type { ResolvedCheck, ResolvedProtocol } from '../types.js'
import { DEFAULT_EVIDENCE_TYPE, DEFAULT_EVIDENCE_TYPES, type CheckEntry } from './define.js'
import { formatIssues, formatPath } from './issues.js'
import { mergeCheckLayers } from './merge.js'
import {
  CHECK_ID_PATTERN,
  checkFieldsSchema,
  checkSchema,
  configShallowSchema,
  protocolShallowSchema,
  type CheckSchemaOutput,
  type ProtocolSchemaOutput,
} from './schema.js'

export const DEFAULTS = {
  timeoutMs: 10 * 60_000,
  maxAgeMs: 5 * 60_000,
  graceMs: 5_000,
  logLimitBytes: 50 * 1024 * 1024,
}

/** Options from the command line that win over the config. */
export interface ProtocolOverrides {
  strictMode?: boolean
  parallel?: boolean
  concurrency?: number
  failFast?: boolean
  skipOptional?: boolean
  timeoutMs?: number
  maxAgeMs?: number
}

export interface ResolveOptions {
  /** The config's folder: default cwd of checks, base of relative paths. */
  rootDir: string
  /** Where the config came from, for error messages. */
  source?: string
  /** Protocol to pick; default "default" (or the only one). */
  protocol?: string
  overrides?: ProtocolOverrides
}

type Protocols = Record<string, ProtocolSchemaOutput>

export interface ParsedConfig {
  protocols: Protocols
  shared: Partial<ProtocolSchemaOutput>
  /** Every problem found; resolveProtocol adds those of the merged checks and throws them together. */
  problems: string[]
}

/** A copy of `value` without the keys the issues point at, so what remains can be validated further. */
function prune(value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
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

/** Validates a raw config: options first (pruning what is invalid to find every problem), then each check's fields. */
function collectConfig(raw: unknown, source: string): ParsedConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, [
      '(root): expected `export default defineProtocol({ checks: { … } })` or `defineConfig({ protocols: { … } })`',
    ])
  }
  const isMulti = 'protocols' in raw
  const schema = isMulti ? configShallowSchema : protocolShallowSchema
  const problems: string[] = []
  let candidate: unknown = raw
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
      problems.push('extends: a single protocol cannot extend another protocol by name; use `defineConfig({ protocols })`')
    }
    protocols = { [protocol.name ?? 'default']: protocol }
  }
  // Each check's own fields; whether it has exactly one kind is judged after layers are merged.
  for (const [name, protocol] of Object.entries(protocols)) {
    const prefix = isMulti ? ['protocols', name, 'checks'] : ['checks']
    for (const [id, entry] of Object.entries(protocol.checks)) {
      if (entry === false || (typeof entry === 'string' && entry.length > 0)) continue
      const result = entry !== null && typeof entry === 'object' ? checkFieldsSchema.safeParse(entry) : undefined
      if (!result) problems.push(`${formatPath([...prefix, id])}: expected a command string, a check object or false`)
      else if (!result.success) problems.push(...formatIssues(result.error.issues, entry, [...prefix, id]))
      else protocol.checks[id] = result.data
    }
  }
  return { protocols: protocols as Protocols, shared, problems }
}

/** Validates a raw config and returns its protocols by name, keyed checks unmerged. Throws every problem at once. */
export function parseConfig(raw: unknown, source = 'the configuration'): Omit<ParsedConfig, 'problems'> {
  const { problems, ...parsed } = collectConfig(raw, source)
  if (problems.length > 0) throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, problems)
  return parsed
}

/** The protocols a config declares, in declaration order. */
export function protocolNames(raw: unknown, source?: string): string[] {
  return Object.keys(parseConfig(raw, source).protocols)
}

function pickName(protocols: Protocols, requested: string | undefined, source: string): string {
  const names = Object.keys(protocols)
  if (requested === undefined || requested === 'default') {
    if ('default' in protocols) return 'default'
    if (names.length === 1) return names[0] as string
    if (requested === undefined) {
      throw new VerifyConfigError('E_PROTOCOL_NOT_FOUND', `${source} declares several protocols and none is named "default"`, [
        `choose one: ${names.join(', ')}`,
      ])
    }
  }
  if (requested !== undefined && requested in protocols) return requested
  throw new VerifyConfigError('E_PROTOCOL_NOT_FOUND', `No protocol "${requested}" in ${source}`, [`protocols: ${names.join(', ')}`])
}

/** Follows `extends` between protocols of one config, base first. */
function inheritanceChain(protocols: Protocols, name: string): ProtocolSchemaOutput[] {
  const chain: string[] = []
  let current: string | undefined = name
  while (current !== undefined) {
    if (chain.includes(current)) {
      throw new VerifyConfigError('E_CONFIG_INVALID', 'Protocol inheritance has a cycle', [
        `protocols.${name}.extends: ${[...chain, current].join(' → ')}`,
      ])
    }
    const protocol: ProtocolSchemaOutput | undefined = protocols[current]
    if (!protocol) {
      const child = chain.at(-1) as string
      throw new VerifyConfigError('E_CONFIG_INVALID', 'A protocol extends one that does not exist', [
        `protocols.${child}.extends: no protocol "${current}" (protocols: ${Object.keys(protocols).join(', ')})`,
      ])
    }
    chain.push(current)
    current = protocol.extends
  }
  return chain.map((n) => protocols[n] as ProtocolSchemaOutput).toReversed()
}

function findCycle(checks: readonly ResolvedCheck[]): string[] | undefined {
  const byId = new Map(checks.map((c) => [c.id, c]))
  const state = new Map<string, 'visiting' | 'done'>()
  const stack: string[] = []
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id]
    state.set(id, 'visiting')
    stack.push(id)
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      // A self-dependency is reported on its own, not as a cycle.
      const cycle = byId.has(dep) && dep !== id ? visit(dep) : undefined
      if (cycle) return cycle
    }
    stack.pop()
    state.set(id, 'done')
    return undefined
  }
  for (const check of checks) {
    const cycle = visit(check.id)
    if (cycle) return cycle
  }
  return undefined
}

function resolveCheck(id: string, entry: Exclude<CheckEntry, false>, protocol: ProtocolOptionsResolved, rootDir: string): ResolvedCheck {
  const def = (typeof entry === 'string' ? { command: entry } : entry) as CheckSchemaOutput
  const kind = def.command !== undefined ? 'command' : def.run !== undefined ? 'function' : 'manual'
  const check: ResolvedCheck = {
    id,
    name: def.name ?? id,
    evidenceType: def.evidenceType ?? DEFAULT_EVIDENCE_TYPES[id] ?? DEFAULT_EVIDENCE_TYPE,
    required: def.required ?? true,
    kind,
    timeoutMs: protocol.timeoutFromCli ?? def.timeout ?? protocol.timeoutMs,
    dependsOn: [...new Set(def.dependsOn ?? [])],
    cwd: def.cwd === undefined ? rootDir : resolve(rootDir, def.cwd),
    env: { ...def.env },
    retries: def.retries ?? 0,
  }
  if (def.description !== undefined) check.description = def.description
  if (def.command !== undefined) check.command = typeof def.command === 'string' ? def.command : [...def.command]
  if (def.run !== undefined) check.run = def.run
  if (kind === 'manual') check.manual = typeof def.manual === 'string' ? def.manual : `Approve "${check.name}"`
  if (def.inputs !== undefined) check.inputs = [...def.inputs]
  if (def.tests !== undefined) check.tests = def.tests
  if (def.expect !== undefined) check.expect = def.expect
  return check
}

interface ProtocolOptionsResolved {
  timeoutMs: number
  timeoutFromCli: number | undefined
}

/** Validates a raw config and resolves one protocol with every default applied. Throws VerifyConfigError. */
export function resolveProtocol(raw: unknown, options: ResolveOptions): ResolvedProtocol {
  const source = options.source ?? 'the configuration'
  const { protocols, shared, problems } = collectConfig(raw, source)
  const name = pickName(protocols, options.protocol, source)
  const chain = inheritanceChain(protocols, name)
  const pick = <K extends keyof ProtocolSchemaOutput>(key: K): ProtocolSchemaOutput[K] | undefined => {
    for (let i = chain.length - 1; i >= 0; i--) {
      const value = chain[i]?.[key]
      if (value !== undefined) return value
    }
    return shared[key] as ProtocolSchemaOutput[K] | undefined
  }
  const o = options.overrides ?? {}
  const timeoutMs = pick('timeout') ?? DEFAULTS.timeoutMs
  const entries = mergeCheckLayers(chain.map((p) => p.checks as Record<string, CheckEntry>))
  const checks: ResolvedCheck[] = []
  for (const [id, entry] of Object.entries(entries)) {
    if (entry === false) continue
    if (!CHECK_ID_PATTERN.test(id)) problems.push(`checks["${id}"]: a check id is kebab-case or snake_case (e.g. "unit-tests")`)
    // A merged entry is validated again: layers may combine into something invalid.
    const parsed = typeof entry === 'string' ? undefined : checkSchema.safeParse(entry)
    if (parsed && !parsed.success) {
      for (const line of formatIssues(parsed.error.issues, entry, ['checks', id])) if (!problems.includes(line)) problems.push(line)
      continue
    }
    checks.push(resolveCheck(id, parsed ? (parsed.data as Exclude<CheckEntry, false>) : entry, { timeoutMs, timeoutFromCli: o.timeoutMs }, options.rootDir))
  }
  if (Object.values(entries).every((entry) => entry === false)) problems.push('checks: a protocol needs at least one check')
  // Dependencies are checked on every declared check, valid or not, so their problems are reported too.
  const ids = new Set(Object.keys(entries).filter((id) => entries[id] !== false))
  for (const id of ids) {
    const entry = entries[id]
    const deps = typeof entry === 'object' && Array.isArray(entry.dependsOn) ? entry.dependsOn : []
    for (const dep of deps) {
      if (dep === id) problems.push(`checks.${id}.dependsOn: a check cannot depend on itself`)
      else if (!ids.has(dep)) problems.push(`checks.${id}.dependsOn: no check "${dep}" (checks: ${[...ids].join(', ')})`)
    }
  }
  const cycle = findCycle(checks)
  if (cycle) problems.push(`checks.${cycle[0]}.dependsOn: a cycle ${cycle.join(' → ')}`)
  if (problems.length > 0) throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, problems)

  const protocol: ResolvedProtocol = {
    name,
    strictMode: o.strictMode ?? pick('strictMode') ?? false,
    parallel: o.parallel ?? pick('parallel') ?? true,
    concurrency: o.concurrency ?? pick('concurrency') ?? availableParallelism(),
    failFast: o.failFast ?? pick('failFast') ?? false,
    skipOptional: o.skipOptional ?? pick('skipOptional') ?? false,
    timeoutMs: o.timeoutMs ?? timeoutMs,
    maxAgeMs: o.maxAgeMs ?? pick('maxAge') ?? DEFAULTS.maxAgeMs,
    graceMs: pick('killGrace') ?? DEFAULTS.graceMs,
    rootDir: options.rootDir,
    redact: pick('redact') ?? [],
    logLimitBytes: pick('logLimitBytes') ?? DEFAULTS.logLimitBytes,
    checks,
  }
  const description = pick('description')
  if (description !== undefined) protocol.description = description
  return protocol
}
