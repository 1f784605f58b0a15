import { createHash } from 'node:crypto'

/**
 * Deterministic JSON: object keys sorted recursively, no whitespace, `undefined` properties dropped.
 * RegExps and functions are serialised as their source text so that changing a check's `run`
 * function or an `expect` pattern changes any digest computed from it.
 */
export function canonicalJson(value: unknown): string {
  return serialise(value, new Set()) ?? 'null'
}

/** SHA-256 of a string (as UTF-8) or of bytes, as `sha256:<hex>`. */
export function sha256(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`
}

// Returns undefined for values JSON leaves out (undefined, symbols), like JSON.stringify does.
function serialise(value: unknown, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case 'undefined':
    case 'symbol':
      return undefined
    case 'string':
      return JSON.stringify(value)
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null'
    case 'boolean':
      return value ? 'true' : 'false'
    case 'bigint':
      return JSON.stringify(value.toString())
    case 'function':
      return JSON.stringify(value.toString())
  }
  if (value === null) return 'null'
  if (value instanceof RegExp) return JSON.stringify(value.toString())

  const object = value as Record<string, unknown>
  if (typeof object['toJSON'] === 'function') {
    return serialise((object['toJSON'] as () => unknown)(), seen)
  }
  if (seen.has(object)) throw new TypeError('canonicalJson: cannot serialise a circular structure')
  seen.add(object)
  try {
    if (Array.isArray(object)) {
      return `[${object.map((item) => serialise(item, seen) ?? 'null').join(',')}]`
    }
    const members: string[] = []
    for (const key of Object.keys(object).toSorted()) {
      const member = serialise(object[key], seen)
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`)
    }
    return `{${members.join(',')}}`
  } finally {
    // Shared (non-circular) references may appear more than once.
    seen.delete(object)
  }
}
