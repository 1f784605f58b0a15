// Merging checks by id: a later layer overrides fields of the same check; `false` removes it.
import type { CheckDefinition, CheckEntry } from './define.js'

const KIND_FIELDS = ['command', 'run', 'manual'] as const

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

/**
 * Merges keyed checks of several layers, lowest first. Order: the base layer's ids in their order, then ids new in
 * each later layer in theirs. A `false` entry removes the check (and stays removed unless a later layer re-adds it).
 */
export function mergeCheckLayers(layers: readonly Record<string, CheckEntry>[]): Record<string, CheckEntry> {
  const merged = new Map<string, CheckEntry>()
  for (const layer of layers) {
    for (const [id, entry] of Object.entries(layer)) {
      const previous = merged.get(id)
      merged.set(id, previous === undefined ? entry : mergeCheck(previous, entry))
    }
  }
  return Object.fromEntries(merged)
}
