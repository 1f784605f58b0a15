// What the acceptance rule asks of the file a record comes from, before any of its records counts (SPEC §6.1, §8):
// the protocol it was recorded for, a shard's share only where shards are merged, and — with a key set, or when a
// signature is required — a signature that verifies. Pure: it reads only what it is handed.
import { SIGNING_KEY_ENV, verifySignature } from '../evidence/sign.js'
import type { EvidenceFile } from '../types.js'

/** What the consumer of a stored file expects of it. */
export interface FileExpectations {
  /** The protocol being judged. */
  protocol: string
  /** With a key, only files signed with it are accepted, whatever the flags. */
  signingKey?: string | undefined
  /** `--require-signature`: a file that is not signed with the key is rejected, even without a key at hand. */
  requireSignature?: boolean
  /**
   * Which shard files are accepted: none (the default: a share of the protocol is not its evidence), `'any'` (where
   * shards are merged), or one shard (the same shard's own run, reusing its evidence).
   */
  shard?: 'any' | { index: number; total: number }
}

export interface FileJudgement {
  /** The file's records may count (each still judged on its own). */
  accepted: boolean
  /** The file failed its integrity check: a reason to reject, not only missing proof. */
  tampered: boolean
  issues: string[]
  /** One for each issue, in the same order. */
  recommendations: string[]
}

/** Judges a stored evidence file as a whole; its records are then judged one by one by `checkEvidence`. */
export function judgeEvidenceFile(file: EvidenceFile, expect: FileExpectations): FileJudgement {
  const judgement: FileJudgement = { accepted: true, tampered: false, issues: [], recommendations: [] }
  const refuse = (issue: string, recommendation: string, tampered = false) => {
    judgement.accepted = false
    judgement.tampered ||= tampered
    judgement.issues.push(issue)
    judgement.recommendations.push(recommendation)
  }
  if (expect.signingKey || expect.requireSignature) {
    const signature = verifySignature(file, expect.signingKey)
    if (!signature.valid) {
      const unsigned = (file as { signature?: unknown }).signature === undefined
      const how =
        !expect.signingKey && !unsigned
          ? `Set ${SIGNING_KEY_ENV} to the key the evidence was signed with`
          : `Record the evidence again where ${SIGNING_KEY_ENV} is set (the job that holds the key): \`npx verify run\``
      refuse(`the evidence file's signature: ${signature.reason}`, how, true)
    }
  }
  const name = file.protocol?.name
  if (name !== expect.protocol) {
    refuse(`the evidence file is for protocol "${String(name)}", not "${expect.protocol}"`, `Run \`npx verify run ${expect.protocol}\` to record its evidence`)
  }
  const shard = file.shard
  if (shard && !sameShard(shard, expect.shard)) {
    refuse(
      `the evidence file is shard ${shard.index}/${shard.total}'s share of the protocol, not evidence of the whole`,
      "Combine the shards' evidence files with `npx verify merge <files…>` and check the merged file",
    )
  }
  return judgement
}

function sameShard(shard: NonNullable<EvidenceFile['shard']>, expected: FileExpectations['shard']): boolean {
  if (expected === 'any') return true
  return expected !== undefined && expected.index === shard.index && expected.total === shard.total
}
