// A temporary project for the evidence and verdict matrices: a fixture copied into a temporary project (a git repository when asked)
// that resolves `verify-protocol` to this package, the built CLI run inside it, and a counter of real executions
// kept outside the workspace so that counting never changes the fingerprint.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { CheckResult, EvidenceFile } from '../../src/types.js'
import { fixture, readEvidence, ROOT, runCli, type CliOptions, type CliResult } from './cli.js'
import { runCliInProcess } from './in-process.js'
import { TEMPLATES } from '../setup/temporary.js'

export interface Project {
  /** The project folder (the config's folder, and the repository's top when `git`). */
  dir: string
  /** The default evidence file, `.verify/evidence.json`. */
  evidencePath: string
  approvalsPath: string
  /** Outside the project: a file each fixture check appends its id to when it really runs. */
  counter: string
  /** A folder outside the project for anything else a test writes. */
  outside: string
  /** Runs `verify <command> ...args` in the project, in this process (test/helpers/in-process.ts). */
  verify(command: string, args?: readonly string[], options?: CliOptions): Promise<CliResult>
  /** The same, as a spawned `node bin/verify.cjs`: for what is about the process (one case per command). */
  spawn(command: string, args?: readonly string[], options?: CliOptions): Promise<CliResult>
  evidence(): EvidenceFile
  check(id: string): CheckResult
  /** Ids of the checks that really ran, in the order they ran. */
  executions(): string[]
  write(file: string, content: string): void
  read(file: string): string
  path(file: string): string
  git(...args: string[]): string
}

// Identity and config come from here, never from the user's own git configuration.
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_OPTIONAL_LOCKS: '0',
}

const bases: string[] = []

/** The folder of the `verify-protocol` package this suite tests. */
export const PACKAGE = ROOT

/**
 * Copies `fixtures/<name>` (and the shared scripts of `fixtures/validity-bin` into `bin/`) into a fresh folder,
 * links `node_modules/verify-protocol` to this package and, with `git`, commits it all in a new repository that
 * ignores `node_modules/`, `.verify/` and `ignored/`.
 */
export function project(name: string, options: { git?: boolean } = {}): Project {
  const base = mkdtempSync(join(tmpdir(), 'verify-validity-'))
  bases.push(base)
  const dir = join(base, 'project')
  const outside = join(base, 'outside')
  mkdirSync(outside)
  cpSync(template(name, options.git === true), dir, { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(PACKAGE, join(dir, 'node_modules', 'verify-protocol'), 'dir')
  const counter = join(base, 'counter')
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' })
  const evidencePath = join(dir, '.verify', 'evidence.json')
  const p: Project = {
    dir,
    evidencePath,
    approvalsPath: join(dir, '.verify', 'approvals.json'),
    counter,
    outside,
    verify: (command, args = [], cliOptions = {}) =>
      runCliInProcess([command, ...args], { cwd: dir, ...cliOptions, env: { VALIDITY_COUNTER: counter, VALIDITY_OUTSIDE: outside, ...cliOptions.env } }),
    spawn: (command, args = [], cliOptions = {}) =>
      runCli([command, ...args], { cwd: dir, ...cliOptions, env: { VALIDITY_COUNTER: counter, VALIDITY_OUTSIDE: outside, ...cliOptions.env } }),
    evidence: () => readEvidence(evidencePath),
    check: (id) => {
      const found = p.evidence().checks.find((c) => c.id === id)
      if (!found) throw new Error(`no check "${id}" in ${evidencePath}`)
      return found
    },
    executions: () => (existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter(Boolean) : []),
    write: (file, content) => {
      mkdirSync(dirname(join(dir, file)), { recursive: true })
      writeFileSync(join(dir, file), content)
    },
    read: (file) => readFileSync(join(dir, file), 'utf8'),
    path: (file) => join(dir, file),
    git,
  }
  return p
}

const templates = new Map<string, string>()
let templateRoot: string | undefined

/**
 * The fixture with `bin/`, and with `git` its first commit, made once per process: each project copies it, `.git`
 * included, where it would otherwise start three git processes (a fork of a test worker, hundreds of MiB, costs
 * tens of milliseconds). The copy's index holds other stat data than its files, so git reads them again: same tree.
 */
function template(name: string, git: boolean): string {
  const key = `${name}${git ? '+git' : ''}`
  const known = templates.get(key)
  if (known) return known
  // A folder of this worker's own (two workers may make the same template at once) in the one the global setup
  // makes (test/setup/temporary.ts) and removes at the end of the run.
  templateRoot ??= mkdtempSync(join(process.env[TEMPLATES] ?? tmpdir(), 'worker-'))
  const dir = join(templateRoot, key)
  cpSync(fixture(name), dir, { recursive: true })
  cpSync(fixture('validity-bin'), join(dir, 'bin'), { recursive: true })
  if (git) {
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\n.verify/\nignored/\n')
    const run = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV })
    run('init', '-q', '-b', 'main')
    run('add', '-A')
    run('-c', 'user.name=Validity Test', '-c', 'user.email=validity@example.com', 'commit', '-q', '-m', 'initial')
  }
  templates.set(key, dir)
  return dir
}

/** Removes every project folder made so far (the CLIs themselves are reaped by the e2e helpers' `cleanup`). */
export function removeProjects(): void {
  for (const base of bases.splice(0)) rmSync(base, { recursive: true, force: true })
}

/** Rewrites the stored evidence through `edit` (the file is written back as verify writes it). */
export function editEvidence(p: Project, edit: (file: EvidenceFile) => void): void {
  const file = p.evidence()
  edit(file)
  writeFileSync(p.evidencePath, `${JSON.stringify(file, null, 2)}\n`)
}

/** The `verify check` line of one check: ` ✓ build valid …` or ` ? build stale — …`. */
export function checkLine(stdout: string, id: string): string {
  const line = stdout.split('\n').find((l) => new RegExp(`^ \\S+ ${id}\\s`).test(l))
  if (line === undefined) throw new Error(`no line for "${id}" in:\n${stdout}`)
  return line
}

export interface InProcessResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs `verify ...argv` in this process through `cli()`, in the project, with `env` added to a clean environment. */
export async function verifyInProcess(p: Project, argv: readonly string[], env: Record<string, string | undefined> = {}): Promise<InProcessResult> {
  const result = await runCliInProcess(argv, { cwd: p.dir, env: { VALIDITY_COUNTER: p.counter, VALIDITY_OUTSIDE: p.outside, ...env } })
  return { code: result.code ?? 1, stdout: result.stdout, stderr: result.stderr }
}
