// `verify merge <files…>`: combines the evidence of a protocol's shards into one file and one verdict (the reading and
// combining in evidence/shards.ts, the judging in verdict/merge.ts), writes it under the lock and prints the verdict.
import { dirname, resolve } from 'node:path'
import pc from 'picocolors'
import { evidenceLocationProblem } from '../evidence/location.js'
import { sealEvidence } from '../evidence/sign.js'
import { mergedOutputs, readShards, type ShardFile } from '../evidence/shards.js'
import { writeEvidenceFile } from '../evidence/store.js'
import { commandWorkspace } from '../evidence/workspace.js'
import { VerifyUsageError } from '../errors.js'
import { verdictLine } from '../reporters/status.js'
import { useColor } from '../reporters/select.js'
import { untrusted } from '../reporters/safe-text.js'
import { mergeShards } from '../verdict/merge.js'
import { duration, parse } from './args.js'
import { commandContext, maskedIO } from './context.js'
import { exitCodeOfVerdict } from './exit-code.js'
import type { CliIO } from './io.js'
import { MERGE_FLAGS } from './flags.js'
import { lockEvidence } from './lock.js'

export async function mergeCommand(argv: string[], rawIO: CliIO): Promise<number> {
  const { values, positionals } = parse('merge', argv, MERGE_FLAGS)
  if (positionals.length === 0)
    throw new VerifyUsageError("verify merge needs the shards' evidence files: `verify merge shard-1.json shard-2.json --evidence .verify/evidence.json`")
  const files = await readShards(rawIO.cwd, positionals)
  const maxAgeMs = duration('max-age', values['max-age'])
  // The protocol the shards ran, as the checkout (or the trusted ref) defines it now.
  const context = await commandContext(rawIO, values, (files[0] as ShardFile).file.protocol.name, maxAgeMs === undefined ? {} : { maxAgeMs })
  const io = maskedIO(rawIO, context.redact)
  // The shards' files and what verify wrote beside them are verify's own output, not code: left out (while untracked).
  const shards = files.map((f) => ({ ...f, path: resolve(rawIO.cwd, f.path) }))
  // A file of the project's own, or a place that cannot take the evidence, is refused as `verify run` refuses it.
  const unwritable = evidenceLocationProblem(context.evidencePath, context.logDir)
  if (unwritable) throw new VerifyUsageError(unwritable)
  // Written over, a shard would be lost: a second merge could no longer be made from the same shards.
  const overwritten = shards.find((f) => f.path === context.evidencePath)
  if (overwritten)
    throw new VerifyUsageError(
      `Cannot merge into ${overwritten.path}: it is one of the shards being merged. Name another file with --evidence (default .verify/evidence.json).`,
    )
  const outputs = await mergedOutputs(context.evidencePath, shards)
  const evidenceDir = dirname(context.evidencePath)
  const writes = [...shards.map((f) => f.path), ...outputs.map((o) => resolve(evidenceDir, o.path))]
  const { workspace } = await commandWorkspace(context, { writes })
  const judged = await mergeShards(context.loaded.protocol, files, workspace, { signingKey: context.signingKey, outputs })
  const { summary } = judged
  const merged = sealEvidence(judged, context.redact, context.signingKey)
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
  io.stdout(
    ` ${c.dim('Checks ')} ${summary.passed} passed · ${summary.failed} failed · ${summary.skipped} skipped · ${summary.cancelled ? `${summary.cancelled} cancelled · ` : ''}${summary.pending} pending (${summary.total})\n`,
  )
  io.stdout(` ${c.dim('Verdict')} ${verdictLine(summary.verdict, c)}\n`)
  for (const issue of summary.issues) io.stdout(`   ${c.red('•')} ${untrusted(issue)}\n`)
  for (const recommendation of summary.recommendations) io.stdout(`   ${c.cyan('→')} ${untrusted(recommendation)}\n`)
  io.stdout(` ${c.dim('Evidence')} ${untrusted(context.evidencePath)}\n`)
  return exitCodeOfVerdict(summary.verdict)
}
