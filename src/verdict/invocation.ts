// The commands that recommendations name (`npx verify approve review --by <name>`, "run `npx verify` again") as the
// user must type them: with the protocol, the config, the folder and the evidence file the command was given, so
// that the advice works when pasted.

/** What the command was given that the next command needs as well. */
export interface Invocation {
  /** A protocol named on the command line. */
  protocol?: string | undefined
  /** `--config`, `--cwd`, `--evidence` as given. */
  config?: string | undefined
  cwd?: string | undefined
  evidence?: string | undefined
}

const SUBCOMMANDS = new Set(['run', 'check', 'approve', 'list'])

function quoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** Every `npx verify …` command in `text`, completed with what the invocation gave. */
export function inContext(text: string, invocation: Invocation): string {
  const flags = (['config', 'cwd', 'evidence'] as const).flatMap((flag) => (invocation[flag] ? [`--${flag}`, quoted(invocation[flag])] : []))
  const { protocol } = invocation
  if (!protocol && flags.length === 0) return text
  return text.replace(/`npx verify((?: [^`]*)?)`/g, (_, rest: string) => {
    const words = rest.trim() === '' ? [] : rest.trim().split(' ')
    const sub = SUBCOMMANDS.has(words[0] ?? '') ? (words.shift() as string) : undefined
    // `approve` takes the protocol as an option; the others as their first word.
    const named = protocol ? (sub === 'approve' ? [...words, '--protocol', quoted(protocol)] : [quoted(protocol), ...words]) : words
    return `\`${['npx verify', ...(sub ? [sub] : []), ...named, ...flags].join(' ')}\``
  })
}
