// `verify merge`: the shards' evidence judged as one file. Every shard must be trusted as a file (with a key, signed
// with it: the merged file is signed, so an unsigned or altered shard would come out looking genuine); the combined
// records are then judged by the acceptance rule against the checkout the merge runs in, the clock and the config.
import { combineShards, type ShardFile } from '../evidence/shards.js'
import { VerifyUsageError } from '../errors.js'
import type { EvidenceFile, OutputFile, ResolvedProtocol, WorkspaceInfo } from '../types.js'
import { judgeEvidenceFile } from './evidence-file.js'
import { keepRecorded } from './restate.js'
import { summarize } from './summary.js'
import { acceptStoredEvidence } from './validate.js'

export interface MergeOptions {
  signingKey: string | undefined
  /** What the merged file records as verify's outputs (see evidence/shards.ts `mergedOutputs`). */
  outputs: OutputFile[]
}

/** The merged evidence file, judged and summarised, not yet sealed. Throws VerifyUsageError for a shard that is not to be trusted. */
export async function mergeShards(
  protocol: ResolvedProtocol,
  files: readonly ShardFile[],
  workspace: WorkspaceInfo,
  options: MergeOptions,
): Promise<EvidenceFile> {
  for (const { path, file } of files) {
    const judged = judgeEvidenceFile(file, { protocol: protocol.name, signingKey: options.signingKey, shard: 'any' })
    if (judged.tampered) throw new VerifyUsageError(`Cannot merge ${path}: ${judged.issues.join('; ')}`)
  }
  const combined = combineShards(files)
  const judged = await acceptStoredEvidence(protocol, combined, workspace, { maxAgeMs: protocol.maxAgeMs })
  // A check without evidence keeps what its shard recorded (skipped after a failed dependency, not merged…).
  const checks = keepRecorded(judged.results, combined.checks, "no shard's evidence holds it")
  const summary = summarize(checks, protocol.strictMode)
  const total = files[0]?.file.shard?.total ?? files.length
  if (files.length < total) summary.issues.unshift(`Only ${files.length} of ${total} shards were merged`)
  return { ...combined, workspace: { ...combined.workspace, outputs: options.outputs }, checks, summary }
}
