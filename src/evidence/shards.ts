// The evidence files of a protocol's shards (`verify run --shard i/n`), read and combined into one file before it is
// judged: which files belong together, each check's record from the shard that ran it, and what verify wrote beside
// them. Judging the combined file is the verdict layer's (verdict/merge.ts).
import { resolve } from 'node:path'
import { VerifyUsageError } from '../errors.js'
import type { EvidenceFile, OutputFile, WrittenCheckResult } from '../types.js'
import { besideEvidence, describeOutputs, unchangedOutputs } from './outputs.js'
import { readEvidenceFile } from './store.js'

/** A shard's evidence file and the path it was read from (as given, for messages). */
export type ShardFile = { path: string; file: EvidenceFile }

/** Why these shard files cannot be merged, or null when they can. */
export function mergeProblem(files: readonly ShardFile[]): string | null {
  const [first] = files
  if (!first) return 'no evidence files given'
  for (const { path, file } of files) {
    if (!file.shard) return `${path} is not a shard's evidence (it has no "shard" field): run the shards with \`verify run --shard i/n\``
    if (file.protocol.digest !== first.file.protocol.digest) {
      return `${path} is from a different protocol definition (${file.protocol.name} ${file.protocol.digest.slice(0, 19)}…) than ${first.path} (${first.file.protocol.name} ${first.file.protocol.digest.slice(0, 19)}…): every shard must run the same protocol`
    }
    if (file.workspace.fingerprint !== first.file.workspace.fingerprint) {
      return `${path} verified different code (workspace ${file.workspace.fingerprint.slice(0, 19)}…) than ${first.path} (${first.file.workspace.fingerprint.slice(0, 19)}…): every shard must run on the same commit and tree`
    }
    if (file.shard.total !== first.file.shard?.total)
      return `${path} is shard ${file.shard.index}/${file.shard.total}, ${first.path} is of ${first.file.shard?.total}`
  }
  const seen = new Map<number, string>()
  for (const { path, file } of files) {
    const other = seen.get(file.shard?.index ?? 0)
    if (other) return `${path} and ${other} are both shard ${file.shard?.index}/${file.shard?.total}`
    seen.set(file.shard?.index ?? 0, path)
  }
  return null
}

/** The shards' records in one file, not yet judged: each check's record comes from the shard that ran it. */
export function combineShards(files: readonly ShardFile[]): EvidenceFile {
  const first = (files[0] as ShardFile).file
  const owner = new Map<string, WrittenCheckResult>()
  for (const { file } of files) {
    for (const result of file.checks) if (file.shard?.checks.includes(result.id)) owner.set(result.id, result)
  }
  const checks = first.checks.map(
    (result) => owner.get(result.id) ?? { ...result, status: 'skipped' as const, reason: "its shard's evidence was not merged", evidence: null },
  )
  const times = (key: 'startedAt' | 'finishedAt') => files.map(({ file }) => file[key]).toSorted((a, b) => Date.parse(a) - Date.parse(b))
  const { signature: _unsigned, shard: _shard, ...rest } = first
  return { ...rest, startedAt: times('startedAt')[0] ?? first.startedAt, finishedAt: times('finishedAt').at(-1) ?? first.finishedAt, checks }
}

/** Reads the shards' files (paths relative to `cwd`); throws VerifyUsageError when one cannot be read or they do not belong together. */
export async function readShards(cwd: string, paths: readonly string[]): Promise<ShardFile[]> {
  const files: ShardFile[] = []
  for (const path of paths) {
    const read = await readEvidenceFile(resolve(cwd, path))
    if (!read.ok) throw new VerifyUsageError(`Cannot merge: ${read.reason}`)
    files.push({ path, file: read.file })
  }
  const problem = mergeProblem(files)
  if (problem) throw new VerifyUsageError(`Cannot merge: ${problem}`)
  return files
}

/**
 * What a merged evidence file at `target` records as verify's outputs: the shards' files, what verify wrote beside
 * them (logs, approvals) and the outputs they recorded that are still unchanged — so that `verify check` of the
 * merged file leaves them out as each shard's run did. `shards` paths are absolute.
 */
export async function mergedOutputs(target: string, shards: readonly ShardFile[]): Promise<OutputFile[]> {
  const files: string[] = []
  for (const { path, file } of shards) {
    files.push(
      ...(await besideEvidence(
        path,
        file.checks.map((c) => c.id),
      )),
      ...(await unchangedOutputs(path, file)),
    )
  }
  return describeOutputs(
    target,
    files.filter((file) => file !== target),
  )
}
