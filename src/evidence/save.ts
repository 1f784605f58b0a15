// Writes a run's evidence file as every command does: under the evidence file's lock, keeping records another
// writer (a test runner's reporter) stored meanwhile when they are newer, masked, signed when a key is set, this
// run's logs giving way on a full disk.
import type { EvidenceFile } from '../types.js'
import { summarize } from '../verdict/summary.js'
import { newerStoredRecords } from './concurrent.js'
import { withEvidenceLock } from './lock.js'
import { writeEvidenceMakingRoom } from './room.js'
import type { EvidenceSession } from './session.js'
import { sealEvidence, verifySignature } from './sign.js'
import { readEvidenceFile } from './store.js'

/** Masks secrets everywhere in the file, signs it when a key is set, and writes it atomically; returns what was written. */
export async function saveEvidence(session: Pick<EvidenceSession, 'evidencePath' | 'logDir' | 'redact' | 'signingKey'>, file: EvidenceFile): Promise<EvidenceFile> {
  return withEvidenceLock(session.evidencePath, async () => {
    const stored = await readEvidenceFile(session.evidencePath)
    // With a key, records not signed with it are not carried into a file that will be.
    const trusted = stored.ok && (!session.signingKey || verifySignature(stored.file, session.signingKey).valid)
    const checks = stored.ok && trusted ? newerStoredRecords(file, stored.file) : null
    const merged = checks ? { ...file, checks, summary: { ...summarize(checks, file.protocol.strictMode), warnings: file.summary.warnings } } : file
    return writeEvidenceMakingRoom(session.evidencePath, merged, (f) => sealEvidence(f, session.redact, session.signingKey), session.logDir)
  })
}
