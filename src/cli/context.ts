// What every command that reads or writes evidence needs: the resolved protocol, the paths, the secrets to mask.
import type { ProtocolOverrides } from '../config/normalize.js'
import type { Redactor } from '../evidence/redact.js'
import { openEvidenceSession, type EvidenceSession } from '../evidence/session.js'
import { newerStoredRecords } from '../evidence/concurrent.js'
import { withEvidenceLock } from '../evidence/lock.js'
import { writeEvidenceMakingRoom } from '../evidence/room.js'
import { sealEvidence, verifySignature } from '../evidence/sign.js'
import { readEvidenceFile } from '../evidence/store.js'
import { summarize } from '../verdict/summary.js'
import type { EvidenceFile } from '../types.js'
import type { CliIO } from './io.js'
import { safeIO } from './output.js'

/** Flags shared by every command that loads the config and finds the evidence. */
export const CONFIG_OPTIONS = {
  evidence: { type: 'string' },
  config: { type: 'string' },
  cwd: { type: 'string' },
} as const

export type CommandContext = EvidenceSession

export async function commandContext(
  io: CliIO,
  values: { evidence?: string | undefined; config?: string | undefined; cwd?: string | undefined; 'protocol-from'?: string | undefined },
  protocol: string | undefined,
  overrides: ProtocolOverrides = {},
): Promise<CommandContext> {
  return openEvidenceSession({
    cwd: io.cwd,
    env: io.env,
    configDir: values.cwd,
    configFile: values.config,
    evidence: values.evidence,
    protocol,
    protocolFrom: values['protocol-from'],
    overrides,
  })
}

/**
 * Masks secrets everywhere in the file, signs it when a key is set, and writes it atomically (this run's logs give
 * way on a full disk), under the evidence file's lock. Records another writer (a test runner's reporter) stored
 * meanwhile are kept when newer.
 */
export async function saveEvidence(context: CommandContext, file: EvidenceFile): Promise<EvidenceFile> {
  return withEvidenceLock(context.evidencePath, async () => {
    const stored = await readEvidenceFile(context.evidencePath)
    const trusted = stored.ok && (!context.signingKey || verifySignature(stored.file, context.signingKey).valid)
    const checks = stored.ok && trusted ? newerStoredRecords(file, stored.file) : null
    const merged = checks ? { ...file, checks, summary: { ...summarize(checks, file.protocol.strictMode), warnings: file.summary.warnings } } : file
    return writeEvidenceMakingRoom(context.evidencePath, merged, (f) => sealEvidence(f, context.redact, context.signingKey), context.logDir)
  })
}

/** The IO with every printed byte masked with `redact` and defused (see output.ts). */
export function maskedIO(io: CliIO, redact: Redactor): CliIO {
  return safeIO(io, redact)
}
