// Step 4 of the config pipeline (discover → load → validate → merge → resolve): the validated layers become one config
// (SPEC §3.3) — options by key, protocols by name, checks by id (a later layer overrides fields of the same check;
// `false` removes it) — remembering which layer each check came from. Also the merger c12 applies to `$env` blocks.
import { createDefu } from 'defu'
import type { CheckDefinition, CheckEntry } from './define.js'
import type { ProtocolSchemaOutput } from './schema.js'
import { validateLayers, type LayerInput, type Protocols } from './validate.js'

const KIND_FIELDS = ['command', 'run', 'manual'] as const

/**
 * An empty record for keys chosen by users (check ids, protocol names): without a prototype, so an id such as
 * `constructor` is an ordinary key and never finds `Object.prototype`'s members.
 */
export function byId<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>
}

function asObject(entry: string | CheckDefinition): CheckDefinition {
  return typeof entry === 'string' ? { command: entry } : entry
}

/** Merges one check over another: fields of `override` win; a new kind (command/run/manual) replaces the old one. */
export function mergeCheck(base: CheckEntry, override: CheckEntry): CheckEntry {
  if (override === false || base === false) return override
  const over = asObject(override)
  const merged: Record<string, unknown> = { ...asObject(base) }
  if (KIND_FIELDS.some((field) => over[field] !== undefined)) {
    for (const field of KIND_FIELDS) delete merged[field]
  }
  for (const [key, value] of Object.entries(over)) {
    if (value !== undefined) merged[key] = value
  }
  return merged as CheckDefinition
}

/** One layer's checks, with the name `verify list` and error messages give it. */
export interface CheckLayer {
  label: string
  checks: Record<string, CheckEntry>
}

export interface MergedChecks {
  checks: Record<string, CheckEntry>
  /** For each live check, the labels of the layers that set its fields, lowest first. */
  origins: Record<string, string[]>
  /** For each check removed with `false` (and not re-added), the label of the layer that removed it. */
  removedBy: Record<string, string>
}

/**
 * Merges keyed checks of several layers, lowest first, and records where each check came from. Order: the base
 * layer's ids in their order, then ids new in each later layer in theirs. A `false` entry removes the check (and it
 * stays removed unless a later layer re-adds it, from scratch). An `undefined` entry is no entry.
 */
export function mergeCheckLayersWithOrigins(layers: readonly CheckLayer[]): MergedChecks {
  const merged = new Map<string, CheckEntry>()
  const origins = byId<string[]>()
  const removedBy = byId<string>()
  for (const { label, checks } of layers) {
    for (const [id, entry] of Object.entries(checks)) {
      if (entry === undefined) continue
      const previous = merged.get(id)
      merged.set(id, previous === undefined ? entry : mergeCheck(previous, entry))
      if (entry === false) {
        delete origins[id]
        removedBy[id] = label
        continue
      }
      delete removedBy[id]
      const from = previous === undefined || previous === false ? [] : (origins[id] ?? [])
      origins[id] = from.at(-1) === label ? from : [...from, label]
    }
  }
  return { checks: Object.assign(byId<CheckEntry>(), Object.fromEntries(merged)), origins, removedBy }
}

/** Merges keyed checks of several layers, lowest first (see mergeCheckLayersWithOrigins). */
export function mergeCheckLayers(layers: readonly Record<string, CheckEntry>[]): Record<string, CheckEntry> {
  return mergeCheckLayersWithOrigins(layers.map((checks, i) => ({ label: String(i), checks }))).checks
}

const CHECKS_NAMESPACE = /^(?:checks|protocols\.[^.]+\.checks)$/

/**
 * The merger c12 uses for `$env` overrides, `.verifyrc` and package.json: leftmost wins, like defu, but arrays are
 * replaced instead of concatenated and checks merge by id with `mergeCheck` (a string keeps the check's other fields).
 */
const defuByCheck = createDefu((object, key, value, namespace) => {
  const target = object as Record<PropertyKey, unknown>
  if (CHECKS_NAMESPACE.test(namespace) && target[key] !== undefined) {
    target[key] = mergeCheck(target[key] as CheckEntry, value as CheckEntry)
    return true
  }
  if (Array.isArray(value)) {
    target[key] = value
    return true
  }
  return false
})

export function mergeConfigObjects(...objects: unknown[]): Record<string, unknown> {
  return defuByCheck({}, ...(objects as Record<string, unknown>[]))
}

/** Every layer merged: what protocol resolution starts from. */
export interface MergedConfig {
  protocols: Protocols
  shared: Partial<ProtocolSchemaOutput>
  /** Problems of every layer, each prefixed with its chain unless it is the project's own config. */
  problems: string[]
  /** Protocol name → check id → labels of the layers that set its fields, lowest first. */
  origins: Record<string, Record<string, string[]>>
  /** Protocol name → check id → label of the layer that removed it with `false`. */
  removedBy: Record<string, Record<string, string>>
  /** Labels of the layers, lowest first (the project's config last). */
  layers: string[]
  /** Ids of checks whose fields were invalid in some layer (reported once, not again once merged). */
  invalid: Set<string>
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

function withoutName(protocol: ProtocolSchemaOutput): ProtocolSchemaOutput {
  const { name: _, ...rest } = protocol
  return rest as ProtocolSchemaOutput
}

/**
 * Validates each layer (validate.ts) and merges them, lowest first. When every layer is a single protocol they merge
 * into one protocol (named by the last layer that names it). When any layer is a `defineConfig`, protocols merge by
 * name and a single-protocol layer merges into "default" (its `name` is not used).
 */
export function mergeLayers(layers: readonly LayerInput[]): MergedConfig {
  const { layers: parsed, problems } = validateLayers(layers)
  const single = parsed.every((layer) => !layer.isMulti)
  let singleName: string | undefined
  const shared: Partial<ProtocolSchemaOutput> = {}
  const byName = new Map<string, { label: string; protocol: ProtocolSchemaOutput }[]>()
  for (const layer of parsed) {
    Object.assign(shared, withoutUndefined(layer.shared))
    for (const [name, protocol] of Object.entries(layer.protocols)) {
      if (single) singleName = protocol.name ?? singleName
      // Next to a defineConfig, a single protocol (a preset) fills `default` whatever its `name`: a preset named
      // "acme" must not become a protocol that nothing runs while `default` misses its checks.
      const key = single ? '' : layer.isMulti ? name : 'default'
      const own = !single && !layer.isMulti ? withoutName(protocol) : protocol
      byName.set(key, [...(byName.get(key) ?? []), { label: layer.label, protocol: own }])
    }
  }
  const invalid = new Set(parsed.flatMap((layer) => [...layer.invalid]))
  const merged: MergedConfig = { protocols: byId(), shared, problems, origins: byId(), removedBy: byId(), layers: layers.map((l) => l.label), invalid }
  for (const [key, list] of byName) {
    const name = single ? (singleName ?? 'default') : key
    const options: Partial<ProtocolSchemaOutput> = {}
    for (const { protocol } of list) {
      const { checks: _, ...rest } = protocol
      Object.assign(options, withoutUndefined(rest))
    }
    const checks = mergeCheckLayersWithOrigins(list.map(({ label, protocol }) => ({ label, checks: protocol.checks as Record<string, CheckEntry> })))
    merged.protocols[name] = { ...options, checks: checks.checks } as ProtocolSchemaOutput
    merged.origins[name] = checks.origins
    merged.removedBy[name] = checks.removedBy
  }
  return merged
}
