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

/** Checks the file's signature with the key; unsigned, altered or wrongly keyed evidence is invalid. */
export function verifySignature(file: EvidenceFile, key: string | undefined): SignatureCheck {
  if (!key) return { valid: false, reason: `${SIGNING_KEY_ENV} is not set, so the signature cannot be checked` }
  const signature = file.signature
  if (!signature || typeof signature.value !== 'string') return { valid: false, reason: 'the evidence is not signed' }
  if (signature.alg !== 'hmac-sha256') return { valid: false, reason: `unknown signature algorithm "${String(signature.alg)}"` }
  const expected = Buffer.from(mac(file, key), 'hex')
  const actual = Buffer.from(signature.value, 'hex')
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    return { valid: false, reason: 'the signature does not match: the evidence was altered or signed with another key' }
  }
  return { valid: true }
}

/** The file as it may be written: secrets masked everywhere, then signed when a key is set (so masking is signed too). */
export function sealEvidence(file: EvidenceFile, redact: Redactor, key: string | undefined): EvidenceFile {
  const masked = redactDeep(file, redact)
  return key ? signEvidence(masked, key) : masked
}
