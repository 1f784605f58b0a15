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

const SUBCOMMANDS = new Set(['run', 'check', 'approve', 'list', 'merge'])

function quoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** Every `npx verify …` command in `text`, completed with what the invocation gave. */
export function inContext(text: string, invocation: Invocation): string {
  const { protocol } = invocation
  if (!protocol && !invocation.config && !invocation.cwd && !invocation.evidence) return text
  return text.replace(/`npx verify((?: [^`]*)?)`/g, (_, rest: string) => {
    const words = rest.trim() === '' ? [] : rest.trim().split(' ')
    // A bare `npx verify` is `run`: said so, a protocol named like a command is not taken for one.
    const sub = SUBCOMMANDS.has(words[0] ?? '') ? (words.shift() as string) : 'run'
    // What the text gives already stays; `merge --evidence` names the file it writes, not the one that was read.
    const flags = (['config', 'cwd', 'evidence'] as const)
      .filter((flag) => invocation[flag] && !words.includes(`--${flag}`) && !(sub === 'merge' && flag === 'evidence'))
      .flatMap((flag) => [`--${flag}`, quoted(invocation[flag] as string)])
    const named = words.length > 0 && !(words[0] as string).startsWith('-')
    let given = words
    if (protocol && sub === 'approve' && !words.includes('--protocol')) given = [...words, '--protocol', quoted(protocol)]
    else if (protocol && sub !== 'approve' && sub !== 'merge' && !named) given = [quoted(protocol), ...words]
    return `\`${['npx verify', sub, ...given, ...flags].join(' ')}\``
  })
}
