// `verify [run] [protocol]`: load, run under supervision, write evidence, report, exit by the verdict.
import { dirname, join, relative } from 'node:path'
import { evidenceLocationProblem, reportLocationProblem } from '../evidence/location.js'
import { buildEvidenceFile } from '../evidence/record.js'
import { EvidenceNotWrittenError } from '../evidence/room.js'
import { sealEvidence } from '../evidence/sign.js'
import { readEvidenceFile, writeEvidenceFileSync } from '../evidence/store.js'
import { changedFiles, workspaceFingerprint } from '../evidence/fingerprint.js'
import { describeOutputs } from '../evidence/outputs.js'
import { VerifyUsageError } from '../errors.js'
import { combineReporters } from '../reporters/index.js'
import { boundLiveOutput } from '../reporters/live-budget.js'
import { createReporters, reportFiles, useColor } from '../reporters/select.js'
import { runVerification } from '../api.js'
import { createChecklist, selectChecks } from '../runner/schedule.js'
import { partitionShards, parseShard } from '../runner/shard.js'
import { cleanDeadRuns, describeCleanup, openRegistry, type RunRegistry } from '../runner/registry.js'
import { killAllGroups } from '../runner/spawn.js'
import { nameFiles } from '../verdict/check-evidence.js'
import { summarize } from '../verdict/summary.js'
import { canPrompt, promptApprovals } from './approve.js'
import { duration, list, parse, positiveInt } from './args.js'
import { CONFIG_OPTIONS, commandContext, maskedIO, saveEvidence } from './context.js'
import { exitCodeOfSignal, exitCodeOfVerdict } from './exit-code.js'
import { lockEvidence, optionalWaitValue } from './lock.js'
import type { EvidenceFile, WorkspaceInfo } from '../types.js'
import type { CliIO } from './io.js'
import type { Reporter } from '../reporters/types.js'
import { priorResults } from './reuse.js'
import { commandWorkspace } from './workspace.js'
export const RUN_OPTIONS = {
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  sequential: { type: 'boolean' },
  concurrency: { type: 'string' },
  'fail-fast': { type: 'boolean' },
  'skip-optional': { type: 'boolean' },
  timeout: { type: 'string' },
  'max-age': { type: 'string' },
  reporter: { type: 'string', multiple: true },
  reuse: { type: 'boolean' },
  shard: { type: 'string' },
  interactive: { type: 'boolean' },
  wait: { type: 'string' },
  ...CONFIG_OPTIONS,
  color: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

type Signal = 'SIGINT' | 'SIGTERM' | 'SIGHUP'

/** Checks that write into the workspace make their own evidence stale at once: say so, and which files. */
async function workspaceDrift(rootDir: string, before: WorkspaceInfo, leaveOut: string[]): Promise<string | null> {
  const after = await workspaceFingerprint(rootDir, { leaveOut })
  if (after.fingerprint === before.fingerprint) return null
  const files = before.git && after.git ? await changedFiles(rootDir, before.git.tree, after.git.tree) : null
  const named = files && files.length > 0 ? ` (${nameFiles(files)})` : ''
  return `The checks changed the workspace while they ran${named}. Evidence is bound to the code as it was when the run started, so it will read as stale: add generated files to .gitignore.`
}

function ignoreUnwritten(error: unknown): void {
  if (!(error instanceof EvidenceNotWrittenError)) throw error
}

/** What a caller inside verify (the agent hook) can hand a run beyond its flags. */
export interface RunExtras {
  /** Replace the reporters the flags and config would choose (the hook renders its own answer). */
  reporters?: Reporter[]
  /** Aborting it stops the run like SIGTERM does: running checks are killed, the evidence is written incomplete. */
  signal?: AbortSignal
}

export async function runCommand(argv: string[], rawIO: CliIO, extras: RunExtras = {}): Promise<number> {
  const { values, positionals } = parse('run', optionalWaitValue(argv), RUN_OPTIONS)
  if (positionals.length > 1) throw new VerifyUsageError(`verify run takes one protocol name, got: ${positionals.join(' ')}`)
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
    if (!ids.has(id)) throw new VerifyUsageError(`No check "${id}" in protocol "${protocol.name}". Checks: ${[...ids].join(', ')}.`)
  }
  const color = useColor(io, values.color)
  // How to run this protocol again, for reporters that suggest the next command.
  const invocation = ['npx verify run', positionals[0], ...(['config', 'cwd', 'evidence'] as const).flatMap((flag) => (values[flag] ? [`--${flag}`, values[flag]] : []))]
    .filter(Boolean)
    .join(' ')
  const reporters = combineReporters(extras.reporters ?? (await createReporters(values.reporter, io, color, context.loaded, { invocation })))
  // A reader slower than a check's output must not grow verify's memory: live output is cut to what it takes.
  const { backlog } = io
  const reporter = backlog
    ? boundLiveOutput(reporters, { backlog, logFile: (id) => relative(io.cwd, join(context.logDir, `${id}.log`)) || `${id}.log` })
    : reporters

  const reports = reportFiles(values.reporter, io, context.loaded).filter((report) => report.file !== evidencePath)
  for (const report of reports) {
    const problem = reportLocationProblem(report.file, report.name)
    if (problem) throw new VerifyUsageError(problem)
  }
  const writes = reports.map((report) => report.file)
  const shard = values.shard ? parseShard(values.shard) : undefined
  const shardChecks = shard ? new Set(partitionShards(protocol.checks, shard.total)[shard.index - 1]) : undefined

  // One run at a time per evidence file, from before the old evidence is read until the new one is written.
  const lock = await lockEvidence(io, evidencePath, values.wait, `verify run${positionals[0] ? ` ${positionals[0]}` : ''}`)
  const endInterim = lock.exitOnSignals()
  const fail = (error: unknown): never => {
    endInterim()
    lock.release()
    throw error
  }
  // What runs killed before they could clean up left behind: processes (by group and by tag) and temporary files.
  const evidenceDir = dirname(evidencePath)
  const registryDir = join(evidenceDir, 'run')
  const cleaned = describeCleanup(cleanDeadRuns(registryDir, [evidenceDir]))
  // Computed once: every check, the reuse of earlier evidence and the drift check below use this fingerprint.
  const previous = await readEvidenceFile(evidencePath).catch(fail)
  const { workspace, leaveOut, carried } = await commandWorkspace(context, { recorded: previous.ok ? previous.file : null, writes }).catch(fail)
  const prior = await priorResults(context, workspace, {
    reuse: values.reuse ?? false,
    // Other shards' checks are not "left out": their evidence comes from their own jobs, through `verify merge`.
    selected: shard ? new Set(protocol.checks.map((c) => c.id)) : selectChecks(protocol.checks, only, skip),
    ...(shard ? { shard } : {}),
  }).catch(fail)
  const { settled } = prior
  const shownLogDir = relative(protocol.rootDir, context.logDir) || '.'
  const checklist = createChecklist(protocol)
  const controller = new AbortController()
  let interrupted: Signal | null = null
  const onSignal = (signal: Signal) => {
    if (interrupted) {
      // A second signal: stop waiting for graceful ends, record what is known and leave now.
      killAllGroups('SIGKILL')
      // What had not settled was cancelled: a written file never holds `running` or `pending`.
      for (const result of checklist.results) {
        if (result.status === 'running' || result.status === 'pending') Object.assign(result, { status: 'cancelled', reason: `interrupted by ${interrupted}` })
      }
      const summary = summarize(checklist.results, protocol.strictMode, { interrupted: true, logDir: shownLogDir })
      try {
        writeEvidenceFileSync(evidencePath, sealEvidence(buildEvidenceFile(checklist, summary, interrupted), context.redact, context.signingKey))
      } catch (error) {
        rawIO.stderr(`verify: cannot write the evidence at ${evidencePath} (${(error as Error).message})\n`)
      }
      process.exit(exitCodeOfSignal(interrupted))
    }
    interrupted = signal
    controller.abort(signal)
  }
  endInterim()
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = () => onSignal(signal)
    process.on(signal, handler)
    return [signal, handler] as const
  })
  const registry: RunRegistry = openRegistry(registryDir, checklist.runId)
  // Last resort: if verify exits for any reason, no check's process (in its group or escaped) outlives it.
  const killEverything = () => {
    killAllGroups('SIGKILL')
    registry.close()
  }
  process.on('exit', killEverything)
  const onExtraAbort = () => onSignal('SIGTERM')
  if (extras.signal?.aborted) onExtraAbort()
  extras.signal?.addEventListener('abort', onExtraAbort, { once: true })
  try {
    let summary = await runVerification(checklist, {
      signal: controller.signal,
      reporter,
      sequential: values.sequential ?? false,
      ...(only ? { only } : {}),
      ...(skip ? { skip } : {}),
      logDir: context.logDir,
      env: io.env,
      transform: context.redact,
      workspace,
      settled,
      ...(shard && shardChecks ? { shard: { ...shard, checks: shardChecks } } : {}),
    })
    if (!interrupted && values.interactive !== false && canPrompt(rawIO)) {
      try {
        if (await promptApprovals(context, checklist, workspace, io)) {
          summary = summarize(checklist.results, protocol.strictMode, { logDir: shownLogDir })
        }
      } catch (error) {
        // Ctrl-C at a question is an interrupt like any other: the evidence is still written, exit 130.
        if ((error as Error).name !== 'AbortError') throw error
        interrupted = 'SIGINT'
        summary = summarize(checklist.results, protocol.strictMode, { interrupted: true, logDir: shownLogDir })
      }
    }
    if (cleaned) summary.warnings.unshift(cleaned)
    if (lock.note) summary.warnings.unshift(lock.note)
    // Only checks that ran could have changed the workspace.
    if (!interrupted && checklist.results.some((r) => r.evidence && !r.evidence.reused && r.evidence.command !== null)) {
      const warning = await workspaceDrift(protocol.rootDir, workspace, leaveOut)
      if (warning) summary.warnings.push(warning)
    }
    summary.warnings.unshift(...prior.warnings)
    let exitVerdict = summary.verdict
    let shardRecord: EvidenceFile['shard']
    if (shard && shardChecks) {
      const options = { interrupted: interrupted !== null, logDir: shownLogDir }
      const own = summarize(checklist.results.filter((r) => shardChecks.has(r.id)), protocol.strictMode, options)
      shardRecord = { index: shard.index, total: shard.total, checks: [...shardChecks], verdict: own.verdict }
      // The file speaks for the protocol, and a share never approves it; its issues and advice are about its own
      // share (other shards' checks are not this job's to fix).
      summary = {
        ...summarize(checklist.results, protocol.strictMode, { ...options, partial: true }),
        issues: own.issues,
        recommendations: own.recommendations,
        warnings: [
          `Shard ${shard.index}/${shard.total} ran ${shardChecks.size} of ${protocol.checks.length} checks: verdict ${own.verdict} for its share. \`verify merge\` the shards' evidence for the protocol's verdict.`,
          ...summary.warnings,
        ],
      }
      // The job's exit code speaks for its share; an empty share (more shards than groups of checks) has nothing to fail.
      exitVerdict = shardChecks.size === 0 ? 'approved' : own.verdict
    }
    const record = buildEvidenceFile(checklist, summary, interrupted)
    if (shardRecord) record.shard = shardRecord
    // What the evidence can say of its outputs before they are written: the copies of itself, the unchanged ones.
    const copies = reports.filter((report) => report.copy).map((report) => report.file)
    const known = await describeOutputs(evidencePath, carried, copies)
    if (known.length > 0) record.workspace = { ...record.workspace, outputs: known }
    const file = await saveEvidence(context, record).catch((error: unknown) => {
      if (error instanceof EvidenceNotWrittenError) return error
      throw error
    })
    // Results that could not be saved are still shown; then the error, and exit 2.
    await reporter.onRunEnd({ checklist, summary, file: file instanceof EvidenceNotWrittenError ? file.file : file, evidencePath, interrupted })
    if (file instanceof EvidenceNotWrittenError) throw file
    // The other reports exist now: the evidence records what they hold, so later commands leave exactly that out.
    // Not saved, the file just lacks them: they then count as code, which errs on the safe side.
    if (reports.some((report) => !report.copy)) {
      const outputs = await describeOutputs(evidencePath, [...carried, ...writes], copies)
      await saveEvidence(context, { ...record, workspace: { ...record.workspace, outputs } }).catch(ignoreUnwritten)
    }
    return interrupted ? exitCodeOfSignal(interrupted) : exitCodeOfVerdict(exitVerdict)
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler)
    process.off('exit', killEverything)
    extras.signal?.removeEventListener('abort', onExtraAbort)
    registry.close()
    lock.release()
  }
}
