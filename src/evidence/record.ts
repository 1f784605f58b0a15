// Assembles the evidence file (SPEC §5) from a finished checklist.
import type { Checklist, EvidenceFile, Summary } from '../types.js'
import { TOOL } from '../version.js'
import { protocolDigest } from './digest.js'

export function buildEvidenceFile(checklist: Checklist, summary: Summary, interrupted?: string | null): EvidenceFile {
  const { protocol } = checklist
  const now = new Date().toISOString()
  const file: EvidenceFile = {
    schemaVersion: 1,
    tool: { ...TOOL },
    protocol: { name: protocol.name, digest: protocolDigest(protocol), strictMode: protocol.strictMode },
    workspace: checklist.workspace ?? { fingerprint: 'sha256:unknown', git: null },
    runId: checklist.runId,
    startedAt: checklist.startedAt ?? now,
    finishedAt: checklist.finishedAt ?? now,
    checks: checklist.results.map((result) => ({ ...result })),
    summary,
  }
  if (interrupted) file.interrupted = interrupted
  return file
}
