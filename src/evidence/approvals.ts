// Manual approvals: who approved which check, bound to the code and the check definition they saw.
import { readFile } from 'node:fs/promises'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { canonicalJson } from './canonical.js'
import { writeJsonAtomic } from './store.js'

export interface Approval {
  by: string
  note: string | null
  /** ISO time of the approval. */
  timestamp: string
  /** The workspace (or the check's inputs) the approval was given for. */
  fingerprint: string
  checkDigest: string
  evidenceType: string
  /** Given at an interactive terminal (stdin and stdout both a TTY); false for scripts and agents' shells. */
  tty?: boolean
  /** HMAC-SHA256 of the approval, when VERIFY_SIGNING_KEY was set: where a key is in use, only signed approvals count. */
  signature?: string
}

export interface ApprovalsFile {
  schemaVersion: 1
  approvals: Record<string, Approval>
}

function isApproval(value: unknown): value is Approval {
  const a = value as Approval
  return (
    !!a &&
    typeof a === 'object' &&
    typeof a.by === 'string' &&
    typeof a.timestamp === 'string' &&
    typeof a.fingerprint === 'string' &&
    typeof a.checkDigest === 'string' &&
    typeof a.evidenceType === 'string'
  )
}

/** Reads the approvals; a missing or unreadable file means none (an approval must be given again, never invented). */
export async function readApprovals(path: string): Promise<Record<string, Approval>> {
  let data: unknown
  try {
    data = JSON.parse(await readFile(path, 'utf8'))
  } catch {
    return {}
  }
  const approvals = (data as ApprovalsFile | null)?.approvals
  if (!approvals || typeof approvals !== 'object') return {}
  return Object.fromEntries(Object.entries(approvals).filter(([, value]) => isApproval(value)))
}

/** Records (or replaces) the approval of one check. */
export async function recordApproval(path: string, checkId: string, approval: Approval): Promise<void> {
  const approvals = await readApprovals(path)
  approvals[checkId] = approval
  await writeJsonAtomic(path, { schemaVersion: 1, approvals } satisfies ApprovalsFile)
}

function approvalMac(approval: Approval, key: string): string {
  const { signature: _ignored, ...unsigned } = approval
  return createHmac('sha256', key).update(canonicalJson(unsigned)).digest('hex')
}

/** The approval with its signature (with a key), or as it is (without). */
export function signApproval(approval: Approval, key: string | undefined): Approval {
  return key ? { ...approval, signature: approvalMac(approval, key) } : approval
}

/** With a key, keeps only the approvals signed with it: an approval written without the key proves nothing. */
export function trustedApprovals(approvals: Record<string, Approval>, key: string | undefined): Record<string, Approval> {
  if (!key) return approvals
  return Object.fromEntries(
    Object.entries(approvals).filter(([, approval]) => {
      if (typeof approval.signature !== 'string') return false
      const expected = Buffer.from(approvalMac(approval, key), 'hex')
      const actual = Buffer.from(approval.signature, 'hex')
      return actual.length === expected.length && timingSafeEqual(actual, expected)
    }),
  )
}
