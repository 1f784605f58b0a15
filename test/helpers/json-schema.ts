// A small JSON Schema (2020-12) validator for the keywords z.toJSONSchema emits (and `verify schema` adds: `not`,
// `oneOf`, `propertyNames`, local `$ref`s into `$defs`), so the tests need no dependency.
type Schema = Record<string, unknown> | boolean

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value)
  return actual === type || (type === 'number' && actual === 'integer')
}

const KNOWN = new Set([
  '$schema',
  '$defs',
  '$ref',
  'title',
  'description',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'const',
  'enum',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'format',
  'default',
])

/** Every violation of `schema` by `value`, each with its JSON path; throws on a keyword it does not know. */
export function validate(schema: Schema, value: unknown, path = '$', root: Schema = schema): string[] {
  if (schema === true) return []
  if (schema === false) return [`${path}: no value is allowed here`]
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) throw new Error(`validator: unsupported keyword "${key}" at ${path}`)
  const errors: string[] = []
  const s = schema as Record<string, unknown>
  if (typeof s.$ref === 'string') {
    const name = /^#\/\$defs\/(.+)$/.exec(s.$ref)?.[1]
    const target = name === undefined || typeof root !== 'object' ? undefined : (root.$defs as Record<string, Schema> | undefined)?.[name]
    if (target === undefined) throw new Error(`validator: cannot resolve ${s.$ref} at ${path}`)
    errors.push(...validate(target, value, path, root))
  }
  if (s.not !== undefined && validate(s.not as Schema, value, path, root).length === 0) errors.push(`${path}: matches a schema it must not`)
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string]
    if (!types.some((t) => matchesType(value, t))) return [`${path}: expected ${types.join(' | ')}, got ${typeOf(value)}`]
  }
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value)) errors.push(`${path}: expected ${JSON.stringify(s.const)}`)
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    errors.push(`${path}: expected one of ${JSON.stringify(s.enum)}`)
  if (typeof value === 'string') {
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) errors.push(`${path}: does not match ${s.pattern}`)
    if (typeof s.minLength === 'number' && [...value].length < s.minLength) errors.push(`${path}: shorter than ${s.minLength}`)
    if (s.format === 'date-time' && Number.isNaN(Date.parse(value))) errors.push(`${path}: not a date-time`)
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) errors.push(`${path}: below ${s.minimum}`)
    if (typeof s.maximum === 'number' && value > s.maximum) errors.push(`${path}: above ${s.maximum}`)
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) errors.push(`${path}: not above ${s.exclusiveMinimum}`)
  }
  if (Array.isArray(value)) {
    const prefix = (s.prefixItems ?? []) as Schema[]
    prefix.forEach((item, i) => i < value.length && errors.push(...validate(item, value[i], `${path}[${i}]`, root)))
    if (s.items !== undefined) value.forEach((item, i) => i >= prefix.length && errors.push(...validate(s.items as Schema, item, `${path}[${i}]`, root)))
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) errors.push(`${path}: more than ${s.maxItems} items`)
    if (typeof s.minItems === 'number' && value.length < s.minItems) errors.push(`${path}: fewer than ${s.minItems} items`)
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>
    const properties = (s.properties ?? {}) as Record<string, Schema>
    for (const key of (s.required ?? []) as string[]) if (!(key in object)) errors.push(`${path}.${key}: required`)
    for (const [key, item] of Object.entries(object)) {
      if (key in properties) errors.push(...validate(properties[key] as Schema, item, `${path}.${key}`, root))
      else if (s.additionalProperties !== undefined) errors.push(...validate(s.additionalProperties as Schema, item, `${path}.${key}`, root))
      if (s.propertyNames !== undefined) errors.push(...validate(s.propertyNames as Schema, key, `${path}{${key}}`, root))
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key] as Schema[] | undefined
    if (!options) continue
    const passing = options.filter((option) => validate(option, value, path, root).length === 0).length
    if (key === 'anyOf' ? passing === 0 : passing !== 1) errors.push(`${path}: matches ${passing} of the ${key} options`)
  }
  for (const option of (s.allOf ?? []) as Schema[]) errors.push(...validate(option, value, path, root))
  return errors
}
