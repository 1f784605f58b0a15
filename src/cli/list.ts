// `verify list [protocol] [--json]`: the resolved protocol(s) after every layer — what would run, and from where.
import { relative, resolve } from 'node:path'
import { loadConfigLayers } from '../config/index.js'
import { resolveMerged } from '../config/resolve.js'
import { VerifyUsageError } from '../errors.js'
import { protocolRedactor, redactDeep } from '../evidence/redact.js'
import { guardJson, untrusted } from '../reporters/safe-text.js'
import type { ResolvedCheck, ResolvedProtocol } from '../types.js'
import { commandText } from '../runner/command-text.js'
import { parse } from './args.js'
import { ExitCode } from './exit-code.js'
import { LIST_FLAGS } from './flags.js'
import type { CliIO } from './io.js'
import { safeIO } from './output.js'

/** One check in `verify list --json` (format version 1, documented in docs/cli.md). */
export interface ListedCheck {
  id: string
  name: string
  description: string | null
  evidenceType: string
  required: boolean
  kind: ResolvedCheck['kind']
  /** The shell command (string) or argv (array); null for function and manual checks. */
  command: string | string[] | null
  /** Instructions of a manual check; null otherwise. */
  manual: string | null
  dependsOn: string[]
  timeoutMs: number
  retries: number
  /** Relative to the config's folder ("." for the folder itself). */
  cwd: string
  inputs: string[] | null
  /** Labels of the layers that set this check's fields, lowest first (the last one has the final say). */
  layers: string[]
}

export interface ListedProtocol extends Pick<
  ResolvedProtocol,
  'name' | 'strictMode' | 'parallel' | 'concurrency' | 'failFast' | 'skipOptional' | 'timeoutMs' | 'maxAgeMs'
> {
  description: string | null
  checks: ListedCheck[]
}

export interface ListOutput {
  listVersion: 1
  configFile: string
  rootDir: string
  /** Every layer, lowest first; the project's config is the last. */
  layers: { label: string; file: string | null; chain: string[] }[]
  protocols: ListedProtocol[]
}

function listCheck(check: ResolvedCheck, rootDir: string, layers: string[]): ListedCheck {
  return {
    id: check.id,
    name: check.name,
    description: check.description ?? null,
    evidenceType: check.evidenceType,
    required: check.required,
    kind: check.kind,
    command: check.command ?? null,
    manual: check.kind === 'manual' ? (check.manual ?? null) : null,
    dependsOn: check.dependsOn,
    timeoutMs: check.timeoutMs,
    retries: check.retries,
    cwd: relative(rootDir, check.cwd) || '.',
    inputs: check.inputs ?? null,
    layers,
  }
}

function listProtocol(protocol: ResolvedProtocol, origins: Record<string, string[]>): ListedProtocol {
  return {
    name: protocol.name,
    description: protocol.description ?? null,
    strictMode: protocol.strictMode,
    parallel: protocol.parallel,
    concurrency: protocol.concurrency,
    failFast: protocol.failFast,
    skipOptional: protocol.skipOptional,
    timeoutMs: protocol.timeoutMs,
    maxAgeMs: protocol.maxAgeMs,
    checks: protocol.checks.map((check) => listCheck(check, protocol.rootDir, origins[check.id] ?? [])),
  }
}

/** Durations as a config would write them: 15m, 30s, 1.5h, 250ms. */
function duration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && (ms * 10) % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}

function shownCommand(check: ListedCheck): string {
  if (check.command === null) return check.kind === 'manual' ? `(manual) ${check.manual ?? ''}` : '(function)'
  return commandText(check.command)
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? []
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  )
}

// Names, descriptions and commands come from config files, maybe from a change under review: untrusted text.
function renderText(output: ListOutput, cwd: string): string {
  const out: string[] = [`config: ${untrusted(relative(cwd, output.configFile) || output.configFile)}`]
  if (output.layers.length > 1) out.push(`layers: ${output.layers.map((l) => untrusted(l.label)).join(' → ')}  (lowest first; later layers override)`)
  for (const p of output.protocols) {
    const options = [
      p.strictMode ? 'strict' : 'not strict',
      p.parallel ? `parallel (${p.concurrency})` : 'sequential',
      ...(p.failFast ? ['fail-fast'] : []),
      ...(p.skipOptional ? ['skip optional'] : []),
      `timeout ${duration(p.timeoutMs)}`,
      `maxAge ${duration(p.maxAgeMs)}`,
    ]
    out.push('', `protocol ${untrusted(p.name)}${p.description ? ` — ${untrusted(p.description)}` : ''}`, `  ${options.join(' · ')}`, '')
    const rows = [['id', 'type', 'required', 'kind', 'depends on', 'timeout', 'from', 'command']]
    for (const c of p.checks) {
      const cells = [
        c.id,
        c.evidenceType,
        c.required ? 'yes' : 'no',
        c.kind,
        c.dependsOn.join(',') || '-',
        duration(c.timeoutMs),
        c.layers.join(' → ') || '-',
        shownCommand(c),
      ]
      rows.push(cells.map((cell) => untrusted(cell)))
    }
    out.push(...table(rows).map((line) => `  ${line}`))
  }
  return `${out.join('\n')}\n`
}

export async function listCommand(argv: string[], rawIO: CliIO): Promise<number> {
  const { values, positionals } = parse('list', argv, LIST_FLAGS)
  if (positionals.length > 1) throw new VerifyUsageError(`verify list takes at most one protocol name, got: ${positionals.join(' ')}`)
  const cwd = resolve(rawIO.cwd, values.cwd ?? '.')
  const loaded = await loadConfigLayers({ cwd, env: rawIO.env, ...(values.config ? { configFile: resolve(rawIO.cwd, values.config) } : {}) })
  const declared = Object.keys(loaded.merged.protocols)
  // No protocol at all: resolving one says why, as `run` and `check` do.
  const names = positionals[0] ? [positionals[0]] : declared.length > 0 ? declared : [undefined]
  const resolved = names.map((name) => resolveMerged(loaded.merged, { rootDir: loaded.rootDir, source: loaded.source, protocol: name }))
  const protocols = resolved.map(({ protocol, origins }) => listProtocol(protocol, origins))
  // A command may hold a secret of the environment or of a check's own `env`: masked as in a run.
  const redact = protocolRedactor(
    rawIO.env,
    resolved.map(({ protocol }) => protocol),
  )
  const io = safeIO(rawIO, redact)
  // Masked before it is rendered: a pattern anchored to a line must see the command's lines, not the table's.
  const output: ListOutput = redactDeep(
    {
      listVersion: 1,
      configFile: loaded.configFile,
      rootDir: loaded.rootDir,
      layers: loaded.layers.map((l) => ({ label: l.label, file: l.file ?? null, chain: l.chain })),
      protocols,
    } satisfies ListOutput,
    redact,
  )
  io.stdout(values.json ? guardJson(`${JSON.stringify(output, null, 2)}\n`) : renderText(output, io.cwd))
  return ExitCode.approved
}
