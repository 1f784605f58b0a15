// Manual approvals: who approved which check, bound to the code and the check definition they saw.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { canonicalJson } from './canonical.js'
import { readSmallJson, writeFilesAtomic } from './store.js'

/** approvals.json is a few hundred bytes per check: anything far larger is not one. */
const MAX_APPROVALS_BYTES = 4 * 1024 * 1024

export interface Approval {
  /** The check it was given for; part of what a key signs, so an approval cannot be moved to another check. */
  checkId?: string
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
    typeof a.evidenceType === 'string' &&
    (a.note === null || typeof a.note === 'string') &&
    (a.checkId === undefined || typeof a.checkId === 'string') &&
    (a.signature === undefined || typeof a.signature === 'string')
  )
}

/** Check id → approval. A Map: ids such as `constructor` or `__proto__` are ordinary keys. */
export type Approvals = Map<string, Approval>

/** Reads the approvals; a missing or unreadable file means none (an approval must be given again, never invented). */
export async function readApprovals(path: string): Promise<Approvals> {
  const data = await readSmallJson(path, MAX_APPROVALS_BYTES)
  const approvals = (data as ApprovalsFile | null)?.approvals
  if (!approvals || typeof approvals !== 'object') return new Map()
  // Object.entries lists own keys only: nothing inherited is read as an approval.
  return new Map(Object.entries(approvals).filter(([, value]) => isApproval(value)))
}

/** The approvals file's JSON text with `approval` recorded (or replaced) for one check. */
export function approvalsText(approvals: ReadonlyMap<string, Approval>, checkId: string, approval: Approval): string {
  const next = new Map(approvals).set(checkId, approval)
  // JSON.parse of this text defines `__proto__` as an own key again, as Object.fromEntries does here.
  return `${JSON.stringify({ schemaVersion: 1, approvals: Object.fromEntries(next) } satisfies ApprovalsFile, null, 2)}\n`
}

/** Records (or replaces) the approval of one check. */
export async function recordApproval(path: string, checkId: string, approval: Approval): Promise<void> {
  const approvals = await readApprovals(path)
  await writeFilesAtomic([{ target: path, text: approvalsText(approvals, checkId, approval) }])
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
export function trustedApprovals(approvals: ReadonlyMap<string, Approval>, key: string | undefined): Approvals {
  if (!key) return new Map(approvals)
  return new Map(
    [...approvals].filter(([, approval]) => {
      if (typeof approval.signature !== 'string' || !/^[0-9a-f]{64}$/.test(approval.signature)) return false
      return timingSafeEqual(Buffer.from(approvalMac(approval, key), 'hex'), Buffer.from(approval.signature, 'hex'))
    }),
  )
}
