// The evidence of a finished run is worth more than its full logs: when the disk is full, this run's logs
// are cut, largest first, until the evidence fits; each cut is recorded in the evidence.
import { readdirSync, statSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import { VerifyError } from '../errors.js'
import type { EvidenceFile } from '../types.js'
import { writeEvidenceFile } from './store.js'

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT'])

/** The evidence could not be written: `file` holds the results that were not saved, so they can still be shown. */
export class EvidenceNotWrittenError extends VerifyError {
  readonly file: EvidenceFile

  constructor(message: string, file: EvidenceFile, cause: unknown) {
    super('E_EVIDENCE', message, { cause })
    this.name = 'EvidenceNotWrittenError'
    this.file = file
  }
}

// Logs of the file's checks (`<id>.log`, `<id>.attempt-<n>.log`), largest first.
function logsBySize(logDir: string, file: EvidenceFile): { path: string; id: string }[] {
  let names: string[]
  try {
    names = readdirSync(logDir)
  } catch {
    return []
  }
  const found: { path: string; id: string; size: number }[] = []
  for (const check of file.checks) {
    for (const name of names) {
      if (name !== `${check.id}.log` && !(name.startsWith(`${check.id}.attempt-`) && name.endsWith('.log'))) continue
      try {
        const size = statSync(join(logDir, name)).size
        if (size > 0) found.push({ path: join(logDir, name), id: check.id, size })
      } catch {
        // Gone meanwhile: nothing to free.
      }
    }
  }
  return found.toSorted((a, b) => b.size - a.size)
}

/**
 * Seals and writes the evidence; when the device is full, empties this run's logs one by one (largest
 * first, each marked `logTruncated` with a warning) and tries again. Throws {@link EvidenceNotWrittenError}
 * when it still cannot be written, with the sealed file so the caller can still show the results.
 */
export async function writeEvidenceMakingRoom(
  target: string,
  file: EvidenceFile,
  seal: (file: EvidenceFile) => EvidenceFile,
  logDir: string,
): Promise<EvidenceFile> {
  let sealed = seal(file)
  const logs = logsBySize(logDir, file)
  for (;;) {
    try {
      await writeEvidenceFile(target, sealed)
      return sealed
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? ''
      const log = NO_SPACE.has(code) ? logs.shift() : undefined
      if (!log) {
        const detail = (error as Error).message.replace(/\s+/g, ' ').trim()
        const advice = NO_SPACE.has(code) ? 'free some space and run `npx verify` again' : 'fix that and run `npx verify` again'
        throw new EvidenceNotWrittenError(`cannot write the evidence at ${target} (${detail}): the results above are not saved; ${advice}.`, sealed, error)
      }
      try {
        truncateSync(log.path, 0)
      } catch {
        continue
      }
      const output = file.checks.find((c) => c.id === log.id)?.evidence?.output
      const why = 'emptied to make room for the evidence file: the device was full'
      if (output) output.logTruncated = output.logTruncated ? `${output.logTruncated}; ${why}` : why
      const warning = `The log of "${log.id}" was emptied to make room for the evidence: the device is full.`
      if (!file.summary.warnings.includes(warning)) file.summary.warnings.push(warning)
      sealed = seal(file)
    }
  }
}
