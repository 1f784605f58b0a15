// Secret masking: values of secret-looking environment variables and configured patterns become `***` in
// everything verify writes or prints, in their raw, base64 (also wrapped in lines), URL-encoded and JSON-escaped forms.
import { stripAnsi } from '../runner/ansi.js'
import type { ResolvedProtocol } from '../types.js'

export const MASK = '***'

/**
 * Names whose values are treated as secrets: a segment of the name (between underscores) that contains a secret word
 * (GITHUB_TOKEN, DB_PASSWORD, SENTRY_DSN, AUTH_HEADER, ACCESSTOKEN, STRIPE_SECRETKEY, SSH_PRIVATEKEY, AUTHORIZATION,
 * SESSIONID, GPG_PASSPHRASE), or is KEY, APIKEY, CREDS (API_KEY, AWS_SECRET_ACCESS_KEY). A segment AUTHOR is not one
 * (GIT_AUTHOR_NAME); PASS and PWD only as a segment of their own (DB_PASS, MYSQL_PWD), so BYPASS is not one.
 */
const SECRET_SEGMENT =
  /(?:^|_)(?!AUTHORS?(?:_|$))(?:[A-Z0-9]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION|DSN|JWT)[A-Z0-9]*|CREDS|APIKEY|KEY|PASS|PWD)(?:_|$)/i
/**
 * Well-known variables whose names look secret but whose values are not. PWD and OLDPWD are the shell's working
 * folders: masking them would mask every path in every output.
 */
const NOT_SECRET = new Set([
  'PWD',
  'OLDPWD',
  'SSH_AUTH_SOCK',
  'DESKTOP_SESSION',
  'XDG_SESSION_ID',
  'XDG_SESSION_TYPE',
  'XDG_SESSION_CLASS',
  'XDG_SESSION_DESKTOP',
  'SESSION_MANAGER',
  'GDMSESSION',
  // Windows: the name of the terminal session (Console, RDP-Tcp#0).
  'SESSIONNAME',
  // The number of tokenizer threads of Hugging Face's libraries (true / false).
  'TOKENIZERS_PARALLELISM',
])
/** Shorter values are too likely to occur by chance (and to mask innocent text) to be masked. */
const MIN_SECRET_LENGTH = 6

export function isSecretName(name: string): boolean {
  return !NOT_SECRET.has(name.toUpperCase()) && SECRET_SEGMENT.test(name)
}

/**
 * Names of credentials, whose values rotate from job to job: a segment that holds TOKEN, SECRET, PASSWORD, PASSWD,
 * PASSPHRASE, CREDENTIAL, PRIVATE, COOKIE, JWT or DSN (GITHUB_TOKEN, STRIPE_SECRETKEY, SSH_PRIVATEKEY, TOKENVALUE), a
 * segment that ends in AUTH, SESSION or KEY (AUTH, NEXTAUTH, API_KEY, SECRETKEY), CREDS, PASS, PWD, and a last
 * segment AUTHORIZATION or SESSIONID. Narrower than isSecretName on purpose: a check's `env` value is left out of its
 * definition only for these, so a change cannot turn E2E_AUTHZ, SESSIONS_ENABLED or AUTHORIZATION_MODE off unseen.
 */
const CREDENTIAL_SEGMENT =
  /(?:^|_)(?:[A-Z0-9]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|COOKIE|JWT|DSN)[A-Z0-9]*|[A-Z0-9]*(?:AUTH|SESSION|KEY)|CREDS|PASS|PWD)(?:_|$)|(?:^|_)(?:AUTHORIZATION|SESSIONID)$/i

export function isCredentialName(name: string): boolean {
  return isSecretName(name) && CREDENTIAL_SEGMENT.test(name)
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
  return forms.filter((form) => form.length >= MIN_SECRET_LENGTH)
}

/** The forms of a secret value that are text: itself, URL-encoded, JSON-escaped. */
function textForms(value: string): string[] {
  const forms = new Set<string>([value])
  forms.add(encodeURIComponent(value))
  forms.add(encodeURIComponent(value).replace(/%20/g, '+'))
  forms.add(JSON.stringify(value).slice(1, -1))
  // JSON writers that escape the solidus (PHP's json_encode, some Java libraries).
  forms.add(JSON.stringify(value).slice(1, -1).replaceAll('/', '\\/'))
  // Doubly escaped JSON, as in a JSON string inside a JSON string.
  forms.add(JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1))
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH)
}

/** Every form of a secret value that should be masked. */
export function secretForms(value: string): string[] {
  return [...new Set([...textForms(value), ...base64Forms(value)])]
}

/**
 * Where a function check's context carries the values the run masks (the environment's secrets and those given to
 * the protocol's checks through their `env`): for the strict preset's error-free check, which reads masked logs.
 * Not enumerable, so a function that prints its context shows none of them.
 */
export const MASKED_VALUES = Symbol.for('verify-protocol.masked-values')

/** The secret values found in an environment. */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = []
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && isSecretName(name)) values.push(value)
  }
  return values
}

/** Masks secrets in text. `safeCut` and `holdBack` move a cut back so no secret is split by it (for streaming). */
export type Redactor = ((text: string) => string) & {
  /** Longest masked form, in characters (0 when nothing is masked). */
  maxLength?: number
  /** A cut moved back so that no secret found whole in `text` straddles it. */
  safeCut?: (text: string, cut: number) => number
  /**
   * A cut at a line end moved back so that base64 wrapped in lines, whose next line has not arrived yet, is held until
   * it has (only after a line that looks like wrapped base64: no ordinary line is held).
   */
  holdBack?: (text: string, cut: number) => number
}

// Base64 encoders wrap their lines at 76 (MIME, the base64 CLI) or 64 (PEM) characters, LF or CRLF: a form of the
// secret may be broken by a line break after any of its characters.
const LINE_BREAK = '(?:\\r?\\n)?'
// A line shorter than this is not taken for a line of wrapped base64 (so short lines are never held back).
const MIN_WRAPPED_LINE = 16
const BASE64_LINE = /^[A-Za-z0-9+/_-]+$/
const BASE64_CHAR = /[A-Za-z0-9+/_-]/
/**
 * The one mask of a run (built once, handed to everything that writes or prints): the secrets of the environment and
 * those given to checks through their own `env`, and the protocols' `redact` patterns.
 */
export function protocolRedactor(env: NodeJS.ProcessEnv, protocols: readonly Pick<ResolvedProtocol, 'checks' | 'redact'>[] = []): Redactor {
  const secrets = Object.assign({}, env, ...protocols.flatMap((protocol) => protocol.checks.map((check) => check.env)))
  return createRedactor(
    secretValues(secrets),
    protocols.flatMap((protocol) => protocol.redact),
  )
}

// A pattern that can match nothing must not put a mask between every two characters.
const mask = (match: string) => (match === '' ? match : MASK)

/**
 * Builds a masking function for the given secret values and configured patterns (strings are literal; each RegExp is
 * matched with its own flags, `g` and `y` aside).
 */
/** The redactor of a run with no secret to mask. */
const PASS_THROUGH: Redactor = (text) => text

export function createRedactor(values: readonly string[], patterns: readonly (string | RegExp)[] = []): Redactor {
  const literals = new Set<string>()
  const wrapped = new Set<string>()
  for (const value of values) {
    for (const form of textForms(value)) literals.add(form)
    for (const form of base64Forms(value)) wrapped.add(form)
  }
  for (const pattern of patterns) if (typeof pattern === 'string' && pattern.length > 0) literals.add(pattern)
  const alternatives: Form[] = [
    ...[...literals].map((form) => ({ form, wrapped: false, source: escapeRegExp(form) })),
    ...[...wrapped].map((form) => ({ form, wrapped: true, source: [...form].map(escapeRegExp).join(LINE_BREAK) })),
  ].toSorted((a, b) => b.form.length - a.form.length)
  const forms = alternatives.length > 0 ? formsMatcher(alternatives) : () => null
  // One RegExp per pattern: combined, their flags would have to agree and their groups would be renumbered.
  const own = patterns.filter((pattern) => pattern instanceof RegExp).map((pattern) => new RegExp(pattern.source, `${pattern.flags.replace(/[gyd]/g, '')}g`))
  if (alternatives.length === 0 && own.length === 0) return PASS_THROUGH
  const matchers = (text: string) => {
    const found = forms(text)
    return found ? [found, ...own] : own
  }
  const redactor: Redactor = (text) => {
    if (text.length === 0) return text
    let out = text
    for (const matcher of matchers(text)) out = out.replace(matcher, mask)
    return out
  }
  const longest = Math.max(0, ...[...literals, ...wrapped].map((form) => form.length))
  // Patterns have no known length; a generous bound keeps their matches whole across a forced cut.
  redactor.maxLength = Math.max(longest, patterns.some((p) => p instanceof RegExp) ? 256 : 0)
  redactor.safeCut = (text, cut) => {
    let safe = cut
    for (const matcher of matchers(text)) {
      // exec on the RegExp itself: matchAll would copy it, and a copy is compiled again.
      matcher.lastIndex = 0
      for (let match = matcher.exec(text); match; match = matcher.exec(text)) {
        if (match.index < safe && match.index + match[0].length > safe) safe = match.index
        if (match[0] === '') matcher.lastIndex += matcher.unicode && (text.codePointAt(match.index) ?? 0) > 0xffff ? 2 : 1
      }
    }
    return safe
  }
  const longestWrapped = Math.max(0, ...[...wrapped].map((form) => form.length))
  redactor.holdBack = (text, cut) => {
    if (longestWrapped === 0 || cut === 0) return cut
    let end = cut
    if (text[end - 1] === '\n') end--
    if (text[end - 1] === '\r') end--
    if (end === cut) return cut
    const line = text.slice(Math.max(text.lastIndexOf('\n', end - 1), text.lastIndexOf('\r', end - 1)) + 1, end)
    if (line.length < MIN_WRAPPED_LINE || !BASE64_LINE.test(line)) return cut
    // A form continuing on the next line has fewer than its length of characters before the cut.
    let held = 0
    let at = cut
    while (at > 0 && held < longestWrapped - 1) {
      const ch = text[at - 1] as string
      if (ch !== '\n' && ch !== '\r') {
        if (!BASE64_CHAR.test(ch)) break
        held++
      }
      at--
    }
    return at
  }
  return redactor
}

interface Form {
  form: string
  /** Base64, matched also when broken by line breaks. */
  wrapped: boolean
  source: string
}

/**
 * Until the redactor has seen this much text, each text is searched for each form first, and only the forms found go
 * into a RegExp. The RegExp of every form costs about 0.4 ms per form to compile (110 ms for 30 secrets) and scans
 * 1 MiB in 2.5 ms; searching for every form scans 1 MiB in about 40 ms with 300 forms. A run whose checks print little
 * never compiles it; one that prints megabytes, or masks a text of megabytes at once, compiles it once.
 */
const SEARCH_FIRST_CHARS = 4 * 1024 * 1024

/** The RegExp that masks the forms found in a text, or null when none is in it. */
function formsMatcher(alternatives: readonly Form[]): (text: string) => RegExp | null {
  const build = (subset: readonly Form[]) => new RegExp(subset.map((a) => a.source).join('|'), 'g')
  let all: RegExp | undefined
  let searched = 0
  const subsets = new Map<string, RegExp>()
  return (text) => {
    if (all) return all
    // A text that would take the search past the limit (a whole report masked at once) goes to the RegExp of all.
    searched += text.length
    if (searched > SEARCH_FIRST_CHARS) return (all = build(alternatives))
    // A wrapped form is in the text with its line breaks taken out (a necessary condition; the RegExp decides).
    let flat: string | undefined
    const found: number[] = []
    alternatives.forEach((a, i) => {
      const haystack = a.wrapped ? (flat ??= /\r?\n/.test(text) ? text.replace(/\r?\n/g, '') : text) : text
      if (haystack.includes(a.form)) found.push(i)
    })
    if (found.length === 0) return null
    const key = found.join(',')
    let matcher = subsets.get(key)
    if (!matcher) {
      if (subsets.size >= 32) subsets.clear()
      // In the order of the whole list (longest first): at each place, the same alternative wins as in the RegExp of all.
      matcher = build(found.map((i) => alternatives[i] as Form))
      subsets.set(key, matcher)
    }
    return matcher
  }
}

// Control characters a terminal does not show (tab, LF and CR aside): a secret split by one reads whole on screen.
// Runs, not single characters: output of NUL bytes (`head -c 1G /dev/zero`) is one replacement per chunk, not one per byte.
const HIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]+/g
const visible = (text: string) => stripAnsi(text).replace(HIDDEN, '')

/**
 * Masks text as a terminal will show it: once escape sequences and invisible control characters are gone, no secret
 * is left. Colours and other sequences are kept unless a secret hides between them; then the text goes plain.
 */
export function maskVisible(redact: Redactor, text: string): string {
  // Nothing to mask: what a terminal shows of the text does not matter.
  if (redact === PASS_THROUGH) return text
  const masked = redact(text)
  const shown = visible(masked)
  if (shown === masked || redact(shown) === shown) return masked
  return redact(visible(text))
}

/** Masks every string inside a JSON-like value (evidence, reports), returning a copy. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    // Defined, not assigned: a `__proto__` key (a function check's metadata) stays an ordinary field of the copy.
    for (const [key, item] of Object.entries(value))
      Object.defineProperty(out, key, { value: redactDeep(item, redact), enumerable: true, writable: true, configurable: true })
    return out as T
  }
  return value
}
