// Manual approvals: who approved which check, bound to the code and the check definition they saw.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { VerifyError } from '../errors.js'
import { canonicalJson } from './canonical.js'
import { displayPath, firstIssue, readSmallJson, writeFilesAtomic } from './store.js'

/** approvals.json is a few hundred bytes per check: anything far larger is not one. */
const MAX_APPROVALS_BYTES = 4 * 1024 * 1024

const approvalSchema = z.object({
  /** The check it was given for; part of what a key signs, so an approval cannot be moved to another check. */
  checkId: z.string().optional(),
  by: z.string(),
  note: z.string().nullable(),
  /** ISO time of the approval. */
  timestamp: z.string(),
  /** The workspace (or the check's inputs) the approval was given for. */
  fingerprint: z.string(),
  checkDigest: z.string(),
  evidenceType: z.string(),
  /** Given at an interactive terminal (stdin and stdout both a TTY); false for scripts and agents' shells. */
  tty: z.boolean().optional(),
  /** HMAC-SHA256 of the approval, when VERIFY_SIGNING_KEY was set: where a key is in use, only signed approvals count. */
  signature: z.string().optional(),
})

/** `.verify/approvals.json`: each manual check's approval, by check id (`verify schema approvals`). */
export const approvalsFileSchema = z
  .object({ schemaVersion: z.literal(1), approvals: z.record(z.string(), approvalSchema) })
  .meta({ title: 'verify-protocol approvals file', description: 'What `verify approve` writes to .verify/approvals.json (SPEC §8)' })

/** A person's approval of one manual check, bound to the code and the check's definition they saw. */
export type Approval = z.output<typeof approvalSchema>
export type ApprovalsFile = z.output<typeof approvalsFileSchema>

/** Check id → approval. A Map: ids such as `constructor` or `__proto__` are ordinary keys. */
export type Approvals = Map<string, Approval>

/**
 * Reads the approvals: none when the file is missing. A file that cannot be read as approvals (not JSON, another
 * shape, a field of the wrong type) throws a VerifyError that names it: it is never read as none, so that nothing
 * writes over the approvals it holds.
 */
export async function readApprovals(path: string): Promise<Approvals> {
  const read = await readSmallJson(path, MAX_APPROVALS_BYTES)
  if (!read.ok && read.missing) return new Map()
  const problem = read.ok ? shapeProblem(read.data) : read.reason
  if (!read.ok || problem !== null) {
    throw new VerifyError(
      'E_EVIDENCE',
      `approvals file ${displayPath(path)} ${problem}. verify leaves it as it is: fix it, or move it aside and approve the manual checks again (\`npx verify approve <checkId>\`).`,
    )
  }
  // Entries as written, fields this version does not know included: they are signed, and kept when the file is rewritten.
  return new Map(Object.entries((read.data as ApprovalsFile).approvals))
}

function shapeProblem(data: unknown): string | null {
  const parsed = approvalsFileSchema.safeParse(data)
  if (!parsed.success) return `is not a valid approvals file (${firstIssue(parsed.error)})`
  // Object.entries lists own keys only, `__proto__` included, which a zod record passes over: each entry is checked.
  for (const [id, value] of Object.entries((data as ApprovalsFile).approvals)) {
    const entry = approvalSchema.safeParse(value)
    if (!entry.success)
      return `is not a valid approvals file (${firstIssue({ issues: entry.error.issues.map((i) => ({ ...i, path: ['approvals', id, ...i.path] })) })})`
  }
  return null
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
