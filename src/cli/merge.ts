// `verify merge <files…>`: combines the evidence of a protocol's shards into one file and one verdict. Every shard is
// judged by the acceptance rule against the checkout the merge runs in, the clock and, with a key, its signature:
// shards of other code, expired shards and altered ones do not approve.
import { dirname, resolve } from 'node:path'
import pc from 'picocolors'
import { sealEvidence } from '../evidence/sign.js'
import { readEvidenceFile, writeEvidenceFile } from '../evidence/store.js'
import { VerifyUsageError } from '../errors.js'
import { verdictLine } from '../reporters/status.js'
import { useColor } from '../reporters/select.js'
import { untrusted } from '../reporters/safe-text.js'
import type { CheckResult, EvidenceFile } from '../types.js'
import { judgeEvidenceFile } from '../verdict/evidence-file.js'
import { summarize } from '../verdict/summary.js'
import { acceptStoredEvidence } from '../verdict/validate.js'
import { duration, parse } from './args.js'
import { CONFIG_OPTIONS, commandContext, maskedIO } from './context.js'
import { exitCodeOfVerdict } from './exit-code.js'
import type { CliIO } from './io.js'
import { commandWorkspace, mergedOutputs } from './workspace.js'
import { lockEvidence, optionalWaitValue } from './lock.js'

export const MERGE_OPTIONS = {
  ...CONFIG_OPTIONS,
  'protocol-from': { type: 'string' },
  'max-age': { type: 'string' },
  wait: { type: 'string' },
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

/** The shards' records in one file, not yet judged: each check's record comes from the shard that ran it. */
export function combineShards(files: readonly Loaded[]): EvidenceFile {
  const first = (files[0] as Loaded).file
  const owner = new Map<string, CheckResult>()
  for (const { file } of files) {
    for (const result of file.checks) if (file.shard?.checks.includes(result.id)) owner.set(result.id, result)
  }
  const checks = first.checks.map((result) => owner.get(result.id) ?? { ...result, status: 'skipped' as const, reason: "its shard's evidence was not merged", evidence: null })
  const times = (key: 'startedAt' | 'finishedAt') => files.map(({ file }) => file[key]).toSorted((a, b) => Date.parse(a) - Date.parse(b))
  const { signature: _unsigned, shard: _shard, ...rest } = first
  return { ...rest, startedAt: times('startedAt')[0] ?? first.startedAt, finishedAt: times('finishedAt').at(-1) ?? first.finishedAt, checks }
}

async function readShards(cwd: string, paths: readonly string[]): Promise<Loaded[]> {
  const files: Loaded[] = []
  for (const path of paths) {
    const read = await readEvidenceFile(resolve(cwd, path))
    if (!read.ok) throw new VerifyUsageError(`Cannot merge: ${read.reason}`)
    files.push({ path, file: read.file })
  }
  const problem = mergeProblem(files)
  if (problem) throw new VerifyUsageError(`Cannot merge: ${problem}`)
  return files
}

export async function mergeCommand(argv: string[], rawIO: CliIO): Promise<number> {
  const { values, positionals } = parse('merge', optionalWaitValue(argv), MERGE_OPTIONS)
  if (positionals.length === 0) throw new VerifyUsageError('verify merge needs the shards\' evidence files: `verify merge shard-1.json shard-2.json --evidence .verify/evidence.json`')
  const files = await readShards(rawIO.cwd, positionals)
  const first = (files[0] as Loaded).file
  const maxAgeMs = duration('max-age', values['max-age'])
  // The protocol the shards ran, as the checkout (or the trusted ref) defines it now.
  const context = await commandContext(rawIO, values, first.protocol.name, maxAgeMs === undefined ? {} : { maxAgeMs })
  const io = maskedIO(rawIO, context.redact)
  const { protocol } = context.loaded
  // With a key, every shard must carry a valid signature: the merged file is signed, so an unsigned or altered shard
  // would come out looking genuine.
  for (const { path, file } of files) {
    const judged = judgeEvidenceFile(file, { protocol: protocol.name, signingKey: context.signingKey, shard: 'any' })
    if (judged.tampered) throw new VerifyUsageError(`Cannot merge ${path}: ${judged.issues.join('; ')}`)
  }
  const combined = combineShards(files)
  // The shards' files and what verify wrote beside them are verify's own output, not code: left out (while untracked).
  const shards = files.map((f) => ({ ...f, path: resolve(rawIO.cwd, f.path) }))
  const outputs = await mergedOutputs(context.evidencePath, shards)
  const evidenceDir = dirname(context.evidencePath)
  const writes = [...shards.map((f) => f.path), ...outputs.map((o) => resolve(evidenceDir, o.path))]
  const { workspace } = await commandWorkspace(context, { writes })
  const judged = await acceptStoredEvidence(protocol, combined, workspace, { maxAgeMs: protocol.maxAgeMs })
  // A check without evidence keeps what its shard recorded (skipped after a failed dependency, not merged…).
  const recorded = new Map(combined.checks.map((r) => [r.id, r]))
  const checks = judged.results.map((result) =>
    result.status !== 'pending' ? result : (recorded.get(result.id) ?? { ...result, status: 'skipped' as const, reason: "no shard's evidence holds it" }),
  )
  const summary = summarize(checks, protocol.strictMode)
  const total = first.shard?.total ?? files.length
  if (files.length < total) summary.issues.unshift(`Only ${files.length} of ${total} shards were merged`)
  const merged = sealEvidence({ ...combined, workspace: { ...combined.workspace, outputs }, checks, summary }, context.redact, context.signingKey)
  const lock = await lockEvidence(io, context.evidencePath, values.wait, 'verify merge')
  const endSignals = lock.exitOnSignals()
  try {
    if (lock.note) io.stderr(`verify: ${lock.note}\n`)
    await writeEvidenceFile(context.evidencePath, merged)
  } finally {
    endSignals()
    lock.release()
  }
  const c = pc.createColors(useColor(io, values.color))
  io.stdout(`${c.bold('verify merge')} ${c.dim(`· ${files.length} shard${files.length === 1 ? '' : 's'} · protocol ${untrusted(merged.protocol.name)}`)}\n`)
  io.stdout(` ${c.dim('Checks ')} ${summary.passed} passed · ${summary.failed} failed · ${summary.skipped} skipped · ${summary.cancelled ? `${summary.cancelled} cancelled · ` : ''}${summary.pending} pending (${summary.total})\n`)
  io.stdout(` ${c.dim('Verdict')} ${verdictLine(summary.verdict, c)}\n`)
  for (const issue of summary.issues) io.stdout(`   ${c.red('•')} ${untrusted(issue)}\n`)
  for (const recommendation of summary.recommendations) io.stdout(`   ${c.cyan('→')} ${untrusted(recommendation)}\n`)
  io.stdout(` ${c.dim('Evidence')} ${untrusted(context.evidencePath)}\n`)
  return exitCodeOfVerdict(summary.verdict)
}
