// The workspace as a command sees it: the fingerprint, with what verify itself writes left out (SPEC §7).
import type { EvidenceFile, WorkspaceInfo } from '../types.js'
import { workspaceFingerprint } from './fingerprint.js'
import { findRepo, type Repo } from './git-tree.js'
import { besideEvidence, siblingEvidence, unchangedOutputs } from './outputs.js'
import type { EvidenceSession } from './session.js'
import { verifySignature } from './sign.js'

export interface CommandWorkspace {
  workspace: WorkspaceInfo
  /** What was left out (absolute paths): pass it again to fingerprint the same workspace later in the run. */
  leaveOut: string[]
  /** Outputs the evidence recorded that are still unchanged: a new evidence file records them again. */
  carried: string[]
  /** The repository the fingerprint was computed in: a later fingerprint of the same run asks git no more for it. */
  repo: Promise<Repo | null>
}

export interface WorkspaceSources {
  /** The evidence file this command reads: its recorded outputs are left out while their content is unchanged. */
  recorded?: EvidenceFile | null | undefined
  /** Files this command itself writes, such as reporter outputs. */
  writes?: readonly string[]
  /** askRepo's answer, asked before the evidence file was read. */
  repo?: Promise<Repo | null>
}

/**
 * The repository of the project, asked of git at once: a command that reads its evidence file before it fingerprints
 * asks both at the same time (after taking the lock, when it takes one: the answer names HEAD as it is then).
 */
export function askRepo(context: Pick<EvidenceSession, 'loaded'>): Promise<Repo | null> {
  const repo = findRepo(context.loaded.protocol.rootDir)
  repo.catch(() => undefined) // met again by the fingerprint, or dropped with a command that ends before it
  return repo
}

/**
 * Fingerprints the project, leaving out (when git does not track them) the evidence file of this command and what
 * verify writes beside it, other shards' evidence files beside it, the files this command writes, and the outputs
 * the evidence recorded — these only from evidence this command trusts (signed, when a key is set) and only while
 * their content is what verify wrote.
 */
export async function commandWorkspace(
  context: Pick<EvidenceSession, 'loaded' | 'evidencePath' | 'signingKey'>,
  sources: WorkspaceSources = {},
): Promise<CommandWorkspace> {
  const { protocol } = context.loaded
  const recorded = sources.recorded
  const trusted = recorded && (!context.signingKey || verifySignature(recorded, context.signingKey).valid) ? recorded : null
  const [beside, siblings, carried] = await Promise.all([
    besideEvidence(
      context.evidencePath,
      protocol.checks.map((c) => c.id),
    ),
    siblingEvidence(context.evidencePath),
    unchangedOutputs(context.evidencePath, trusted),
  ])
  const leaveOut = [...beside, ...siblings, ...(sources.writes ?? []), ...carried]
  const repo = sources.repo ?? askRepo(context)
  return { workspace: await workspaceFingerprint(protocol.rootDir, { leaveOut, repo }), leaveOut, carried, repo }
}
