// Secret masking: values of secret-looking environment variables and configured patterns become `***` in
// everything verify writes or prints, in their raw, base64, URL-encoded and JSON-escaped forms.

export const MASK = '***'

/**
 * Names whose values are treated as secrets: a secret word as a whole segment of the name (GITHUB_TOKEN, DB_PASSWORD,
 * SENTRY_DSN, AUTH_HEADER, ACCESSTOKEN, API_KEY, AWS_SECRET_ACCESS_KEY). Whole segments, so GIT_AUTHOR_NAME is not one.
 */
const SECRET_SEGMENT = /(?:^|_)(?:[A-Z0-9]*(?:TOKENS?|SECRETS?|PASSWORDS?|PASSWD|CREDENTIALS?|PRIVATE|AUTH|COOKIES?|SESSION|DSN)|CREDS|APIKEY|KEY)(?:_|$)/i
/** Well-known variables whose names look secret but whose values are not. */
const NOT_SECRET = new Set(['SSH_AUTH_SOCK', 'DESKTOP_SESSION', 'XDG_SESSION_ID', 'XDG_SESSION_TYPE', 'XDG_SESSION_CLASS', 'XDG_SESSION_DESKTOP', 'SESSION_MANAGER', 'GDMSESSION'])
/** Shorter values are too likely to occur by chance (and to mask innocent text) to be masked. */
const MIN_SECRET_LENGTH = 6

export function isSecretName(name: string): boolean {
  return !NOT_SECRET.has(name.toUpperCase()) && SECRET_SEGMENT.test(name)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The base64 renderings of a value wherever it falls in a longer base64 stream: its bytes can start at any of three
 * offsets within a 3-byte group, and only the characters that depend on the value alone are stable.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value)
  const forms: string[] = []
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes])
    const encoded = padded.toString('base64').replace(/=+$/, '')
    // Drop characters mixed with the unknown bytes before (the first group) and after (a partial last group).
    const start = offset === 0 ? 0 : Math.ceil((offset * 8) / 6)
    const end = Math.floor((padded.length * 8) / 6)
    const stable = encoded.slice(start, end)
    if (stable.length >= MIN_SECRET_LENGTH) forms.push(stable)
    // The complete encoding of the value alone, with padding, also occurs as is (e.g. `echo $SECRET | base64`).
  }
  forms.push(bytes.toString('base64'), bytes.toString('base64url').replace(/=+$/, ''))
  return forms
}

/** Every form of a secret value that should be masked. */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value])
  forms.add(encodeURIComponent(value))
  forms.add(encodeURIComponent(value).replace(/%20/g, '+'))
  forms.add(JSON.stringify(value).slice(1, -1))
  // JSON writers that escape the solidus (PHP's json_encode, some Java libraries).
  forms.add(JSON.stringify(value).slice(1, -1).replaceAll('/', '\\/'))
  // Doubly escaped JSON, as in a JSON string inside a JSON string.
  forms.add(JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1))
  for (const form of base64Forms(value)) forms.add(form)
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH)
}

/** The secret values found in an environment. */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = []
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && isSecretName(name)) values.push(value)
  }
  return values
}

/** Masks secrets in text. `safeCut` moves a cut back so no secret in the text is split by it (for streaming). */
export type Redactor = ((text: string) => string) & {
  /** Longest masked form, in characters (0 when nothing is masked). */
  maxLength?: number
  safeCut?: (text: string, cut: number) => number
}

/** Builds a masking function for the given secret values and configured patterns (strings are literal). */
export function createRedactor(values: readonly string[], patterns: readonly (string | RegExp)[] = []): Redactor {
  const literals = new Set<string>()
  for (const value of values) for (const form of secretForms(value)) literals.add(form)
  for (const pattern of patterns) if (typeof pattern === 'string' && pattern.length > 0) literals.add(pattern)
  const sources = [...literals].toSorted((a, b) => b.length - a.length).map(escapeRegExp)
  for (const pattern of patterns) if (pattern instanceof RegExp) sources.push(`(?:${pattern.source})`)
  if (sources.length === 0) return (text) => text
  const flags = patterns.some((p) => p instanceof RegExp && p.flags.includes('i')) ? 'gi' : 'g'
  const matcher = new RegExp(sources.join('|'), flags)
  const redactor: Redactor = (text) => (text.length === 0 ? text : text.replace(matcher, MASK))
  // Patterns have no known length; a generous bound keeps their matches whole across a forced cut.
  redactor.maxLength = Math.max(0, ...[...literals].map((l) => l.length), patterns.some((p) => p instanceof RegExp) ? 256 : 0)
  redactor.safeCut = (text, cut) => {
    let safe = cut
    for (const match of text.matchAll(matcher)) {
      if (match.index < safe && match.index + match[0].length > safe) safe = match.index
    }
    return safe
  }
  return redactor
}

/** Masks every string inside a JSON-like value (evidence, reports), returning a copy. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item, redact)
    return out as T
  }
  return value
}
