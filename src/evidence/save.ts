// Writes a run's evidence file as every command does: masked, signed when a key is set, atomically, this run's logs
// giving way on a full disk. The caller holds the evidence file's lock (see lock.ts).
import type { EvidenceFile } from '../types.js'
import { writeEvidenceMakingRoom } from './room.js'
import type { EvidenceSession } from './session.js'
import { sealEvidence } from './sign.js'

/** Masks secrets everywhere in the file, signs it when a key is set, and writes it atomically; returns what was written. */
export async function saveEvidence(
  session: Pick<EvidenceSession, 'evidencePath' | 'logDir' | 'redact' | 'signingKey'>,
  file: EvidenceFile,
): Promise<EvidenceFile> {
  return writeEvidenceMakingRoom(session.evidencePath, file, (f) => sealEvidence(f, session.redact, session.signingKey), session.logDir)
}
