// Command-line parsing with node:util parseArgs; every mistake becomes a VerifyUsageError with a clear message.
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { DURATION_RULE, parseDurationSetting } from '../duration.js'
import { VerifyUsageError } from '../errors.js'
import { inlineValueOnly, type FlagTable } from './flags.js'
import { closest } from '../suggest.js'

type Options = NonNullable<ParseArgsConfig['options']>

type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; allowNegative: true; strict: true }>>

/** Parses a command's words by its flag table (flags.ts); every mistake is a VerifyUsageError that says what to do. */
export function parse<const O extends Options & FlagTable>(command: string, argv: string[], options: O): Parsed<O> & { repeated: string[] } {
  let parsed: Parsed<O> & { tokens: { kind: string; name?: string; value?: string | undefined }[] }
  try {
    parsed = parseArgs({ args: inlineValueOnly(options, argv), options, allowPositionals: true, allowNegative: true, strict: true, tokens: true })
  } catch (error) {
    throw new VerifyUsageError(`${parseProblem(command, error, options, argv)} Run \`verify ${command} --help\` for the options.`)
  }
  // `npm run verify -- --timeout 10m` over a script's `--timeout 5m`: the last one wins, as is the habit, and is said.
  const given = new Map<string, string>()
  const repeated: string[] = []
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.name === undefined || token.value === undefined) continue
    const option = options[token.name] as FlagTable[string] | undefined
    if (option?.type !== 'string' || option.multiple) continue
    const before = given.get(token.name)
    if (before !== undefined && before !== token.value)
      repeated.push(`--${token.name} was given more than once ("${before}", then "${token.value}"): the last one is used.`)
    given.set(token.name, token.value)
  }
  // `--evidence=` or `--cwd ''` names nothing: going on with the default instead would be a surprise.
  for (const [name, value] of Object.entries(parsed.values)) {
    // An inline-only flag alone (`--wait`) reads as an empty value on purpose.
    if ((options[name] as FlagTable[string] | undefined)?.inline) continue
    const values = Array.isArray(value) ? value : [value]
    if (values.some((v) => v === '')) throw new VerifyUsageError(`--${name} was given an empty value. Run \`verify ${command} --help\` for the options.`)
  }
  return Object.assign(parsed, { repeated })
}

/** What was wrong with the words, in verify's words rather than node:util's. */
function parseProblem(command: string, error: unknown, options: Options, argv: readonly string[]): string {
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)
  const flag = /'(-[^' ]*)/.exec(message)?.[1]
  const known = Object.entries(options).flatMap(([name, o]) => [
    `--${name}`,
    ...(o.type === 'boolean' ? [`--no-${name}`] : []),
    ...(o.short ? [`-${o.short}`] : []),
  ])
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const near = closest(flag, known)
    return `\`verify ${command}\` has no option ${flag}${near ? ` — did you mean ${near}?` : '.'}`
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    const name = flag.replace(/^-+/, '')
    if (options[name]?.type === 'boolean') {
      // `--no-color=false`: node:util names the flag without its `no-`; the message names it as it was typed.
      const typed = argv.find((word) => word.startsWith(`--no-${name}=`) || word.startsWith(`${flag}=`))?.split('=')[0] ?? flag
      return `${typed} takes no value.`
    }
    // `--concurrency -1`: the next word starts with a dash, so it reads as an option, not as this flag's value.
    const next = argv[argv.indexOf(flag) + 1]
    return next !== undefined && argv.includes(flag) && next.startsWith('-')
      ? `${flag} needs a value; "${next}" reads as an option (write ${flag}=${next} to give it as the value).`
      : `${flag} needs a value.`
  }
  return `${message.replace(/\.$/, '')}.`
}

/** `--only a,b --only c` → ['a', 'b', 'c']. */
export function list(values: string | string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined
  const all = (Array.isArray(values) ? values : [values])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
  // `--only ,` names nothing: running everything instead would be a surprise.
  if (all.length === 0) throw new VerifyUsageError('--only and --skip expect check ids, e.g. --only build,test')
  return all
}

export function duration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const ms = parseDurationSetting(value)
  if (ms === undefined) throw new VerifyUsageError(`--${flag} expects ${DURATION_RULE}, got "${value}"`)
  return ms
}

export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new VerifyUsageError(`--${flag} expects a whole number of at least 1, got "${value}"`)
  return n
}
