// Every command's flags, declared once: each table is the command's parseArgs options, and the help's option lists
// and the words that take a value (which main.ts must not read as a command) are derived from them.
import { DEFAULTS } from '../defaults.js'

export interface Flag {
  /** `string`: takes a value; `boolean`: a switch, `--no-<name>` too. */
  type: 'string' | 'boolean'
  multiple?: boolean
  short?: string
  /** The value's placeholder in the help: `--timeout 5m`. */
  value?: string
  /** How the help shows the flag, when not `--<name> <value>`: `--no-color`, `--wait[=<duration>]`. */
  usage?: string
  /** What it does, one line each. */
  help: readonly string[]
  /** The value is given only as `--<name>=<value>`; alone the flag means "no limit" (see `inlineValueOnly`). */
  inline?: boolean
  /** Left out of the option lists (`--help`). */
  hidden?: boolean
}

export type FlagTable = Readonly<Record<string, Flag>>

const minutes = (ms: number) => `${ms / 60_000}m`

const HELP_FLAG = { type: 'boolean', short: 'h', help: ['this text'], hidden: true } as const
const COLOR = { type: 'boolean', usage: '--no-color', help: ['plain output'] } as const
const CONFIG = { type: 'string', value: '<file>', help: ['the config file (default: verify.config.* found from --cwd)'] } as const
const CWD = { type: 'string', value: '<dir>', help: ['the folder to start from'] } as const
const EVIDENCE = { type: 'string', value: '<path>', help: ['the evidence file (default .verify/evidence.json)'] } as const
const WAIT = {
  type: 'string',
  usage: '--wait[=<duration>]',
  inline: true,
  help: ['another run holds the evidence file: wait for it (at most <duration>), not exit 2'],
} as const
const PROTOCOL_FROM = {
  type: 'string',
  value: '<ref>',
  help: ['judge against the protocol as the config at this git ref defines it (e.g. origin/main)'],
} as const
const FRESHNESS = { type: 'string', value: '5m', help: [`freshness window (default: the config's maxAge, else ${minutes(DEFAULTS.maxAgeMs)})`] } as const

export const RUN_FLAGS = {
  only: { type: 'string', multiple: true, value: 'a,b', help: ['run only these checks (and what they depend on)'] },
  skip: { type: 'string', multiple: true, value: 'a,b', help: ['leave these checks out'] },
  sequential: { type: 'boolean', help: ['one check at a time, in declaration order'] },
  concurrency: { type: 'string', value: 'N', help: ['at most N checks at once (default: available parallelism)'] },
  'fail-fast': { type: 'boolean', help: ['the first failing required check cancels the rest'] },
  'skip-optional': { type: 'boolean', help: ['do not run optional checks'] },
  timeout: { type: 'string', value: '5m', help: [`per-check timeout for every check (default: the config's, else ${minutes(DEFAULTS.timeoutMs)})`] },
  'max-age': { type: 'string', value: '5m', help: [`how long evidence stays fresh (default: the config's maxAge, else ${minutes(DEFAULTS.maxAgeMs)})`] },
  reuse: { type: 'boolean', help: ['run only checks without valid evidence; reuse the rest'] },
  shard: { type: 'string', value: 'i/n', help: ['run the i-th of n deterministic shares (dependencies kept together)'] },
  interactive: { type: 'boolean', usage: '--no-interactive', help: ['never offer to approve manual checks at the terminal'] },
  wait: WAIT,
  reporter: {
    type: 'string',
    multiple: true,
    value: 'name[=file]',
    help: ['default | verbose | json | junit | markdown | github-actions | agent', '(repeatable; replaces the default)'],
  },
  evidence: { ...EVIDENCE, help: ['where to write the evidence (default .verify/evidence.json)'] },
  config: CONFIG,
  cwd: CWD,
  color: COLOR,
  help: HELP_FLAG,
} as const satisfies FlagTable

export const CHECK_FLAGS = {
  'max-age': FRESHNESS,
  'require-signature': {
    type: 'boolean',
    help: ['reject unsigned or altered evidence (needs VERIFY_SIGNING_KEY; with the key set,', 'such evidence is rejected anyway)'],
  },
  'protocol-from': { ...PROTOCOL_FROM, help: [`${PROTOCOL_FROM.help[0]},`, 'so the change under test cannot weaken its own gate'] },
  json: { type: 'boolean', help: ['the judgement as JSON'] },
  evidence: EVIDENCE,
  config: CONFIG,
  cwd: CWD,
  color: COLOR,
  help: HELP_FLAG,
} as const satisfies FlagTable

export const APPROVE_FLAGS = {
  by: { type: 'string', value: '<name>', help: ['who approves (default: git user.name, else the login name)'] },
  note: { type: 'string', value: '<text>', help: ['why, or what was looked at'] },
  protocol: { type: 'string', value: '<name>', help: ['the protocol the check belongs to (default: "default")'] },
  wait: WAIT,
  evidence: EVIDENCE,
  config: CONFIG,
  cwd: CWD,
  help: HELP_FLAG,
} as const satisfies FlagTable

export const MERGE_FLAGS = {
  evidence: { ...EVIDENCE, help: ['where to write the merged file (default .verify/evidence.json)'] },
  wait: { ...WAIT, help: ['another run holds that file: wait for it (at most <duration>), not exit 2'] },
  'protocol-from': PROTOCOL_FROM,
  'max-age': FRESHNESS,
  config: CONFIG,
  cwd: CWD,
  color: COLOR,
  help: HELP_FLAG,
} as const satisfies FlagTable

export const LIST_FLAGS = {
  json: { type: 'boolean', help: ['the same as JSON (stable format, see docs/cli.md)'] },
  config: CONFIG,
  cwd: CWD,
  color: COLOR,
  help: HELP_FLAG,
} as const satisfies FlagTable

export const INIT_FLAGS = {
  yes: { type: 'boolean', short: 'y', usage: '--yes, -y', help: ['no questions: take every check found'] },
  force: { type: 'boolean', help: ['replace an existing verify config, kept as <name>.bak (verify init never touches one otherwise)'] },
  agent: {
    type: 'string',
    value: '<name>',
    help: [
      "add verify's stop gate to the agent's settings (claude-code, codex, cursor, gemini,",
      'copilot), merged with the hooks already there; with a config present, only that',
    ],
  },
  cwd: { ...CWD, help: ['the project folder'] },
  help: HELP_FLAG,
} as const satisfies FlagTable

export const SCHEMA_FLAGS = { help: HELP_FLAG } as const satisfies FlagTable

export const HOOK_FLAGS = {
  'max-blocks': { type: 'string', value: 'N', help: [`blocks in a row before the stop goes through unverified (default ${DEFAULTS.hookMaxBlocks})`] },
  timeout: {
    type: 'string',
    value: minutes(DEFAULTS.hookBudgetMs),
    help: [`the time the agent gives the hook; verify answers within it (default ${minutes(DEFAULTS.hookBudgetMs)})`],
  },
  evidence: EVIDENCE,
  config: CONFIG,
  cwd: CWD,
  help: HELP_FLAG,
} as const satisfies FlagTable

/** Every command's flags, by command. */
export const COMMAND_FLAGS: Readonly<Record<string, FlagTable>> = {
  run: RUN_FLAGS,
  check: CHECK_FLAGS,
  approve: APPROVE_FLAGS,
  merge: MERGE_FLAGS,
  list: LIST_FLAGS,
  init: INIT_FLAGS,
  schema: SCHEMA_FLAGS,
  hook: HOOK_FLAGS,
}

/** The words that take the next word as their value, in any command: that word is never a command (`--cwd check`). */
export const VALUE_FLAGS: ReadonlySet<string> = new Set(
  Object.values(COMMAND_FLAGS).flatMap((table) =>
    Object.entries(table).flatMap(([name, flag]) => (flag.type === 'string' && !flag.inline ? [`--${name}`, ...(flag.short ? [`-${flag.short}`] : [])] : [])),
  ),
)

/**
 * A flag whose value is given only after `=` (`--wait`, `--wait=5m`): alone, it is read as `--wait=` (no limit), so
 * the word after it stays a positional. Call before parsing.
 */
export function inlineValueOnly(table: FlagTable, argv: readonly string[]): string[] {
  const inline = new Set(Object.entries(table).flatMap(([name, flag]) => (flag.inline ? [`--${name}`] : [])))
  return argv.map((word) => (inline.has(word) ? `${word}=` : word))
}

const USAGE_WIDTH = 21
const INDENT = '  '

/** The help's option list of a table: the flag as typed, then what it does (continuation lines aligned). */
export function optionLines(table: FlagTable): string {
  const lines: string[] = []
  for (const [name, flag] of Object.entries(table)) {
    if (flag.hidden) continue
    const usage = flag.usage ?? `--${name}${flag.value ? ` ${flag.value}` : ''}`
    const [first = '', ...rest] = flag.help
    lines.push(`${INDENT}${usage.padEnd(USAGE_WIDTH)} ${first}`)
    for (const more of rest) lines.push(`${INDENT}${' '.repeat(USAGE_WIDTH + 1)}${more}`)
  }
  return `${lines.join('\n')}\n`
}
