// From a loaded config object to the ResolvedProtocol the engine runs: validation, inheritance, defaults.
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { VerifyConfigError } from '../errors.js'
import type { ResolvedCheck, ResolvedProtocol } from '../types.js'
import { DEFAULT_EVIDENCE_TYPE, DEFAULT_EVIDENCE_TYPES, type CheckEntry } from './define.js'
import { formatIssues } from './issues.js'
import { mergeCheckLayers } from './merge.js'
import {
  CHECK_ID_PATTERN,
  checkSchema,
  configSchema,
  protocolSchema,
  type CheckSchemaOutput,
  type ConfigSchemaOutput,
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

/** Validates a raw config object and returns its protocols by name, keyed checks unmerged. */
export function parseConfig(raw: unknown, source = 'the configuration'): { protocols: Protocols; shared: Partial<ProtocolSchemaOutput> } {
  const fail = (problems: string[]): never => {
    throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, problems)
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return fail(['(root): expected `export default defineProtocol({ checks: { … } })` or `defineConfig({ protocols: { … } })`'])
  }
  const isMulti = 'protocols' in raw
  const result = isMulti ? configSchema.safeParse(raw) : protocolSchema.safeParse(raw)
  if (!result.success) return fail(formatIssues(result.error.issues, raw))
  if (isMulti) {
    const { protocols, ...shared } = result.data as ConfigSchemaOutput
    if (Object.keys(protocols).length === 0) fail(['protocols: a config needs at least one protocol'])
    return { protocols, shared }
  }
  const protocol = result.data as ProtocolSchemaOutput
  if (protocol.extends !== undefined) {
    fail(['extends: a single protocol cannot extend another protocol by name; use `defineConfig({ protocols })`'])
  }
  return { protocols: { [protocol.name ?? 'default']: protocol }, shared: {} }
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
      const cycle = byId.has(dep) ? visit(dep) : undefined
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
  const { protocols, shared } = parseConfig(raw, source)
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
  const problems: string[] = []
  const checks: ResolvedCheck[] = []
  for (const [id, entry] of Object.entries(entries)) {
    if (entry === false) continue
    if (!CHECK_ID_PATTERN.test(id)) problems.push(`checks["${id}"]: a check id is kebab-case or snake_case (e.g. "unit-tests")`)
    // A merged entry is validated again: layers may combine into something invalid.
    const parsed = typeof entry === 'string' ? undefined : checkSchema.safeParse(entry)
    if (parsed && !parsed.success) {
      problems.push(...formatIssues(parsed.error.issues, entry, ['checks', id]))
      continue
    }
    checks.push(resolveCheck(id, parsed ? (parsed.data as Exclude<CheckEntry, false>) : entry, { timeoutMs, timeoutFromCli: o.timeoutMs }, options.rootDir))
  }
  if (checks.length === 0 && problems.length === 0) problems.push('checks: a protocol needs at least one check')
  const ids = new Set(checks.map((c) => c.id))
  for (const check of checks) {
    for (const dep of check.dependsOn) {
      if (dep === check.id) problems.push(`checks.${check.id}.dependsOn: a check cannot depend on itself`)
      else if (!ids.has(dep)) problems.push(`checks.${check.id}.dependsOn: no check "${dep}" (checks: ${[...ids].join(', ')})`)
    }
  }
  const cycle = problems.length === 0 ? findCycle(checks) : undefined
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
