// `verify init [--yes] [--force]`: writes a verify.config.ts from the project's package.json scripts and lockfile,
// and ignores `.verify/` in git. The checks are spelled out rather than taken from the node preset: a script removed
// from package.json must not silently remove a check from the gate.
import { accessSync, constants, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { delimiter, join, relative, resolve } from 'node:path'
import { CONFIG_FILES, isFile, PACKAGE_JSON_KEY, RC_FILE } from '../config/discover.js'
import { VerifyUsageError } from '../errors.js'
import { untrusted } from '../reporters/safe-text.js'
import { NODE_SCRIPTS, scriptFor, type NodeCheckId } from '../presets/node.js'
import { detectPackageManager, readPackageJson, runScript, type PackageJson, type PackageManager } from '../presets/project.js'
import { AGENTS, isAgentName, type AgentName } from '../integrations/agents/adapters.js'
import { hookCommandLine, planHook, type InstallResult } from '../integrations/agents/install.js'
import { parse } from './args.js'
import { planCommands, type PlannedCheck } from './init-scripts.js'
import { tsconfigState } from './init-tsconfig.js'
import { ExitCode } from './exit-code.js'
import { INIT_FLAGS } from './flags.js'
import type { CliIO } from './io.js'

/** Asks a yes/no question; only used in an interactive terminal. */
type Confirm = (question: string, defaultYes: boolean) => Promise<boolean>

const TARGET = 'verify.config.ts'

const NAMES: Record<NodeCheckId, string> = { build: 'Build', typecheck: 'Typecheck', lint: 'Lint', test: 'Tests' }

function readPackage(dir: string): PackageJson {
  if (!existsSync(join(dir, 'package.json'))) {
    throw new VerifyUsageError(
      `No package.json in ${dir}: verify init writes the checks from its scripts. Write verify.config.ts by hand instead (see node_modules/verify-protocol/docs/configuration.md).`,
    )
  }
  try {
    return readPackageJson(dir)
  } catch (error) {
    throw new VerifyUsageError(error instanceof Error ? error.message : String(error))
  }
}

/** Configs `verify` would load from this folder: every file c12 discovers, .verifyrc, and package.json's key. */
function existingConfigs(dir: string, pkg: PackageJson | undefined): string[] {
  const found = CONFIG_FILES.filter((name) => isFile(join(dir, name)))
  if (existsSync(join(dir, RC_FILE))) found.push(RC_FILE)
  if (pkg && (pkg as Record<string, unknown>)[PACKAGE_JSON_KEY] !== undefined) found.push(`the "${PACKAGE_JSON_KEY}" key of package.json`)
  return found
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function quote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/** The config file's text. */
export function renderConfig(checks: readonly PlannedCheck[], pm: PackageManager, pmFrom: string): string {
  const hasBuild = checks.some((c) => c.id === 'build')
  const lines = checks.map(({ id, command }) => {
    const fields = [`name: ${quote(NAMES[id])}`]
    if (id === 'typecheck') fields.push(`evidenceType: 'typecheck_clean'`)
    fields.push(`command: ${quote(command)}`)
    if (id === 'test' && hasBuild) fields.push(`dependsOn: ['build']`)
    return `    ${id}: { ${fields.join(', ')} },`
  })
  const body =
    lines.length > 0
      ? lines
      : [
          `    // No build, typecheck, lint or test script was found. Add checks, e.g.:`,
          `    // build: { name: 'Build', command: ${quote(runScript(pm, 'build'))} },`,
        ]
  return [
    `// The verification protocol of this project: \`npx verify\` runs these checks and records evidence.`,
    `// Written by \`verify init\` from package.json scripts (run with ${pm}, ${pmFrom}). Edit freely; every option is in`,
    `// node_modules/verify-protocol/docs/configuration.md (\`npx verify list\` shows the protocol as verify resolves it).`,
    `// The checks are spelled out rather than taken from 'verify-protocol/presets/node', so that removing a script`,
    `// from package.json cannot silently remove a check from the gate.`,
    `import { defineProtocol } from 'verify-protocol'`,
    ``,
    `export default defineProtocol({`,
    `  checks: {`,
    ...body,
    `  },`,
    `})`,
    ``,
  ].join('\n')
}

// `.verify`, `/.verify/`, `.verify/*`, `.verify/**`, `**/.verify/`: lines that ignore the folder (or all it holds).
const IGNORES_VERIFY = /^(?:\*\*\/|\/)?\.verify(?:\/(?:\*\*?)?)?$/

/** Adds `.verify/` to .gitignore unless an entry already ignores it. Returns what it did, in words. */
export function ignoreVerifyFolder(dir: string): string {
  const file = join(dir, '.gitignore')
  const existed = existsSync(file)
  const text = existed ? readFileSync(file, 'utf8') : ''
  // The last line that matches wins, as in git: `!.verify/` after `.verify/` undoes it.
  let ignored = false
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (IGNORES_VERIFY.test(line)) ignored = true
    else if (line.startsWith('!') && IGNORES_VERIFY.test(line.slice(1))) ignored = false
  }
  if (ignored) return '.gitignore already ignores .verify/'
  writeFileSync(file, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}.verify/\n`)
  return existed ? 'added .verify/ to .gitignore' : 'created .gitignore with .verify/'
}

function installCommand(pm: PackageManager): string {
  return { npm: 'npm install -D verify-protocol', pnpm: 'pnpm add -D verify-protocol', yarn: 'yarn add -D verify-protocol', bun: 'bun add -d verify-protocol' }[
    pm
  ]
}

/** A yes/no question through the terminal prompt; an empty answer takes the default, closed input is a no. */
function confirmWith(prompt: (question: string) => Promise<string | null>): Confirm {
  return async (question, defaultYes) => {
    const given = await prompt(`${question} ${defaultYes ? '(Y/n)' : '(y/N)'} `)
    if (given === null) return false
    const answer = given.trim().toLowerCase()
    return answer === '' ? defaultYes : answer.startsWith('y')
  }
}

/** Is there an executable named `bin` in one of the PATH folders? */
function onPath(bin: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    if (!dir) return false
    try {
      accessSync(join(dir, bin), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/** Installs the agent's stop hook and says what changed. */
async function describeInstall(hook: { install(): Promise<InstallResult> }, agent: AgentName): Promise<string> {
  const { file, added } = await hook.install()
  if (added.length === 0) return `${file} already runs \`${hookCommandLine(agent)}\`: nothing to change`
  return `added \`${hookCommandLine(agent)}\` to ${file} (${added.join(', ')}); other hooks kept. See docs/agents.md.`
}

/** A name beside `name` that no file has: `name.bak`, else `name.bak.2`, `name.bak.3`… */
function backupName(dir: string, name: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${name}.bak` : `${name}.bak.${n}`
    if (!existsSync(join(dir, candidate))) return candidate
  }
}

export async function initCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse('init', argv, INIT_FLAGS)
  if (positionals.length > 0) throw new VerifyUsageError(`verify init takes no arguments, got: ${positionals.join(' ')}`)
  const dir = resolve(io.cwd, values.cwd ?? '.')
  const agent = values.agent
  if (agent !== undefined && !isAgentName(agent)) throw new VerifyUsageError(`--agent takes one of ${AGENTS.join(', ')}, got "${agent}"`)
  // Settings verify cannot read are refused before anything is written: no config written beside a refusal.
  const hook = agent ? planHook(dir, agent) : undefined
  // With a config already there, `--agent` only adds the stop hook: the protocol is the project's own.
  if (hook && agent && !values.force && existingConfigs(dir, existsSync(join(dir, 'package.json')) ? readPackage(dir) : undefined).length > 0) {
    io.stdout(`${await describeInstall(hook, agent)}\n`)
    return ExitCode.approved
  }
  const pkg = readPackage(dir)
  const existing = existingConfigs(dir, pkg)
  if (existing.length > 0 && !values.force) {
    // --force removes config files; .verifyrc and package.json's key stay, and c12 would merge them into the new file.
    const kept = existing.filter((name) => !CONFIG_FILES.includes(name))
    const how = kept.length
      ? `remove ${kept.join(' and ')} first (--force replaces config files only, and c12 would merge ${kept.length > 1 ? 'them' : 'it'} into the new one)${kept.length < existing.length ? ', then run `verify init --force`' : ', then run `verify init`'}`
      : 'run `verify init --force` to replace it'
    throw new VerifyUsageError(`A verify config already exists in ${dir}: ${existing.join(', ')}. verify init never overwrites one; to start again, ${how}.`)
  }
  const pm = detectPackageManager(dir, pkg)
  const pmFrom =
    pm.from === 'packageManager' ? 'from the packageManager field' : pm.from === 'default' ? 'no lockfile found' : relative(dir, pm.from) || pm.from
  const scripts = new Map(
    (Object.keys(NODE_SCRIPTS) as NodeCheckId[]).flatMap((id) => {
      const script = scriptFor(pkg, id)
      return script === undefined ? [] : [[id, script] as const]
    }),
  )
  let planned = planCommands(pkg, pm.name, scripts)
  const covered = [...scripts].filter(([id]) => !planned.some((c) => c.id === id))

  // Questions only at an interactive terminal (a prompt on stdin, stdout a TTY), never in CI, never with --yes.
  const ci = Boolean(io.env.CI) && io.env.CI !== 'false'
  const ask = !values.yes && io.prompt && io.isTTY && !ci ? confirmWith(io.prompt) : undefined
  let ignore = true
  if (ask) {
    const kept: PlannedCheck[] = []
    for (const check of planned) if (await ask(`Add the "${check.id}" check (${untrusted(check.command)})?`, true)) kept.push(check)
    planned = kept
    ignore = await ask('Add .verify/ to .gitignore?', true)
  }

  // Nothing is written until every file init writes can be.
  for (const name of [TARGET, ...(ignore ? ['.gitignore'] : [])]) {
    if (isFolder(join(dir, name)))
      throw new VerifyUsageError(
        `Cannot set up verify in ${dir}: ${name} is a folder, where init writes a file. Move it away and run \`verify init\` again. Nothing was written.`,
      )
  }
  const tsconfig = tsconfigState(dir, TARGET)
  const out: string[] = []
  if (values.force) {
    // A config someone wrote by hand is kept aside, never lost: `name.bak` (`.bak.2`… when that is taken).
    for (const name of existing.filter((n) => CONFIG_FILES.includes(n))) {
      const kept = backupName(dir, name)
      renameSync(join(dir, name), join(dir, kept))
      out.push(`moved ${name} to ${kept} (--force)`)
    }
    for (const other of existing.filter((n) => !CONFIG_FILES.includes(n))) out.push(`note: ${other} is still there and c12 merges it into ${TARGET}`)
  }
  writeFileSync(join(dir, TARGET), renderConfig(planned, pm.name, pmFrom))
  const summary =
    planned.length > 0
      ? `${planned.length} check(s) from package.json scripts, run with ${pm.name} (${pmFrom})`
      : 'no checks: package.json has no build, typecheck, lint or test script'
  out.unshift(`${existing.includes(TARGET) ? 'replaced' : 'wrote'} ${TARGET}: ${summary}`)
  const width = Math.max(0, ...planned.map((c) => c.id.length))
  for (const check of planned) {
    const after = check.id === 'test' && planned.some((c) => c.id === 'build') ? '  (after build)' : ''
    const left = check.leftOut?.length
      ? `  (its script's ${check.leftOut.join(', ')} left to ${check.leftOut.length === 1 ? 'that check' : 'those checks'})`
      : ''
    // Commands come from package.json scripts: untrusted text.
    out.push(`  ${check.id.padEnd(width)}  ${untrusted(check.command)}${after}${left}`)
  }
  for (const [id, script] of covered) out.push(`  (no ${id} check: its script "${untrusted(script)}" only runs the other checks' scripts)`)
  if (ignore) out.push(ignoreVerifyFolder(dir))
  const next: string[] = []
  if (tsconfig.kind === 'left-out') {
    if (values.yes || (ask && (await ask(`Add ${TARGET} to tsconfig.json, so that a wrong check id in dependsOn is a type error?`, true)))) {
      tsconfig.add()
      out.push(`added ${TARGET} to tsconfig.json: the compiler now checks the protocol (e.g. ids in dependsOn)`)
    } else {
      next.push(`  ${`add "${TARGET}" to tsconfig.json`.padEnd(34)}  so the compiler checks the protocol (init --yes does it)`)
    }
  } else if (tsconfig.kind === 'cannot-add') {
    out.push(`note: ${TARGET} is not type-checked: ${tsconfig.why}. Check it with a tsconfig of its own to catch wrong ids in dependsOn.`)
  }
  if (agent && hook) out.push(await describeInstall(hook, agent))
  if (pm.name !== 'npm' && !onPath(pm.name, io.env)) {
    // Corepack (shipped with Node.js 20) manages pnpm and yarn; bun is installed on its own.
    const get = pm.name === 'bun' ? 'npm install -g bun' : `corepack enable ${pm.name}`
    next.push(`  ${get.padEnd(34)}  the checks run ${pm.name}, which is not on PATH${pm.name === 'bun' ? '' : ' (Corepack comes with Node.js 20)'}`)
  }
  out.push('', 'Next:', ...next)
  const deps = { ...pkg.dependencies, ...pkg.devDependencies }
  if (pkg.name !== 'verify-protocol' && deps['verify-protocol'] === undefined)
    out.push(`  ${installCommand(pm.name).padEnd(34)}  the config imports verify-protocol`)
  if (planned.length === 0) out.push(`  ${'edit verify.config.ts'.padEnd(34)}  add at least one check`)
  out.push(`  ${'npx verify list'.padEnd(34)}  see the protocol as verify resolves it`)
  out.push(`  ${'npx verify'.padEnd(34)}  run it; evidence goes to .verify/evidence.json`)
  io.stdout(`${out.join('\n')}\n`)
  return ExitCode.approved
}
