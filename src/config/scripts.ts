// The package.json scripts a check's command runs (`npm test`, `pnpm run unit`, `cd app && yarn build`, and what those
// scripts run in turn): part of what the check is, so its digest binds them (evidence/digest.ts). They are read when
// the config is resolved, from the folder it was loaded in, so `--protocol-from <ref>` binds the ref's scripts and a
// change that edits a script is not judged by its own edit.
import { readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { split } from 'shlex'
import { nearestPackage, workspacePackages, workspaceRoot, workspacesField } from './workspace-packages.js'

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

/** A script of several lines as one line of commands: a newline ends a command as `;` does. */
function lines(text: string): string {
  return text.replace(/\r?\n/g, ' ; ')
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
const FOLDER_OPTIONS = new Set(['--prefix', '-C', '--dir', '--cwd'])
// The options that pick workspace packages: the script of each of them may run.
const WORKSPACE_VALUE = new Set(['--workspace', '--filter', '-F', '--filter-prod'])
const WORKSPACE_SWITCH = new Set(['--workspaces', '-ws', '-r', '--recursive', '--workspace-root'])
// Other options that take the next word as their value, so that it is not read as a script's name.
const VALUE_OPTIONS = new Set(['--loglevel', '--userconfig', '--cache', '--registry', '--script-shell', '--reporter', '--workspace-concurrency', '--mutex'])
// Words before a command that run it (`env CI=1 npm test`, `time npm test`, `! npm test`, `if …; then npm test`).
const LEADING = new Set([
  'cross-env',
  'sudo',
  'stdbuf',
  'env',
  'time',
  'exec',
  'command',
  'builtin',
  'nohup',
  'nice',
  'corepack',
  '!',
  '(',
  '{',
  'if',
  'then',
  'else',
  'elif',
  'do',
  'while',
  'until',
])
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh'])
// Tools that run package.json scripts their own way (by name lists, `npm:` prefixes, task graphs, `$npm_execpath`):
// a command that uses one is bound to every script of the package, and of the workspace's packages.
const SCRIPT_RUNNERS =
  /(?:^|[\s;&|(`'"])(?:npm-run-all2?|run-s|run-p|concurrently|turbo|nx|lerna|wireit|ultra|\$\{?npm_execpath\}?|node\s+--run)(?=$|[\s;&|)`'"])/
// Files beside a package.json that decide how its scripts run (`script-shell`, `node-options`, pre/post scripts) and
// which packages a workspace holds.
const RUN_SETTINGS = ['.npmrc', '.yarnrc', '.yarnrc.yml', 'pnpm-workspace.yaml', 'bunfig.toml']

/** What one simple command runs: a shell's `-c` text, or package.json scripts (their names, and where to look). */
type Invocation = { shell: string } | { names: string[]; dir: string; workspaces: boolean; prePost: boolean } | undefined

/** The command after the words that only run it: assignments, `env` and its options, `time`, `corepack`, `npx`… */
function commandProper(words: readonly string[]): string[] {
  // `(npm test)`: the parentheses of a subshell, however they are spaced.
  let rest = words.map((word) => word.replace(/^\(+/, '').replace(/\)+$/, '')).filter(Boolean)
  for (;;) {
    const [first] = rest
    if (first === undefined) return rest
    if (first === 'timeout' || first === 'nice') {
      rest = rest.slice(1)
      while (rest[0] !== undefined && (rest[0].startsWith('-') || /^\d/.test(rest[0]))) rest = rest.slice(1)
      continue
    }
    if (first === 'dotenv') {
      const end = rest.indexOf('--')
      rest = end >= 0 ? rest.slice(end + 1) : rest.slice(1)
      continue
    }
    if (first === '$npm_execpath' || first === '${npm_execpath}') return ['npm', ...rest.slice(1)]
    if (/^[A-Za-z_]\w*=/.test(first) || LEADING.has(first)) rest = rest.slice(1)
    else if ((first === 'npx' || first === 'pnpx') && rest[1] !== undefined && !rest[1].startsWith('-')) rest = rest.slice(1)
    else if ((first === 'npx' || first === 'pnpx' || first === 'env') && rest[1]?.startsWith('-')) rest = [first, ...rest.slice(2)]
    else if (first.startsWith('-') && rest.length > 1 && words[0] !== first) rest = rest.slice(1)
    else return rest
  }
}

function invocationOf(words: readonly string[], dir: string): Invocation {
  const [tool, ...rest] = commandProper(words)
  if (tool === undefined) return undefined
  if (SHELLS.has(tool)) {
    // `sh -c "npm test"`, `bash -ec '…'`: the text after the option that holds a c.
    const at = rest.findIndex((word) => /^-[a-z]*c[a-z]*$/.test(word))
    return at >= 0 && rest[at + 1] !== undefined ? { shell: rest[at + 1] as string } : undefined
  }
  if (!MANAGERS.has(tool)) return undefined
  let folder = dir
  let workspaces = false
  const plain: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] as string
    if (word === '--') break
    const [option, inline] = word.split(/=(.*)/s) as [string, string | undefined]
    const value = () => inline ?? rest[++i]
    if (FOLDER_OPTIONS.has(option)) {
      const given = value()
      if (given !== undefined) folder = resolve(dir, given)
    } else if (WORKSPACE_VALUE.has(option) || (option === '-w' && tool !== 'pnpm')) {
      workspaces = true
      value()
    } else if (WORKSPACE_SWITCH.has(option) || option === '-w') workspaces = true
    else if (VALUE_OPTIONS.has(option)) value()
    else if (!word.startsWith('-')) plain.push(word)
  }
  // `yarn workspace app test`, `yarn workspaces foreach -A run test`: other packages' scripts.
  if (tool === 'yarn' && (plain[0] === 'workspace' || plain[0] === 'workspaces')) workspaces = true
  const [first, second] = plain
  if (first === undefined) return undefined
  let name: string | undefined
  if (tool === 'yarn' && first === 'workspace') name = plain[2] === 'run' ? plain[3] : plain[2]
  else if (tool === 'yarn' && first === 'workspaces') name = undefined
  else if (tool === 'npm') name = NPM_RUN.has(first) ? second : NPM_LIFECYCLE[first]
  else if (first === 'run') name = second
  // `pnpm test`, `yarn build`: a script's name; bun runs a script only with `run`.
  else if (tool !== 'bun') name = first
  // An option whose value was not known to take one (`npm --color false run lint`) comes before the words that
  // name the script: they are looked for among all the plain words too. Binding a script that is not run only costs
  // staleness when it changes. npm's restart runs stop and start too; install-test runs test.
  const run = plain.findIndex((word) => NPM_RUN.has(word))
  const names = new Set([
    ...(name ? [name] : []),
    ...(run >= 0 && plain[run + 1] !== undefined ? [plain[run + 1] as string] : []),
    ...(tool === 'npm' ? plain.flatMap((word) => (NPM_LIFECYCLE[word] ? [NPM_LIFECYCLE[word] as string] : [])) : []),
    ...(plain.includes('restart') || name === 'restart' ? ['stop', 'start'] : []),
    ...(tool === 'npm' && plain.some((word) => /^(?:it|cit|install-test|install-ci-test)$/.test(word)) ? ['test'] : []),
  ])
  return names.size === 0 ? undefined : { names: [...names], dir: folder, workspaces, prePost: tool === 'npm' || tool === 'yarn' }
}

/**
 * The bodies of the package.json scripts `command` runs from `cwd`, with the `pre` and `post` scripts npm and yarn run
 * beside them and the scripts those run, up to eight levels deep: `{ build: 'tsc -p .', 'app:test': 'vitest run' }` (a
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
  // The settings that decide how a package's scripts run, and which packages its workspace holds: bound with them.
  const settingsOf = (folder: string) => {
    for (const at of new Set([folder, workspaceRoot(folder)])) {
      const prefix = relative(cwd, at) || '.'
      for (const name of RUN_SETTINGS) {
        const key = `${prefix}/${name}`
        if (Object.hasOwn(found, key)) continue
        try {
          found[key] = readFileSync(join(at, name), 'utf8')
        } catch {
          // not there
        }
      }
      const declared = workspacesField(at)
      if (declared !== undefined) found[`${prefix}/package.json#workspaces`] = JSON.stringify(declared)
    }
  }
  // A runner tool: every script of the package, whatever its name.
  const bindAll = (folder: string) => {
    settingsOf(folder)
    const where = relative(cwd, folder) || '.'
    const key = `${where}/package.json#scripts`
    if (!Object.hasOwn(found, key)) found[key] = JSON.stringify(scriptsIn(folder))
  }
  const walk = (words: readonly string[], from: string, depth: number) => {
    let dir = from
    let start = 0
    for (let i = 0; i <= words.length; i++) {
      if (i < words.length && !SEPARATOR.test(words[i] as string)) continue
      const simple = words.slice(start, i)
      start = i + 1
      if ((simple[0] === 'cd' || simple[0] === 'pushd') && simple[1] !== undefined) dir = resolve(dir, simple[1])
      if (SCRIPT_RUNNERS.test(simple.join(' '))) {
        for (const folder of workspacePackages(nearestPackage(dir))) bindAll(folder)
        continue
      }
      const invocation = invocationOf(simple, dir)
      if (invocation === undefined) continue
      if ('shell' in invocation) {
        walk(separated(shellWords(lines(invocation.shell))), dir, depth)
        continue
      }
      const folders = invocation.workspaces ? workspacePackages(nearestPackage(invocation.dir)) : [nearestPackage(invocation.dir)]
      for (const folder of folders) {
        const scripts = scriptsIn(folder)
        const where = relative(cwd, folder)
        settingsOf(folder)
        for (const script of invocation.names) {
          for (const name of invocation.prePost ? [`pre${script}`, script, `post${script}`] : [script]) {
            const body = scripts[name]
            const key = where ? `${where}:${name}` : name
            if (typeof body !== 'string' || Object.hasOwn(found, key)) continue
            found[key] = body
            if (depth > 1) walk(separated(shellWords(lines(body))), folder, depth - 1)
          }
        }
      }
    }
  }
  walk(typeof command === 'string' ? separated(shellWords(lines(command))) : command, cwd, 8)
  return Object.keys(found).length > 0 ? found : undefined
}
