// The evidence file's lock (evidence/lock.ts), as the test-runner integrations take it: they wait for a `verify` run
// that holds it (bounded), so its record and theirs both end up in the file.
import { acquireEvidenceLock } from '../evidence/lock.js'

/** Longest wait for another writer: a `verify run` holds the lock for its whole run. */
const WAIT_MS = 30 * 60_000

export async function withEvidenceLock<T>(evidencePath: string, command: string, fn: () => Promise<T>): Promise<T> {
  const lock = await acquireEvidenceLock(evidencePath, { command, waitMs: WAIT_MS })
  try {
    return await fn()
  } finally {
    lock.release()
  }
}
