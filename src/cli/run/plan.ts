// `verify run`, step 1 — plan: the flags, the protocol, the reporters, the lock on the evidence file, the workspace as
// it is when the run starts, and what earlier evidence settles before anything runs.
import { dirname, join, relative } from 'node:path'
import type { LoadedConfig } from '../../config/index.js'
import { approvalsPathOf } from '../../defaults.js'
import { evidenceLocationProblem, reportLocationProblem } from '../../evidence/location.js'
import { readEvidenceFile } from '../../evidence/store.js'
import { askRepo, commandWorkspace, type CommandWorkspace } from '../../evidence/workspace.js'
import { VerifyUsageError } from '../../errors.js'
import { combineReporters } from '../../reporters/index.js'
import { boundLiveOutput } from '../../reporters/live-budget.js'
import { createReporters, reportFiles, useColor } from '../../reporters/select.js'
import { cleanDeadRuns, describeCleanup } from '../../runner/registry.js'
import { createChecklist, selectChecks } from '../../runner/schedule.js'
import { partitionShards, parseShard } from '../../runner/shard.js'
import type { Checklist, Reporter } from '../../types.js'
import type { Invocation } from '../../verdict/invocation.js'
import { closest } from '../../suggest.js'
import { priorResults, type PriorResults } from '../../verdict/prior.js'
import type { Share } from '../../verdict/run-summary.js'
import { duration, list, parse, positiveInt } from '../args.js'
import { commandContext, maskedIO, type CommandContext } from '../context.js'
import { RUN_FLAGS } from '../flags.js'
import type { CliIO } from '../io.js'
import { lockEvidence, type HeldLock } from '../lock.js'

/** What a caller inside verify (the agent hook) can hand a run beyond its flags. */
export interface RunExtras {
  /** Replace the reporters the flags and config would choose (the hook renders its own answer). */
  reporters?: Reporter[]
  /** Aborting it stops the run like SIGTERM does: running checks are killed, the evidence is written incomplete. */
  signal?: AbortSignal
}

export interface RunPlan {
  context: CommandContext
  /** The IO with everything printed masked by the protocol's secrets. */
  io: CliIO
  checklist: Checklist
  reporter: Required<Reporter>
  only: string[] | undefined
  skip: string[] | undefined
  sequential: boolean
  interactive: boolean
  shard: Share | undefined
  /** Reports written to files other than the evidence file; `copy`: a copy of the evidence (json). */
  reports: { file: string; copy: boolean }[]
  /** The log folder as recommendations name it, relative to the project. */
  shownLogDir: string
  /** Held from before the old evidence is read until the new one is written: the caller releases it. */
  lock: HeldLock
  /** Warnings of the run's circumstances (a taken-over lock, a dead run's leftovers cleaned), said first. */
  notes: string[]
  workspace: CommandWorkspace
  prior: PriorResults
  /** What the next commands the run recommends need to be given as well. */
  given: Invocation
}

/**
 * One evidence file holds one protocol's run: a run of another protocol replaces it. Said, with how to keep both
 * (`verify run ci` after `verify run` would otherwise leave `verify check` of the first finding nothing of its own).
 */
function replacedNote(previous: Awaited<ReturnType<typeof readEvidenceFile>>, protocol: string, evidencePath: string, cwd: string): string[] {
  const before = previous.ok ? previous.file.protocol?.name : undefined
  if (typeof before !== 'string' || before === protocol) return []
  const shown = relative(cwd, evidencePath) || evidencePath
  const own = join(relative(cwd, dirname(evidencePath)) || '.', `${protocol}.json`)
  return [
    `${shown} held the evidence of protocol "${before}"; this run of "${protocol}" replaces it. To keep each protocol's evidence, give this one a file of its own: \`--evidence ${own}\`.`,
  ]
}

/** Reads the flags and loads the protocol; takes the evidence file's lock; settles what earlier evidence can. */
export async function planRun(argv: string[], rawIO: CliIO, extras: RunExtras): Promise<RunPlan> {
  const { values, positionals, repeated } = parse('run', argv, RUN_FLAGS)
  if (positionals.length > 1) throw new VerifyUsageError(`verify run takes one protocol name, got: ${positionals.join(' ')}`)
  if (values.sequential && values.concurrency !== undefined && Number(values.concurrency) !== 1)
    throw new VerifyUsageError(`--sequential runs one check at a time and --concurrency ${values.concurrency} asks for more: give one of them.`)
  const context = await commandContext(rawIO, values, positionals[0], {
    ...(values.sequential ? { parallel: false } : {}),
    ...(values['fail-fast'] ? { failFast: true } : {}),
    ...(values['skip-optional'] ? { skipOptional: true } : {}),
    concurrency: positiveInt('concurrency', values.concurrency),
    timeoutMs: duration('timeout', values.timeout),
    maxAgeMs: duration('max-age', values['max-age']),
  })
  const io = maskedIO(rawIO, context.redact)
  const { protocol } = context.loaded
  const { evidencePath } = context
  // Found out before anything runs, not when the evidence of a long run cannot be written.
  const unwritable = evidenceLocationProblem(evidencePath, context.logDir)
  if (unwritable) throw new VerifyUsageError(unwritable)
  const ids = new Set(protocol.checks.map((c) => c.id))
  const only = list(values.only)
  const skip = list(values.skip)
  for (const id of [...(only ?? []), ...(skip ?? [])]) {
    if (ids.has(id)) continue
    const near = closest(id, [...ids])
    throw new VerifyUsageError(`No check "${id}" in protocol "${protocol.name}"${near ? ` — did you mean "${near}"?` : '.'} Checks: ${[...ids].join(', ')}.`)
  }
  const both = only?.filter((id) => skip?.includes(id)) ?? []
  if (both.length > 0) throw new VerifyUsageError(`--only and --skip both name ${both.map((id) => `"${id}"`).join(', ')}: a check is either run or left out.`)
  const color = useColor(io, values.color)
  // How to run this protocol again, for reporters that suggest the next command.
  const invocation = [
    'npx verify run',
    positionals[0],
    ...(['config', 'cwd', 'evidence'] as const).flatMap((flag) => (values[flag] ? [`--${flag}`, values[flag]] : [])),
  ]
    .filter(Boolean)
    .join(' ')
  const reporters = combineReporters(extras.reporters ?? (await createReporters(values.reporter, io, color, context.loaded, { invocation })))
  // A reader slower than a check's output must not grow verify's memory: live output is cut to what it takes.
  const { backlog } = io
  const reporter = backlog
    ? boundLiveOutput(reporters, { backlog, logFile: (id) => relative(io.cwd, join(context.logDir, `${id}.log`)) || `${id}.log` })
    : reporters
  const named = reportFiles(values.reporter, io, context.loaded)
  const clash = reportClash(named, evidencePath, context.loaded)
  if (clash) throw new VerifyUsageError(clash)
  // The json reporter may write its copy where the evidence goes: that is the evidence file itself.
  const reports = named.filter((report) => report.file !== evidencePath)
  for (const report of reports) {
    const problem = reportLocationProblem(report.file, report.name)
    if (problem) throw new VerifyUsageError(problem)
  }
  const spec = values.shard ? parseShard(values.shard) : undefined
  const shard = spec ? { ...spec, checks: new Set(partitionShards(protocol.checks, spec.total)[spec.index - 1]) } : undefined

  const lock = await lockEvidence(io, evidencePath, values.wait, `verify run${positionals[0] ? ` ${positionals[0]}` : ''}`)
  // Until the run's own handlers are in place, a signal releases the lock and exits.
  const endInterim = lock.exitOnSignals()
  try {
    // What runs killed before they could clean up left behind: processes (by group and by tag) and temporary files.
    const evidenceDir = dirname(evidencePath)
    const cleaned = describeCleanup(cleanDeadRuns(join(evidenceDir, 'run'), [evidenceDir]))
    // Computed once: every check, the reuse of earlier evidence and the drift check use this fingerprint.
    const repo = askRepo(context)
    const previous = await readEvidenceFile(evidencePath)
    const workspace = await commandWorkspace(context, { recorded: previous.ok ? previous.file : null, writes: reports.map((report) => report.file), repo })
    const prior = await priorResults(context, workspace.workspace, {
      stored: previous,
      reuse: values.reuse ?? false,
      // Other shards' checks are not "left out": their evidence comes from their own jobs, through `verify merge`.
      selected: shard ? ids : selectChecks(protocol.checks, only, skip),
      ...(spec ? { shard: spec } : {}),
    })
    return {
      context,
      io,
      checklist: createChecklist(protocol),
      reporter,
      only,
      skip,
      sequential: values.sequential ?? false,
      interactive: values.interactive !== false,
      shard,
      reports,
      shownLogDir: relative(protocol.rootDir, context.logDir) || '.',
      lock,
      notes: [...repeated, ...(lock.note ? [lock.note] : []), ...(cleaned ? [cleaned] : []), ...replacedNote(previous, protocol.name, evidencePath, rawIO.cwd)],
      workspace,
      prior,
      given: { protocol: positionals[0], config: values.config, cwd: values.cwd, evidence: values.evidence },
    }
  } catch (error) {
    lock.release()
    throw error
  } finally {
    endInterim()
  }
}

/**
 * Why a report cannot go where it is told to, or null: onto the evidence file (but for the json reporter's copy,
 * which is the evidence), the approvals file, a config file of the protocol, or another report's file. Each would be
 * written over at the end of the run, with no word said.
 */
function reportClash(reports: readonly { name: string; file: string }[], evidencePath: string, loaded: LoadedConfig): string | null {
  const taken = new Map<string, string>([
    [evidencePath, 'the evidence file'],
    [approvalsPathOf(evidencePath), 'the approvals file'],
    [loaded.configFile, 'the config file'],
  ])
  for (const layer of loaded.layers) if (layer.file && !taken.has(layer.file)) taken.set(layer.file, `the config file of ${layer.label}`)
  for (const report of reports) {
    const holder = report.name === 'json' && report.file === evidencePath ? undefined : taken.get(report.file)
    if (holder) return `The ${report.name} report would be written to ${report.file}, which is ${holder}: name another file. Nothing was run.`
    taken.set(report.file, `the ${report.name} report's file`)
  }
  return null
}
