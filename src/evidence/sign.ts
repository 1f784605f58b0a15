// HMAC-SHA256 over the canonical JSON of an evidence file: only a holder of VERIFY_SIGNING_KEY can produce it.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { EvidenceFile } from '../types.js'
import { canonicalJson } from './canonical.js'
import { redactDeep, type Redactor } from './redact.js'

export const SIGNING_KEY_ENV = 'VERIFY_SIGNING_KEY'

function mac(file: EvidenceFile, key: string): string {
  const { signature: _ignored, ...unsigned } = file
  return createHmac('sha256', key).update(canonicalJson(unsigned)).digest('hex')
}

/** Returns the file with its signature set (any previous signature replaced). */
export function signEvidence(file: EvidenceFile, key: string): EvidenceFile {
  return { ...file, signature: { alg: 'hmac-sha256', value: mac(file, key) } }
}

export type SignatureCheck = { valid: true } | { valid: false; reason: string }

/** Checks the file's signature with the key; unsigned, malformed, altered or wrongly keyed evidence is invalid. */
export function verifySignature(file: EvidenceFile, key: string | undefined): SignatureCheck {
  // Read as untrusted input: the file may hold anything under "signature".
  const signature = (file as { signature?: unknown }).signature
  // First: without a signature, no key would help.
  if (signature === undefined) return { valid: false, reason: 'the evidence is not signed' }
  if (!key) return { valid: false, reason: `${SIGNING_KEY_ENV} is not set, so the signature cannot be checked` }
  if (typeof signature !== 'object' || signature === null || Array.isArray(signature)) {
    return { valid: false, reason: `the signature is malformed (${JSON.stringify(signature)}): expected {"alg": "hmac-sha256", "value": "<64 hex digits>"}` }
  }
  const { alg, value } = signature as { alg?: unknown; value?: unknown }
  if (alg !== 'hmac-sha256') return { valid: false, reason: `unknown signature algorithm ${JSON.stringify(alg) ?? 'none'}: verify signs with "hmac-sha256"` }
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value)) return { valid: false, reason: 'the signature value is malformed: expected 64 hex digits' }
  const expected = Buffer.from(mac(file, key), 'hex')
  if (!timingSafeEqual(Buffer.from(value, 'hex'), expected)) {
    return { valid: false, reason: 'the signature does not match: the evidence was altered or signed with another key' }
  }
  return { valid: true }
}

/**
 * The file as it may be written: secrets masked everywhere, then signed when a key is set (so masking is signed too).
 * Without a key any signature it carried is dropped: it would no longer match what is written.
 */
export function sealEvidence(file: EvidenceFile, redact: Redactor, key: string | undefined): EvidenceFile {
  const { signature: _stale, ...unsigned } = file
  const masked = redactDeep(unsigned, redact)
  return key ? signEvidence(masked, key) : masked
}
