// `verify run`, step 3 — finalise: the summary and verdict (decided by verdict/run-summary.ts, a shard's included),
// the warnings of the run's circumstances, and the evidence record as it will be written.
import { existsSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { changedFiles, trackedLeftOut, workspaceFingerprint } from '../../evidence/fingerprint.js'
import { git } from '../../evidence/git-process.js'
import { besideEvidence, describeOutputs } from '../../evidence/outputs.js'
import { buildEvidenceFile } from '../../evidence/record.js'
import { sealEvidence } from '../../evidence/sign.js'
import { writeEvidenceFileSync } from '../../evidence/store.js'
import type { Repo } from '../../evidence/git-tree.js'
import type { CommandWorkspace } from '../../evidence/workspace.js'
import type { EvidenceFile, Summary, Verdict, WorkspaceInfo } from '../../types.js'
import { nameFiles, ownFilesTrackedWarning } from '../../verdict/check-evidence.js'
import { inContext } from '../../verdict/invocation.js'
import { summarizeRun, type RunSummaryOptions } from '../../verdict/run-summary.js'
import type { CliIO } from '../io.js'
import type { Signal } from './execute.js'
import type { RunPlan } from './plan.js'

export interface Finalised {
  /** The evidence file, not yet sealed (masked and signed when saved). */
  record: EvidenceFile
  summary: Summary
  /** What the run answers with: a shard's, for its own share. */
  verdict: Verdict
  /** The signal the record was written as interrupted by; a signal after it does not change what the run answers. */
  interrupted: Signal | null
}

/** Checks that write into the workspace make their own evidence stale at once: say so, and which files. */
async function workspaceDrift(rootDir: string, before: CommandWorkspace, leaveOut: string[], evidencePath: string): Promise<string | null> {
  const after = await workspaceFingerprint(rootDir, { leaveOut, ...(await sameRepository(before.repo)) })
  if (after.fingerprint === before.workspace.fingerprint) return null
  return driftMessage(rootDir, before.workspace, after, evidencePath)
}

/**
 * The repository found before the checks ran (its place, format and settings), when it is still there: the tree is
 * compared in it without asking git again. A check that made the folder a repository, or removed its repository,
 * changed what the evidence is bound to: git is asked again, and the fingerprints differ.
 */
async function sameRepository(repo: Promise<Repo | null>): Promise<{ repo?: Promise<Repo | null> }> {
  const found = await repo.catch(() => null)
  return found && existsSync(join(found.top, '.git')) ? { repo: Promise.resolve(found) } : {}
}

async function driftMessage(rootDir: string, before: WorkspaceInfo, after: WorkspaceInfo, evidencePath: string): Promise<string> {
  const files = before.git && after.git ? await changedFiles(rootDir, before.git.tree, after.git.tree) : null
  // Files verify itself writes, tracked by git (a `.verify/` committed before it was ignored): no run can fix that.
  const own = relative(rootDir, dirname(evidencePath))
  const mine = own && !own.startsWith('..') ? (files ?? []).filter((file) => file === own || file.startsWith(`${own}/`)) : []
  const tracked = mine.length > 0 ? await trackedOf(rootDir, mine) : []
  const warning = ownFilesTrackedWarning(
    rootDir,
    evidencePath,
    tracked.map((file) => join(rootDir, file)),
  )
  if (warning) return warning
  const named = files && files.length > 0 ? ` (${nameFiles(files)})` : ''
  // .gitignore leaves out only files git does not track; outside git it leaves out nothing: a check's `inputs` do.
  const rewritten = files && files.length > 0 ? await trackedOf(rootDir, files) : []
  const advice = !before.git
    ? 'outside git every file counts, so give the checks `inputs` (the files they read), or put the project in git and add generated files to .gitignore'
    : rewritten.length > 0
      ? `the checks rewrote files git tracks (${nameFiles(rewritten)}), which .gitignore cannot leave out: make them leave those files as they are, or untrack generated ones (\`git rm --cached <file>\`) and ignore them`
      : 'add generated files to .gitignore'
  return `The checks changed the workspace while they ran${named}. Evidence is bound to the code as it was when the run started, so it will read as stale: ${advice}.`
}

/** Those of `files` (relative to rootDir) that git tracks. */
async function trackedOf(rootDir: string, files: readonly string[]): Promise<string[]> {
  const listed = await git(rootDir, ['ls-files', '-z', '--', ...files.map((file) => `:(literal)${file}`)]).catch(() => '')
  const known = new Set(listed.split('\0'))
  return files.filter((file) => known.has(file))
}

function record(plan: RunPlan, interrupted: Signal | null, warnings: RunSummaryOptions['warnings']): Finalised {
  const { checklist } = plan
  const judged = summarizeRun(checklist.results, checklist.protocol.strictMode, {
    interrupted: interrupted !== null,
    logDir: plan.shownLogDir,
    shard: plan.shard,
    warnings,
  })
  const file = buildEvidenceFile(checklist, judged.summary, interrupted)
  if (judged.shard) file.shard = judged.shard
  return { record: file, summary: judged.summary, verdict: judged.verdict, interrupted }
}

/**
 * The drift warning, if the checks changed the workspace: null when they did not, or when a signal came first (the
 * interrupted run is written at once, not after a fingerprint of a large tree). The check warns and never costs the
 * run: a git that fails (killed by a Ctrl-C to the whole process group, say) is a warning too.
 */
async function driftWarning(plan: RunPlan, interruption: AbortSignal): Promise<string | null> {
  const { checklist, workspace } = plan
  if (interruption.aborted) return null
  let stop: (() => void) | undefined
  const interrupted = new Promise<null>((resolve) => {
    stop = () => resolve(null)
    interruption.addEventListener('abort', stop, { once: true })
  })
  const drift = (async () => {
    // What verify wrote beside the evidence during the run (the first logs, the run's record) is left out as well.
    const beside = await besideEvidence(
      plan.context.evidencePath,
      checklist.results.map((r) => r.id),
    )
    return workspaceDrift(checklist.protocol.rootDir, workspace, [...workspace.leaveOut, ...beside], plan.context.evidencePath)
  })().catch((error: unknown) =>
    interruption.aborted ? null : `Could not tell whether the checks changed the workspace while they ran: ${(error as Error).message.split('\n')[0]}`,
  )
  try {
    return await Promise.race([drift, interrupted])
  } finally {
    if (stop) interruption.removeEventListener('abort', stop)
  }
}

/**
 * The run's summary, verdict and evidence record once every check has settled. `interrupted()` is read once the drift
 * check is over, so a signal during it makes the record an interrupted one.
 */
export async function finaliseRun(
  plan: RunPlan,
  supervision: { signal: AbortSignal; interrupted(): Signal | null },
  runWarnings: readonly string[],
): Promise<Finalised> {
  const { checklist, workspace } = plan
  const trail = [...runWarnings]
  // Only checks that ran could have changed the workspace.
  if (checklist.results.some((r) => r.evidence && !r.evidence.reused && r.evidence.command !== null)) {
    const drift = await driftWarning(plan, supervision.signal)
    if (drift) trail.push(drift)
  }
  const interrupted = supervision.interrupted()
  // Tracked files verify writes (an evidence file committed as proof) make the next command find the code changed.
  const tracked = ownFilesTrackedWarning(checklist.protocol.rootDir, plan.context.evidencePath, trackedLeftOut(workspace.workspace))
  if (tracked && !trail.includes(tracked)) trail.push(tracked)
  const finalised = record(plan, interrupted, { lead: [...plan.prior.warnings, ...plan.notes], trail })
  // The next commands as they must be typed: with this run's protocol, config, folder and evidence file.
  for (const summary of new Set([finalised.summary, finalised.record.summary])) {
    summary.recommendations = summary.recommendations.map((recommendation) => inContext(recommendation, plan.given))
  }
  // What the evidence can say of its outputs before they are written: the copies of itself, the unchanged ones.
  const known = await describeOutputs(plan.context.evidencePath, workspace.carried, copiesOf(plan))
  if (known.length > 0) finalised.record.workspace = { ...finalised.record.workspace, outputs: known }
  return finalised
}

/** The reports that are copies of the evidence file (json): recognised by content, whatever it holds later. */
export function copiesOf(plan: RunPlan): string[] {
  return plan.reports.filter((report) => report.copy).map((report) => report.file)
}

/**
 * A second signal: what had not settled is cancelled (a written file never holds `running` or `pending`) and the
 * evidence is written at once, synchronously, before verify exits.
 */
export function writeInterruptedEvidence(plan: RunPlan, interrupted: Signal, rawIO: CliIO): void {
  const { checklist, context } = plan
  for (const result of checklist.results) {
    if (result.status === 'running' || result.status === 'pending') Object.assign(result, { status: 'cancelled', reason: `interrupted by ${interrupted}` })
  }
  const shown = relative(rawIO.cwd, context.evidencePath) || context.evidencePath
  let where = `evidence in ${shown}`
  // In a signal handler, just before exiting: whatever fails here is said, never thrown.
  let verdict = 'incomplete'
  try {
    const finalised = record(plan, interrupted, {})
    verdict = finalised.verdict
    writeEvidenceFileSync(context.evidencePath, sealEvidence(finalised.record, context.redact, context.signingKey))
  } catch (error) {
    rawIO.stderr(`verify: cannot write the evidence at ${context.evidencePath} (${(error as Error).message})\n`)
    where = 'no evidence written'
  }
  // No reporter gets to finish: this line is what a person sees before the prompt comes back.
  const counts = new Map<string, number>()
  for (const result of checklist.results) counts.set(result.status, (counts.get(result.status) ?? 0) + 1)
  const tally = [...counts]
    .toSorted(([a], [b]) => Number(b === 'passed') - Number(a === 'passed'))
    .map(([status, n]) => `${n} ${status.replaceAll('_', ' ')}`)
    .join(', ')
  rawIO.stderr(`verify: interrupted again (${interrupted}): stopped at once. ${tally} of ${checklist.results.length} checks; ${verdict}, ${where}.\n`)
}
