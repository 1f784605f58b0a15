// Step 5 of the config pipeline (discover → load → validate → merge → resolve): from the merged config to the
// ResolvedProtocol the engine runs — one protocol picked, its inheritance followed (inheritance.ts), merged checks
// validated again, dependencies checked and `'*'` expanded (dependencies.ts), every default applied.
import { resolve } from 'node:path'
import { DEFAULTS, defaultConcurrency } from '../defaults.js'
import { VerifyConfigError } from '../errors.js'
import type { ResolvedCheck, ResolvedProtocol } from '../types.js'
import { DEFAULT_EVIDENCE_TYPE, DEFAULT_EVIDENCE_TYPES, type CheckEntry } from './define.js'
import { dependsOnProblems, expandAllChecks } from './dependencies.js'
import { chainEntries, chainOrigins, inheritanceChain, inheritanceProblems, otherProtocolProblems, removedByOf } from './inheritance.js'
import { mergeLayers, type MergedConfig } from './merge.js'
import { formatIssues } from './messages.js'
import { checkSchema, type CheckSchemaOutput, type ProtocolSchemaOutput } from './schema.js'
import { scriptsRun } from './scripts.js'
import type { LayerInput, Protocols } from './validate.js'

export { DEFAULTS }

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

function pickName(protocols: Protocols, requested: string | undefined, source: string): string {
  const names = Object.keys(protocols)
  if (requested === undefined || requested === 'default') {
    if (Object.hasOwn(protocols, 'default')) return 'default'
    if (names.length === 1) return names[0] as string
    if (requested === undefined) {
      throw new VerifyConfigError('E_PROTOCOL_NOT_FOUND', `${source} declares several protocols and none is named "default"`, [
        `choose one: ${names.join(', ')}`,
      ])
    }
  }
  if (requested !== undefined && Object.hasOwn(protocols, requested)) return requested
  // `verify version`, `verify help`: read as a protocol's name, they are meant as the flags.
  const meant = requested === 'version' || requested === 'help' ? [`for verify's ${requested}, run \`verify --${requested}\``] : []
  throw new VerifyConfigError('E_PROTOCOL_NOT_FOUND', `No protocol "${requested}" in ${source}`, [`protocols: ${names.join(', ')}`, ...meant])
}

function resolveCheck(id: string, entry: Exclude<CheckEntry, false>, protocol: ProtocolOptionsResolved, rootDir: string): ResolvedCheck {
  const def = (typeof entry === 'string' ? { command: entry } : entry) as CheckSchemaOutput
  const kind = def.command !== undefined ? 'command' : def.run !== undefined ? 'function' : 'manual'
  const check: ResolvedCheck = {
    id,
    name: def.name ?? id,
    evidenceType: def.evidenceType ?? (Object.hasOwn(DEFAULT_EVIDENCE_TYPES, id) ? DEFAULT_EVIDENCE_TYPES[id] : undefined) ?? DEFAULT_EVIDENCE_TYPE,
    required: def.required ?? true,
    kind,
    timeoutMs: protocol.timeoutFromCli ?? def.timeout ?? protocol.timeoutMs,
    dependsOn: [...new Set(def.dependsOn ?? [])],
    cwd: def.cwd === undefined ? rootDir : resolve(rootDir, def.cwd),
    env: { ...def.env },
    retries: def.retries ?? 0,
  }
  if (def.description !== undefined) check.description = def.description
  if (def.command !== undefined) {
    check.command = typeof def.command === 'string' ? def.command : [...def.command]
    const scripts = scriptsRun(check.command, check.cwd)
    if (scripts) check.scripts = scripts
  }
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

/** A resolved protocol with where each of its checks came from. */
export interface ResolvedWithOrigins {
  protocol: ResolvedProtocol
  /** Check id → labels of the layers that set its fields, lowest first. */
  origins: Record<string, string[]>
}

/** Resolves one protocol of merged layers, with every default applied. Throws every problem at once. */
export function resolveMerged(merged: MergedConfig, options: ResolveOptions): ResolvedWithOrigins {
  const source = options.source ?? 'the configuration'
  const { protocols, shared } = merged
  const problems = [...merged.problems]
  // Nothing to pick from: the problems that say why (`protocols: {}`, a config that is not an object) come first.
  if (Object.keys(protocols).length === 0) {
    throw new VerifyConfigError(
      'E_CONFIG_INVALID',
      `Invalid configuration in ${source}`,
      problems.length > 0 ? problems : ['it declares no protocol: give it `checks`, or `protocols` with one at least'],
    )
  }
  const name = pickName(protocols, options.protocol, source)
  // Every protocol's inheritance is checked, not only the one being resolved.
  problems.push(...inheritanceProblems(protocols))
  const chainNames = inheritanceChain(protocols, name)
  if (!chainNames)
    throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, [...problems, ...otherProtocolProblems(merged, name, source, [])])
  const chain = chainNames.map((n) => protocols[n] as ProtocolSchemaOutput)
  const pick = <K extends keyof ProtocolSchemaOutput>(key: K): ProtocolSchemaOutput[K] | undefined => {
    for (let i = chain.length - 1; i >= 0; i--) {
      const value = chain[i]?.[key]
      if (value !== undefined) return value
    }
    return shared[key] as ProtocolSchemaOutput[K] | undefined
  }
  const o = options.overrides ?? {}
  const timeoutMs = pick('timeout') ?? DEFAULTS.timeoutMs
  const entries = chainEntries(merged, chainNames)
  const origins = chainOrigins(merged, chainNames)
  const checks: ResolvedCheck[] = []
  for (const [id, entry] of Object.entries(entries)) {
    if (entry === false) continue
    // A merged entry is validated again: layers may combine into something invalid.
    const parsed = typeof entry === 'string' ? undefined : checkSchema.safeParse(entry)
    if (parsed && !parsed.success) {
      if (merged.invalid.has(id)) continue
      const from = origins[id] ?? []
      const where = merged.layers.length > 1 && from.length > 0 ? ` (set in ${from.join(', ')})` : ''
      for (const line of formatIssues(parsed.error.issues, entry, ['checks', id])) if (!problems.includes(line + where)) problems.push(line + where)
      continue
    }
    checks.push(resolveCheck(id, parsed ? (parsed.data as Exclude<CheckEntry, false>) : entry, { timeoutMs, timeoutFromCli: o.timeoutMs }, options.rootDir))
  }
  if (Object.values(entries).every((entry) => entry === false)) problems.push('checks: a protocol needs at least one check')
  const own = dependsOnProblems(entries, removedByOf(merged, chainNames, source))
  problems.push(...own, ...otherProtocolProblems(merged, name, source, own))
  expandAllChecks(checks)
  if (problems.length > 0) throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${source}`, problems)

  const protocol: ResolvedProtocol = {
    name,
    strictMode: o.strictMode ?? pick('strictMode') ?? false,
    parallel: o.parallel ?? pick('parallel') ?? true,
    concurrency: o.concurrency ?? pick('concurrency') ?? defaultConcurrency(),
    failFast: o.failFast ?? pick('failFast') ?? false,
    skipOptional: o.skipOptional ?? pick('skipOptional') ?? false,
    timeoutMs: o.timeoutMs ?? timeoutMs,
    maxAgeMs: o.maxAgeMs ?? pick('maxAge') ?? DEFAULTS.maxAgeMs,
    graceMs: pick('killGrace') ?? DEFAULTS.graceMs,
    rootDir: options.rootDir,
    redact: pick('redact') ?? [],
    logLimitBytes: pick('logLimitBytes') ?? DEFAULTS.logLimitBytes,
    approvals: pick('approvals') ?? 'any',
    checks,
  }
  const description = pick('description')
  if (description !== undefined) protocol.description = description
  // The protocol's own, else those of the protocols it extends, else the config's shared ones.
  const reporters = pick('reporters')
  if (reporters !== undefined) protocol.reporters = reporters
  return { protocol, origins: Object.fromEntries(checks.map((c) => [c.id, origins[c.id] ?? []])) }
}

/** Validates layers (lowest first, the project's config last) and resolves one protocol. Throws VerifyConfigError. */
export function resolveLayers(layers: readonly LayerInput[], options: ResolveOptions): ResolvedWithOrigins {
  return resolveMerged(mergeLayers(layers), options)
}

/** Validates a raw config and resolves one protocol with every default applied. Throws VerifyConfigError. */
export function resolveProtocol(raw: unknown, options: ResolveOptions): ResolvedProtocol {
  return resolveLayers([{ label: options.source ?? 'the configuration', raw }], options).protocol
}
