// Step 5 (resolve), helper: dependencies between checks — validation of `dependsOn`, the `'*'` wildcard, and cycles.
import type { ResolvedCheck } from '../types.js'
import type { CheckEntry } from './define.js'

/** In `dependsOn`: every other required command or function check that does not itself depend on this one. */
export const ALL_CHECKS = '*'

/** Problems of every declared check's `dependsOn`, valid check or not, so they are all reported at once. */
function dependencyProblems(entries: Record<string, CheckEntry>, removedBy: Record<string, string>): string[] {
  const problems: string[] = []
  const ids = new Set(Object.keys(entries).filter((id) => entries[id] !== false))
  for (const id of ids) {
    const entry = entries[id]
    const deps = typeof entry === 'object' && Array.isArray(entry.dependsOn) ? entry.dependsOn : []
    for (const dep of deps) {
      if (dep === ALL_CHECKS) continue
      if (dep === id) problems.push(`checks.${id}.dependsOn: a check cannot depend on itself`)
      else if (ids.has(dep)) continue
      else if (Object.hasOwn(removedBy, dep)) {
        problems.push(`checks.${id}.dependsOn: "${dep}" was removed (\`${dep}: false\` in ${removedBy[dep]}); remove it from the dependsOn of "${id}" too`)
      } else problems.push(`checks.${id}.dependsOn: no check "${dep}" (checks: ${[...ids].join(', ')})`)
    }
  }
  return problems
}

/** Ids of the checks that depend on `id`, directly or not. */
function dependents(checks: readonly ResolvedCheck[], id: string): Set<string> {
  const found = new Set<string>()
  let grew = true
  while (grew) {
    grew = false
    for (const check of checks) {
      if (found.has(check.id)) continue
      if (check.dependsOn.some((dep) => dep === id || found.has(dep))) {
        found.add(check.id)
        grew = true
      }
    }
  }
  return found
}

/**
 * Replaces `'*'` in `dependsOn` by every other required command or function check that does not use `'*'` itself
 * and does not depend on this one, in declaration order; the check gets them in `VERIFY_DEPENDS_ON` too. Optional
 * checks are left out: their failure must not turn into a skipped required check.
 */
export function expandAllChecks(checks: ResolvedCheck[]): void {
  const wildcard = new Set(checks.filter((c) => c.dependsOn.includes(ALL_CHECKS)).map((c) => c.id))
  for (const check of checks) {
    if (!wildcard.has(check.id)) continue
    const after = dependents(checks, check.id)
    const all = checks.filter((c) => c.id !== check.id && c.required && c.kind !== 'manual' && !wildcard.has(c.id) && !after.has(c.id)).map((c) => c.id)
    check.dependsOn = [...new Set([...check.dependsOn.filter((dep) => dep !== ALL_CHECKS), ...all])]
    check.env = { ...check.env, VERIFY_DEPENDS_ON: check.dependsOn.join(',') }
  }
}

/**
 * A cycle of `dependsOn` (ids, the first repeated at the end), if there is one. A depth-first walk with a stack of its
 * own: a chain of thousands of checks must not overflow the call stack.
 */
export function findCycle(checks: readonly { id: string; dependsOn: readonly string[] }[]): string[] | undefined {
  const byId = new Map(checks.map((c) => [c.id, c]))
  const state = new Map<string, 'visiting' | 'done'>()
  for (const check of checks) {
    if (state.has(check.id)) continue
    // The path from the root, each id with the index of the next dependency to look at.
    const path: { id: string; next: number }[] = [{ id: check.id, next: 0 }]
    state.set(check.id, 'visiting')
    while (path.length > 0) {
      const top = path[path.length - 1] as { id: string; next: number }
      const deps = byId.get(top.id)?.dependsOn ?? []
      if (top.next >= deps.length) {
        state.set(top.id, 'done')
        path.pop()
        continue
      }
      const dep = deps[top.next++] as string
      // A self-dependency is reported on its own, not as a cycle.
      if (!byId.has(dep) || dep === top.id || state.get(dep) === 'done') continue
      if (state.get(dep) === 'visiting') {
        const ids = path.map((entry) => entry.id)
        return [...ids.slice(ids.indexOf(dep)), dep]
      }
      state.set(dep, 'visiting')
      path.push({ id: dep, next: 0 })
    }
  }
  return undefined
}

/** Unknown ids and cycles in the `dependsOn` of merged checks (`'*'` never makes a cycle: it skips dependents). */
export function dependsOnProblems(entries: Record<string, CheckEntry>, removedBy: Record<string, string>): string[] {
  const problems = dependencyProblems(entries, removedBy)
  const graph = Object.entries(entries).flatMap(([id, entry]) =>
    entry === false
      ? []
      : [{ id, dependsOn: typeof entry === 'object' && Array.isArray(entry.dependsOn) ? entry.dependsOn.filter((d) => d !== ALL_CHECKS) : [] }],
  )
  const cycle = findCycle(graph)
  if (cycle) problems.push(`checks.${cycle[0]}.dependsOn: a cycle ${cycle.join(' → ')}`)
  return problems
}
