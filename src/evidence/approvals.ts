// Manual approvals: who approved which check, bound to the code and the check definition they saw.
import { readFile } from 'node:fs/promises'
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
