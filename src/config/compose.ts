// Composition of layers (SPEC §3.3): each layer is validated on its own, then merged — options by key, protocols by
// name, checks by id — remembering which layer each check came from.
import { VerifyConfigError } from '../errors.js'
import type { CheckEntry } from './define.js'
import { byId, mergeCheckLayersWithOrigins } from './merge.js'
import { collectConfig, type Protocols } from './parse.js'
import type { ProtocolSchemaOutput } from './schema.js'

/** One layer of a config: the project's config file, or something it extends. */
export interface LayerInput {
  /** How messages and `verify list` name it: a path relative to the project, a package name. */
  label: string
  /** The config object, with `extends`, `allowRemote` and `$` keys already consumed. */
  raw: unknown
  /** Labels from the project's config down to this layer, for messages. Default: the label alone. */
  chain?: readonly string[]
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
 * Validates each layer and merges them, lowest first. When every layer is a single protocol they merge into one
 * protocol (named by the last layer that names it). When any layer is a `defineConfig`, protocols merge by name and
 * a single-protocol layer merges into "default" (its `name` is not used).
 */
export function mergeLayers(layers: readonly LayerInput[]): MergedConfig {
  const problems: string[] = []
  const parsed = layers.map((layer, index) => {
    const own = index === layers.length - 1
    const prefix = own ? '' : `${(layer.chain ?? [layer.label]).join(' → ')}: `
    try {
      const config = collectConfig(layer.raw, layer.label)
      problems.push(...config.problems.map((problem) => prefix + problem))
      return { ...config, label: layer.label }
    } catch (error) {
      if (!(error instanceof VerifyConfigError)) throw error
      problems.push(...error.problems.map((problem) => prefix + problem))
      return { protocols: {}, shared: {}, problems: [], isMulti: false, invalid: new Set<string>(), label: layer.label }
    }
  })
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
