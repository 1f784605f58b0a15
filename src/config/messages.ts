// Every step, helper: how config problems read — values, thrown errors and zod issues, one line each, never a stack
// (`checks.test.timeout: expected a duration …`).
import type { z } from 'zod'

/** A value as a message shows what arrived: `null`, `an array`, `number 42`, `string "x"`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof RegExp) return 'a RegExp'
  if (typeof value === 'function') return 'a function'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 60)
}

/** What a config file or preset must export by default, for messages about what it exports instead. */
export const EXPECTED_EXPORT =
  'expected `export default defineProtocol({ checks: { … } })`, `defineConfig({ protocols: { … } })`, or a function that returns one'

// `/path/file.ts:2:0`, as jiti and Node put it on a later line of a syntax error.
const LOCATION = /(?:file:\/\/)?((?:[A-Za-z]:)?[^\s:()]*[\\/][^\s:()]+):(\d+):(\d+)/

/**
 * The first line of a thrown error, and the `path:line:col` of a later line when there is one (a syntax error's
 * location: jiti reports it on the second line), so the message says where to look without the stack.
 */
export function errorSummary(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  const [first = text, ...rest] = text.split('\n')
  const head = first.trim()
  if (LOCATION.test(head)) return head
  for (const line of rest) {
    const match = LOCATION.exec(line)
    if (match) return `${head}\n  ${match[1]}:${match[2]}:${match[3]}`
  }
  return head
}

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

/** What the branches of a union that all failed on the value's own type expected: `string, array or function`. */
function unionExpected(issue: Extract<Issue, { code: 'invalid_union' }>): string | undefined {
  const expected: string[] = []
  for (const branch of issue.errors) {
    const top = branch.find((i) => i.path.length === 0)
    if (top?.code !== 'invalid_type') return undefined
    if (!expected.includes(top.expected)) expected.push(top.expected)
  }
  return expected.length > 1 ? `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}` : expected[0]
}

/**
 * Flattens issues; for a union, reports the branch that matches the value's shape rather than every branch.
 * `root` is the value the issues' paths start from; `prefix` is where `root` sits, for the path shown.
 */
export function formatIssues(issues: readonly Issue[], root: unknown, prefix: readonly PropertyKey[] = [], at: readonly PropertyKey[] = []): string[] {
  const lines: string[] = []
  for (const issue of issues) {
    const inRoot = [...at, ...issue.path]
    const path = [...prefix, ...inRoot]
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const branches = issue.errors.filter((branch) => !branch.some((i) => (i.code === 'invalid_type' || i.code === 'invalid_value') && i.path.length === 0))
      const best = branches.length > 0 ? branches.reduce((a, b) => (b.length < a.length ? b : a)) : undefined
      if (best) {
        lines.push(...formatIssues(best, root, prefix, inRoot))
        continue
      }
      const expected = unionExpected(issue)
      const got = valueAt(root, inRoot)
      if (expected && got !== undefined) {
        lines.push(`${formatPath(path)}: expected ${expected}, got ${describeValue(got)}`)
        continue
      }
    }
    lines.push(`${formatPath(path)}: ${messageOf(issue, root, inRoot)}`)
  }
  return [...new Set(lines)]
}
