// Which reporters a run uses: `--reporter name[=file]` flags, else the config's `reporters`, else `default`
// (`agent` under a coding agent); `github-actions` joins them when running in GitHub Actions.
import { join, resolve } from 'node:path'
import { detectAgent } from 'std-env'
import { VerifyUsageError } from '../errors.js'
import { ownStream } from '../evidence/location.js'
import { closest } from '../suggest.js'
import type { ReporterEntry } from '../types.js'
import { asReporter, loadReporterModule } from './custom.js'
import { releaseStdout } from '../stdout.js'
import { guardReporter } from './guard.js'
import { isReporterName, REPORTERS, type ReporterName } from './index.js'
import type { ReporterHost, ReporterOptions } from './options.js'
import type { Reporter } from './types.js'

export function useColor(io: ReporterHost, flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false
  if (io.env.FORCE_COLOR !== undefined) return io.env.FORCE_COLOR !== '0'
  // A terminal that says it is dumb (Emacs' shell, some CI consoles) shows escape codes as text.
  return io.isTTY && io.env.TERM !== 'dumb'
}

/** What select needs of a loaded config (a `LoadedConfig` fits). */
export interface ReporterConfigSource {
  /** The config's folder: module paths and report files of the config are relative to it. */
  rootDir: string
  /** The protocol being run: its `reporters`, as the config resolved them (through `extends`, validated). */
  protocol: { reporters?: readonly ReporterEntry[] }
}

type Entry =
  | { kind: 'builtin'; name: ReporterName; file?: string; toStderr?: boolean }
  | { kind: 'module'; specifier: string; options: Record<string, unknown> }
  | { kind: 'object'; reporter: unknown; index: number }

// Built-ins that print a document on stdout when not given a file: nothing else may write there.
const DOCUMENTS: ReadonlySet<ReporterName> = new Set(['json', 'junit', 'markdown', 'agent'])

function builtinOptions(name: string, options: Record<string, unknown>, rootDir: string): { file?: string } {
  const unknown = Object.keys(options).filter((key) => key !== 'file')
  if (unknown.length || (options.file !== undefined && typeof options.file !== 'string')) {
    throw new VerifyUsageError(`reporters: the built-in reporter "${name}" takes { file?: string }, got ${JSON.stringify(options)}`)
  }
  return typeof options.file === 'string' && isReporterName(name) ? { file: reportFile(name, options.file, rootDir) } : {}
}

function fromConfig(entries: readonly ReporterEntry[], rootDir: string): Entry[] {
  return entries.map((entry, index): Entry => {
    if (typeof entry === 'string') return isReporterName(entry) ? { kind: 'builtin', name: entry } : { kind: 'module', specifier: entry, options: {} }
    if (Array.isArray(entry)) {
      const [name, options] = entry as [string, Record<string, unknown>]
      return isReporterName(name) ? { kind: 'builtin', name, ...builtinOptions(name, options, rootDir) } : { kind: 'module', specifier: name, options }
    }
    return { kind: 'object', reporter: entry, index }
  })
}

// What a report is called in a folder named with a trailing slash (`--reporter junit=reports/`).
const FILE_NAMES: Record<ReporterName, string> = {
  default: 'verify.txt',
  verbose: 'verify.log',
  json: 'verify.json',
  junit: 'junit.xml',
  markdown: 'verify.md',
  'github-actions': 'verify-github-actions.txt',
  agent: 'verify-agent.txt',
}

/** A report's file: a path ending with a slash names a folder, and the report goes into it under its usual name. */
function reportFile(name: ReporterName, file: string, base: string): string {
  return /[\\/]$/.test(file) ? join(resolve(base, file), FILE_NAMES[name]) : resolve(base, file)
}

function unknownReporter(name: string): VerifyUsageError {
  const near = closest(name, Object.keys(REPORTERS))
  // `./tools/notify.mjs`, `@acme/reporter`: a module, which the command line does not load.
  const module = /[./\\]/.test(name) ? ` A reporter module is named in the config's \`reporters\` (reporters: ['${name}']), not with --reporter.` : ''
  return new VerifyUsageError(
    `Unknown reporter "${name}"${near ? ` — did you mean "${near}"?` : '.'} Reporters: ${Object.keys(REPORTERS).join(', ')}.${module}`,
  )
}

function fromCli(specs: readonly string[], cwd: string): Entry[] {
  return specs.map((spec) => {
    const [name = '', file] = spec.split(/=(.*)/s)
    if (!isReporterName(name)) throw unknownReporter(name)
    // `junit=/dev/stdout` is verify's own standard output: written through it, in order with what else it prints.
    const stream = file ? ownStream(resolve(cwd, file)) : null
    if (stream) return { kind: 'builtin', name, ...(stream === 'stderr' ? { toStderr: true } : {}) }
    return { kind: 'builtin', name, ...(file ? { file: reportFile(name, file, cwd) } : {}) }
  })
}

// std-env reads the process's own environment: an injected environment (tests) is never taken for an agent's.
function underAgent(io: ReporterHost): boolean {
  return io.env === process.env && detectAgent().name !== undefined
}

function selectEntries(specs: readonly string[] | undefined, io: ReporterHost, config?: ReporterConfigSource): Entry[] {
  const configured = config?.protocol.reporters
  if (specs?.length) return fromCli(specs, io.cwd)
  if (configured?.length) return fromConfig(configured, config?.rootDir ?? io.cwd)
  return [{ kind: 'builtin', name: underAgent(io) ? 'agent' : 'default' }]
}

/**
 * The files the run's built-in reporters will write (absolute): verify's own output, never part of the code.
 * `copy`: the file is a copy of the evidence (the `json` reporter).
 */
export function reportFiles(
  specs: readonly string[] | undefined,
  io: ReporterHost,
  config?: ReporterConfigSource,
): { name: string; file: string; copy: boolean }[] {
  return selectEntries(specs, io, config).flatMap((entry) =>
    entry.kind === 'builtin' && entry.file ? [{ name: entry.name, file: entry.file, copy: entry.name === 'json' }] : [],
  )
}

/**
 * Builds the run's reporters: those named on the command line (`name` or `name=<file>`), else the config's
 * `reporters`, else `default` (`agent` when a coding agent runs verify). In GitHub Actions (`GITHUB_ACTIONS=true`)
 * `github-actions` is added unless named already; it writes to stderr when stdout carries a document. `run.invocation`
 * is the command that ran the protocol, for reporters that suggest running it again.
 */
export async function createReporters(
  specs: readonly string[] | undefined,
  io: ReporterHost,
  color: boolean,
  config?: ReporterConfigSource,
  run: Pick<ReporterOptions, 'invocation'> = {},
): Promise<Reporter[]> {
  const ci = (Boolean(io.env.CI) && io.env.CI !== 'false') || io.env.GITHUB_ACTIONS === 'true'
  const entries = selectEntries(specs, io, config)
  const builtins = entries.filter((e): e is Extract<Entry, { kind: 'builtin' }> => e.kind === 'builtin')
  if (io.env.GITHUB_ACTIONS === 'true' && !builtins.some((e) => e.name === 'github-actions')) {
    const stdoutTaken = builtins.some((e) => DOCUMENTS.has(e.name) && !e.file)
    entries.push({ kind: 'builtin', name: 'github-actions', toStderr: stdoutTaken })
  }
  // The terminal's width, from an IO that knows it.
  const width: unknown = (io as ReporterHost & { columns?: unknown }).columns
  const columns = typeof width === 'number' && Number.isInteger(width) && width > 0 ? width : undefined
  // A live redraw moves the cursor over what it drew last: only safe when nothing else writes to stdout.
  const stdoutEntries = entries.filter((e) => e.kind !== 'builtin' || (!e.file && !e.toStderr))
  const onStdout = stdoutEntries.length
  // JSON or JUnit XML on stdout is for a program to parse: nothing may be mixed into it.
  const document = stdoutEntries.find((e): e is Extract<Entry, { kind: 'builtin' }> => e.kind === 'builtin' && (e.name === 'json' || e.name === 'junit'))
  if (document && onStdout > 1) {
    throw new VerifyUsageError(
      `--reporter ${document.name} prints ${document.name === 'json' ? 'JSON' : 'JUnit XML'} on stdout for a program to parse, and another reporter would write into it: give one of them a file (--reporter ${document.name}=<file>), or use one reporter on stdout.`,
    )
  }
  const context = (entry: Entry): ReporterOptions => ({
    write: entry.kind === 'builtin' && entry.toStderr ? io.stderr : io.stdout,
    // Past the output layer: only built-in reporters, which build their commands with workflowCommand.
    ...(entry.kind === 'builtin' && io.unguarded ? { writeControl: entry.toStderr ? io.unguarded.stderr : io.unguarded.stdout } : {}),
    ...(entry.kind === 'builtin' && entry.file ? { file: entry.file } : {}),
    color,
    isTTY: io.isTTY && onStdout === 1,
    ci,
    cwd: io.cwd,
    env: io.env,
    ...(io.rows ? { rows: io.rows } : {}),
    ...(columns ? { columns } : {}),
    ...(run.invocation ? { invocation: run.invocation } : {}),
  })
  const reporters: Reporter[] = []
  // A custom reporter writes to stdout as any Node program does, from its hooks and after their awaits (stdout.ts).
  if (entries.some((entry) => entry.kind !== 'builtin')) releaseStdout()
  for (const entry of entries) {
    if (entry.kind === 'builtin') reporters.push(guardReporter((await REPORTERS[entry.name]())(context(entry)), `"${entry.name}"`, io))
    else if (entry.kind === 'object') reporters.push(guardReporter(asReporter(entry.reporter, `reporters[${entry.index}]`), `reporters[${entry.index}]`, io))
    else
      reporters.push(
        guardReporter(await loadReporterModule(entry.specifier, config?.rootDir ?? io.cwd, entry.options, context(entry)), `"${entry.specifier}"`, io),
      )
  }
  return reporters
}
