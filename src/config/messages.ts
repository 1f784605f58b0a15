// How values and thrown errors read in config error messages: one line each, never a stack.

/** A value as a message shows what arrived: `null`, `an array`, `number 42`, `string "x"`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof RegExp) return 'a RegExp'
  if (typeof value === 'function') return 'a function'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 60)
}

/** What a config file or preset must export by default, for messages about what it exports instead. */
export const EXPECTED_EXPORT = 'expected `export default defineProtocol({ checks: { … } })`, `defineConfig({ protocols: { … } })`, or a function that returns one'

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
