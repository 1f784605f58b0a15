// The package.json scripts a check's command runs (`npm test`, `pnpm run unit`, `cd app && yarn build`, and what those
// scripts run in turn): part of what the check is, so its digest binds them (evidence/digest.ts). They are read when
// the config is resolved, from the folder it was loaded in, so `--protocol-from <ref>` binds the ref's scripts and a
// change that edits a script is not judged by its own edit.
import { readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { split } from 'shlex'

/** Words that end one simple command of a shell line. */
export const SEPARATOR = /^(?:&&|\|\||;|\||&)$/

/** A shell command's words as a shell splits them; on a line shlex cannot split (an open quote), at blanks. */
export function shellWords(command: string): string[] {
  try {
    return split(command)
  } catch {
    return command.split(/\s+/).filter(Boolean)
  }
}

/** The `scripts` of the package.json in `dir`; {} when there is none or it cannot be read. */
export function packageScripts(dir: string): Record<string, unknown> {
  try {
    const scripts = (JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as { scripts?: unknown }).scripts
    return scripts && typeof scripts === 'object' ? (scripts as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** Words with the separators a shell reads inside them (`lint;true`, `a&&b`) as words of their own. */
function separated(words: readonly string[]): string[] {
  return words.flatMap((word) => (SEPARATOR.test(word) ? [word] : word.split(/(&&|\|\||;|\||&)/).filter(Boolean)))
}

const MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun'])
// npm's own commands that run the script of the same name.
const NPM_LIFECYCLE: Record<string, string> = { test: 'test', t: 'test', tst: 'test', start: 'start', stop: 'stop', restart: 'restart' }
const NPM_RUN = new Set(['run', 'run-script', 'rum', 'urn'])
// The options that run the script of another folder's package.json.
const FOLDER_OPTIONS: Record<string, readonly string[]> = { npm: ['--prefix'], pnpm: ['-C', '--dir'], yarn: ['--cwd'], bun: ['--cwd'] }

/** The script one simple command runs, and the folder of its package.json; undefined for any other command. */
function scriptOf(words: readonly string[], dir: string): { name: string; dir: string } | undefined {
  const [tool, ...rest] = words
  if (tool === undefined || !MANAGERS.has(tool)) return undefined
  let folder = dir
  const plain: string[] = []
  for (let i = 0; i < rest.length && plain.length < 2; i++) {
    const word = rest[i] as string
    const [name, inline] = word.split(/=(.*)/s)
    if ((FOLDER_OPTIONS[tool] ?? []).includes(name as string)) {
      const value = inline ?? rest[++i]
      if (value !== undefined) folder = resolve(dir, value)
    } else if (word === '--') break
    else if (!word.startsWith('-')) plain.push(word)
  }
  const [first, second] = plain
  if (first === undefined) return undefined
  if (tool === 'npm') {
    const name = NPM_RUN.has(first) ? second : NPM_LIFECYCLE[first]
    return name === undefined ? undefined : { name, dir: folder }
  }
  if (first === 'run') return second === undefined ? undefined : { name: second, dir: folder }
  // `pnpm test`, `yarn build`: a script's name; bun runs a script only with `run`.
  return tool === 'bun' ? undefined : { name: first, dir: folder }
}

/**
 * The bodies of the package.json scripts `command` runs from `cwd`, with the `pre` and `post` scripts npm and yarn run
 * beside them and the scripts those run, up to four levels deep: `{ build: 'tsc -p .', 'app:test': 'vitest run' }` (a
 * script of another folder is named with its folder). Undefined when the command runs none.
 */
export function scriptsRun(command: string | readonly string[], cwd: string): Record<string, string> | undefined {
  const found: Record<string, string> = {}
  const read = new Map<string, Record<string, unknown>>()
  const scriptsIn = (dir: string) => {
    let scripts = read.get(dir)
    if (scripts === undefined) read.set(dir, (scripts = packageScripts(dir)))
    return scripts
  }
  const walk = (words: readonly string[], from: string, depth: number) => {
    let dir = from
    let start = 0
    for (let i = 0; i <= words.length; i++) {
      if (i < words.length && !SEPARATOR.test(words[i] as string)) continue
      let simple = words.slice(start, i)
      start = i + 1
      // Leading variable assignments (`CI=1 npm test`) set the environment of the command after them.
      const assignments = simple.findIndex((word) => !/^[A-Za-z_]\w*=/.test(word))
      simple = assignments < 0 ? [] : simple.slice(assignments)
      if (simple[0] === 'cd' && simple[1] !== undefined) dir = resolve(dir, simple[1])
      const script = scriptOf(simple, dir)
      if (script === undefined) continue
      const scripts = scriptsIn(script.dir)
      const where = relative(cwd, script.dir)
      for (const name of [`pre${script.name}`, script.name, `post${script.name}`]) {
        const body = scripts[name]
        const key = where ? `${where}:${name}` : name
        if (typeof body !== 'string' || Object.hasOwn(found, key)) continue
        found[key] = body
        if (depth > 1) walk(separated(shellWords(body)), script.dir, depth - 1)
      }
    }
  }
  walk(typeof command === 'string' ? separated(shellWords(command)) : command, cwd, 4)
  return Object.keys(found).length > 0 ? found : undefined
}
