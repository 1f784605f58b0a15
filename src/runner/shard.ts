// Deterministic shares of a protocol for CI matrices: a check always lands with the checks it is connected to by
// `dependsOn`, and the shares are balanced by count.
import type { ResolvedCheck } from '../types.js'
import { VerifyUsageError } from '../errors.js'

export interface ShardSpec {
  /** 1-based. */
  index: number
  total: number
}

export function parseShard(value: string): ShardSpec {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim())
  const index = Number(match?.[1])
  const total = Number(match?.[2])
  if (!match || total < 1 || index < 1 || index > total) {
    throw new VerifyUsageError(`--shard expects i/n with 1 ≤ i ≤ n (e.g. --shard 2/3), got "${value}"`)
  }
  return { index, total }
}

/** Groups of checks joined by dependsOn (in either direction), in declaration order of their first check. */
function components(checks: readonly ResolvedCheck[]): string[][] {
  const parent = new Map(checks.map((c) => [c.id, c.id]))
  const find = (id: string): string => {
    let root = id
    while (parent.get(root) !== root) root = parent.get(root) as string
    parent.set(id, root)
    return root
  }
  for (const check of checks) for (const dep of check.dependsOn) if (parent.has(dep)) parent.set(find(check.id), find(dep))
  const groups = new Map<string, string[]>()
  for (const check of checks) {
    const root = find(check.id)
    const group = groups.get(root) ?? []
    group.push(check.id)
    groups.set(root, group)
  }
  return [...groups.values()]
}

/** Splits the checks into `total` shares; the same protocol always gives the same shares. */
export function partitionShards(checks: readonly ResolvedCheck[], total: number): string[][] {
  const shards: string[][] = Array.from({ length: total }, () => [])
  // Largest groups first so counts balance; ties keep declaration order.
  const groups = components(checks)
    .map((ids, order) => ({ ids, order }))
    .toSorted((a, b) => b.ids.length - a.ids.length || a.order - b.order)
  for (const { ids } of groups) {
    let target = 0
    for (let i = 1; i < total; i++) if ((shards[i] as string[]).length < (shards[target] as string[]).length) target = i
    ;(shards[target] as string[]).push(...ids)
  }
  const position = new Map(checks.map((c, i) => [c.id, i]))
  return shards.map((ids) => ids.toSorted((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)))
}
