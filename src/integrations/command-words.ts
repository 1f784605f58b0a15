// How a test runner's command line compares with the check's own command: the words of the command (and of the
// package.json script it runs), an option as typed, and whether the command gives an option the same value.
import { resolve } from 'node:path'
import { packageScripts, SEPARATOR, shellWords } from '../config/scripts.js'
import type { ResolvedCheck } from '../types.js'

/** An option as typed (`--test-path-ignore-patterns`, `-c`) in camel case, and its inline value; null for a plain word. */
export function optionWord(word: string): { name: string; value: string | undefined } | null {
  // Dotted names are Vitest's nested options (`--coverage.enabled=false`): an option like any other.
  const option = word === '--' ? null : /^--?([\w.-]+)(?:=([\s\S]*))?$/.exec(word)
  if (!option) return null
  return { name: (option[1] as string).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()), value: option[2] }
}

/**
 * Does the check's own command give `value` to one of the options `names` (camel case, `--name value` or
 * `--name=value`): the same word, or a path that resolves to the same place from the check's folder? Then a run
 * started with it is the check's own run. A word elsewhere in the command (`npm test` and `--dir test`) is not.
 */
export function commandGives(check: ResolvedCheck, names: readonly string[], value: string, from: string): boolean {
  const words = commandWords(check)
  const target = resolve(from, value)
  return words.some((word, i) => {
    const option = optionWord(word)
    if (!option || !names.includes(option.name)) return false
    const given = option.value ?? words[i + 1]
    return given !== undefined && (given === value || resolve(check.cwd, given) === target)
  })
}

/**
 * The first option on a test runner's command line (`argv`, after its script) that the check's own command does not
 * give, as the runner was started with it (`--retry 2`), or null. `harmless(name, value)` names the options that only
 * change how the runner reports, caches or spreads its work; `aliases` lists an option's other names (`c`, `config`).
 */
export function optionNotGiven(
  argv: readonly string[],
  check: ResolvedCheck,
  harmless: (name: string, value: string | undefined) => boolean,
  aliases: readonly (readonly string[])[] = [],
): string | null {
  const own = commandWords(check)
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string
    const option = optionWord(word)
    const next = argv[i + 1]
    // `--coverage false`: a boolean's value may be the next word.
    if (!option || harmless(option.name, option.value ?? (next === 'true' || next === 'false' ? next : undefined))) continue
    const value = option.value ?? (next !== undefined && !next.startsWith('-') ? next : '')
    const names = aliases.find((group) => group.includes(option.name)) ?? [option.name]
    // `--config quick.js` is not the check's `--config jest.config.js`: a value given apart is compared too. But the
    // word after an option the check gives alone (`--passWithNoTests run`) is no value of it.
    const at = own.indexOf(word)
    // `--coverage false` turns off what the check's `--coverage` turns on: a boolean's false is a value.
    const after = own[at + 1]
    const alone = at >= 0 && value !== 'false' && (after === undefined || after.startsWith('-') || SEPARATOR.test(after))
    const given = at >= 0 && (value === '' || option.value !== undefined || alone)
    if (given || (value !== '' && commandGives(check, names, value, process.cwd()))) continue
    return `${word.split('=')[0]}${value ? ` ${value}` : ''}`
  }
  return null
}

/**
 * The first option the check's own command gives the runner (the words after the runner's word, `vitest` or
 * `node_modules/jest/bin/jest.js`, in the command or the package.json script it runs, up to `&&`, `;` or `|`) that
 * the runner's command line (`argv`) leaves out, as the check gives it (`--coverage`), or null. `needed(name, value)`
 * names the options whose absence changes the run: a reporter left out does not, coverage left off does.
 */
export function optionLeftOut(
  argv: readonly string[],
  check: ResolvedCheck,
  runner: RegExp,
  needed: (name: string, value: string | undefined) => boolean,
  aliases: readonly (readonly string[])[] = [],
): string | null {
  // An option given under another of its names (`--config` for the check's `-c`) is given.
  const names = (name: string) => aliases.find((group) => group.includes(name)) ?? [name]
  const given = new Set(argv.flatMap((word) => names(optionWord(word)?.name ?? '')))
  let inside = false
  for (const word of commandWords(check)) {
    if (SEPARATOR.test(word)) inside = false
    else if (runner.test(word)) inside = true
    else {
      const option = inside ? optionWord(word) : null
      // Given, and not turned off again (`--coverage false`, which the rule above reports).
      if (option && needed(option.name, option.value) && !argv.includes(word) && !given.has(option.name)) return word.split('=')[0] ?? word
    }
  }
  return null
}

/**
 * The words of the check's command, split as a shell would, and those of the package.json script it runs (`npm test`,
 * `pnpm run unit`, `yarn test`: the runner's options are there), up to three scripts deep; [] for a function check.
 */
export function commandWords(check: ResolvedCheck): string[] {
  const { command } = check
  if (!command) return []
  const words = typeof command === 'string' ? shellWords(command) : [...command]
  let scripts: Record<string, unknown> | undefined
  const expand = (from: readonly string[], depth: number): string[] => {
    const name = scriptName(from)
    if (!name || depth === 0) return []
    scripts ??= packageScripts(check.cwd)
    const script = scripts[name]
    if (typeof script !== 'string') return []
    // What the command passes on to the script (`npm test -- --coverage`, `pnpm test --coverage`) ends its last command.
    const passed = passedOn(from)
    const inner = [...shellWords(script), ...(passed.length && scriptName(shellWords(script)) ? ['--'] : []), ...passed]
    // A script's words are a command of their own (`;`): what follows a runner's word is not the script's.
    return [';', ...inner, ...expand(inner, depth - 1)]
  }
  return [...words, ...expand(words, 3)]
}

// `npm test`, `npm run x`, `npm run-script x`, `pnpm [run] x`, `yarn [run] x`, `bun run x`: the script's name.
function scriptName(words: readonly string[]): string | undefined {
  const [tool, first, second] = words
  if (tool === 'npm') return first === 'run' || first === 'run-script' ? second : first === 'test' || first === 't' ? 'test' : undefined
  if (tool === 'pnpm' || tool === 'yarn') return first === 'run' ? second : first
  if (tool === 'bun') return first === 'run' ? second : undefined
  return undefined
}

/** The words a package manager's command passes on to the script it runs: after `--`, or (pnpm, yarn, bun) after the name. */
function passedOn(words: readonly string[]): string[] {
  const end = words.findIndex((word) => SEPARATOR.test(word))
  const command = end < 0 ? words : words.slice(0, end)
  const dashes = command.indexOf('--')
  if (dashes >= 0) return command.slice(dashes + 1)
  if (command[0] === 'npm') return []
  return command.slice(command[1] === 'run' ? 3 : 2)
}
