// Step 5 (resolve), helper: the protocols of a `defineConfig` as a whole — inheritance between them (`extends` naming
// another protocol), and the problems of every protocol that are cheap to find: a broken protocol is reported when the
// config is loaded, not on the day someone runs it.
import type { CheckEntry } from './define.js'
import { dependsOnProblems } from './dependencies.js'
import { byId, mergeCheckLayers, type MergedConfig } from './merge.js'
import type { ProtocolSchemaOutput } from './schema.js'
import type { Protocols } from './validate.js'

/** Follows `extends` between protocols, base first; undefined when it leads to an unknown protocol or a cycle. */
export function inheritanceChain(protocols: Protocols, name: string): string[] | undefined {
  const chain: string[] = []
  for (let current: string | undefined = name; current !== undefined; current = protocols[current]?.extends) {
    if (chain.includes(current) || !Object.hasOwn(protocols, current)) return undefined
    chain.push(current)
  }
  return chain.toReversed()
}

/** Every unknown parent and every cycle of protocol inheritance, each once. */
export function inheritanceProblems(protocols: Protocols): string[] {
  const names = Object.keys(protocols)
  const problems = new Set<string>()
  for (const name of names) {
    const path: string[] = []
    for (let current: string | undefined = name; current !== undefined; current = protocols[current]?.extends) {
      const at = path.indexOf(current)
      if (at >= 0) {
        // The cycle from its first-declared member, so every protocol in it reports the same line.
        const cycle = path.slice(at)
        const first = cycle.reduce((a, b) => (names.indexOf(b) < names.indexOf(a) ? b : a))
        const start = cycle.indexOf(first)
        const ordered = [...cycle.slice(start), ...cycle.slice(0, start), first]
        problems.add(`protocols.${first}.extends: a cycle ${ordered.join(' → ')}`)
        break
      }
      if (!Object.hasOwn(protocols, current)) {
        problems.add(`protocols.${path.at(-1)}.extends: no protocol "${current}" (protocols: ${names.join(', ')})`)
        break
      }
      path.push(current)
    }
  }
  return [...problems]
}

/** The checks of a protocol through its inheritance chain, merged by id. */
export function chainEntries(merged: MergedConfig, chain: readonly string[]): Record<string, CheckEntry> {
  return mergeCheckLayers(chain.map((n) => (merged.protocols[n]?.checks ?? {}) as Record<string, CheckEntry>))
}

/** Origins of a protocol's checks through its inheritance chain: each protocol's layers, base first. */
export function chainOrigins(merged: MergedConfig, names: readonly string[]): Record<string, string[]> {
  const origins = byId<string[]>()
  for (const name of names) {
    const protocol = merged.protocols[name] as ProtocolSchemaOutput
    for (const [id, entry] of Object.entries(protocol.checks)) {
      if (entry === false) delete origins[id]
      else for (const label of merged.origins[name]?.[id] ?? []) if (origins[id]?.at(-1) !== label) origins[id] = [...(origins[id] ?? []), label]
    }
  }
  return origins
}

/** Which layer (and protocol) removed each check that is still removed at the end of the chain. */
export function removedByOf(merged: MergedConfig, chain: readonly string[], source: string): Record<string, string> {
  const removedBy = byId<string>()
  for (const n of chain) {
    for (const [id, entry] of Object.entries(merged.protocols[n]?.checks ?? {})) {
      if (entry !== false) delete removedBy[id]
      else removedBy[id] = `${merged.removedBy[n]?.[id] ?? source}${chain.length > 1 ? `, protocol "${n}"` : ''}`
    }
  }
  return removedBy
}

// The same problem inherited by several protocols differs only by the list of checks each has.
const problemKey = (line: string) => line.replace(/ \(checks: [^)]*\)$/, '')

/**
 * The problems of the protocols other than the one being resolved: their `dependsOn` (unknown ids, cycles), each
 * prefixed with `protocols.<name>.` and left out when `seen` (the resolved protocol's own lines) already has it.
 */
export function otherProtocolProblems(merged: MergedConfig, resolved: string, source: string, seen: Iterable<string>): string[] {
  const known = new Set([...seen].map(problemKey))
  const problems: string[] = []
  for (const name of Object.keys(merged.protocols)) {
    const chain = name === resolved ? undefined : inheritanceChain(merged.protocols, name)
    if (!chain) continue
    for (const line of dependsOnProblems(chainEntries(merged, chain), removedByOf(merged, chain, source))) {
      if (known.has(problemKey(line))) continue
      known.add(problemKey(line))
      problems.push(`protocols.${name}.${line}`)
    }
  }
  return problems
}
