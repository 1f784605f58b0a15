// Turns zod issues into one line per problem, each with its path: `checks.test.timeout: expected a duration …`.
import type { z } from 'zod'
import { describeValue } from './messages.js'

type Issue = z.core.$ZodIssue

export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else if (typeof part === 'string' && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part
    else out += `[${JSON.stringify(String(part))}]`
  }
  return out || '(root)'
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = root
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[part]
  }
  return value
}

function messageOf(issue: Issue, root: unknown, path: readonly PropertyKey[]): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => `"${k}"`).join(', ')}`
    case 'invalid_type': {
      const got = valueAt(root, path)
      return got === undefined ? `required (expected ${issue.expected})` : `expected ${issue.expected}, got ${describeValue(got)}`
    }
    default:
      return issue.message
  }
}

/** Flattens issues; for a union, reports the branch that matches the value's shape rather than every branch. */
export function formatIssues(issues: readonly Issue[], root: unknown, prefix: readonly PropertyKey[] = []): string[] {
  const lines: string[] = []
  for (const issue of issues) {
    const path = [...prefix, ...issue.path]
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const branches = issue.errors.filter((branch) => !branch.some((i) => (i.code === 'invalid_type' || i.code === 'invalid_value') && i.path.length === 0))
      const best = branches.length > 0 ? branches.reduce((a, b) => (b.length < a.length ? b : a)) : undefined
      if (best) {
        lines.push(...formatIssues(best, root, path))
        continue
      }
    }
    lines.push(`${formatPath(path)}: ${messageOf(issue, root, path)}`)
  }
  return [...new Set(lines)]
}
