// `verify merge <files…>`: combines the evidence of a protocol's shards into one file and one verdict.
import { resolve } from 'node:path'
import pc from 'picocolors'
import { createRedactor, secretValues } from '../evidence/redact.js'
import { sealEvidence, SIGNING_KEY_ENV, verifySignature } from '../evidence/sign.js'
import { readEvidenceFile, writeEvidenceFile } from '../evidence/store.js'
import { VerifyUsageError } from '../errors.js'
import { verdictLine } from '../reporters/status.js'
import { useColor } from '../reporters/select.js'
import type { CheckResult, EvidenceFile } from '../types.js'
import { summarize } from '../verdict/summary.js'
import { parse } from './args.js'
import { exitCodeOfVerdict } from './exit-code.js'
import type { CliIO } from './io.js'
import { mergedOutputs } from './workspace.js'

export const MERGE_OPTIONS = {
  evidence: { type: 'string' },
  color: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

type Loaded = { path: string; file: EvidenceFile }

/** Why these shard files cannot be merged, or null when they can. */
export function mergeProblem(files: readonly Loaded[]): string | null {
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
    if (file.shard.total !== first.file.shard?.total) return `${path} is shard ${file.shard.index}/${file.shard.total}, ${first.path} is of ${first.file.shard?.total}`
  }
  const seen = new Map<number, string>()
  for (const { path, file } of files) {
    const other = seen.get(file.shard?.index ?? 0)
    if (other) return `${path} and ${other} are both shard ${file.shard?.index}/${file.shard?.total}`
    seen.set(file.shard?.index ?? 0, path)
  }
  return null
}

/** One file from the shards: each check's result comes from the shard that ran it. */
export function mergeShards(files: readonly Loaded[]): EvidenceFile {
  const first = (files[0] as Loaded).file
  const owner = new Map<string, CheckResult>()
  for (const { file } of files) {
    for (const result of file.checks) if (file.shard?.checks.includes(result.id)) owner.set(result.id, result)
  }
  const checks = first.checks.map((result) => owner.get(result.id) ?? { ...result, status: 'skipped' as const, reason: 'its shard\'s evidence was not merged', evidence: null })
  const summary = summarize(checks, first.protocol.strictMode)
  const total = first.shard?.total ?? files.length
  if (files.length < total) summary.issues.unshift(`Only ${files.length} of ${total} shards were merged`)
  const times = files.map(({ file }) => file)
  const { signature: _unsigned, shard: _shard, ...rest } = first
  return {
    ...rest,
    startedAt: times.map((f) => f.startedAt).toSorted()[0] ?? first.startedAt,
    finishedAt: times.map((f) => f.finishedAt).toSorted().at(-1) ?? first.finishedAt,
    checks,
    summary,
  }
}

export async function mergeCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse('merge', argv, MERGE_OPTIONS)
  if (positionals.length === 0) throw new VerifyUsageError('verify merge needs the shards\' evidence files: `verify merge shard-1.json shard-2.json --evidence .verify/evidence.json`')
  const key = io.env[SIGNING_KEY_ENV] || undefined
  const files: Loaded[] = []
  for (const path of positionals) {
    const read = await readEvidenceFile(resolve(io.cwd, path))
    if (!read.ok) throw new VerifyUsageError(`Cannot merge: ${read.reason}`)
    // With a key, every shard must carry a valid signature: the merged file is signed, so an unsigned or altered
    // shard would come out looking genuine.
    if (key) {
      const signature = verifySignature(read.file, key)
      if (!signature.valid) throw new VerifyUsageError(`Cannot merge ${path}: ${signature.reason}`)
    }
    files.push({ path, file: read.file })
  }
  const problem = mergeProblem(files)
  if (problem) throw new VerifyUsageError(`Cannot merge: ${problem}`)
  const redact = createRedactor(secretValues(io.env))
  const out = resolve(io.cwd, values.evidence ?? '.verify/evidence.json')
  const combined = mergeShards(files)
  const merged = sealEvidence({ ...combined, workspace: { ...combined.workspace, outputs: await mergedOutputs(out, files.map((f) => ({ ...f, path: resolve(io.cwd, f.path) }))) } }, redact, key)
  await writeEvidenceFile(out, merged)
  const c = pc.createColors(useColor(io, values.color))
  const { summary } = merged
  io.stdout(`${c.bold('verify merge')} ${c.dim(`· ${files.length} shard${files.length === 1 ? '' : 's'} · protocol ${merged.protocol.name}`)}\n`)
  io.stdout(` ${c.dim('Checks ')} ${summary.passed} passed · ${summary.failed} failed · ${summary.skipped} skipped · ${summary.cancelled ? `${summary.cancelled} cancelled · ` : ''}${summary.pending} pending (${summary.total})\n`)
  io.stdout(` ${c.dim('Verdict')} ${verdictLine(summary.verdict, c)}\n`)
  for (const issue of summary.issues) io.stdout(`   ${c.red('•')} ${redact(issue)}\n`)
  io.stdout(` ${c.dim('Evidence')} ${out}\n`)
  return exitCodeOfVerdict(summary.verdict)
}
