// Where a report goes: the file named with `name=<file>`, else the run's output.
import { closeSync, constants, openSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { isStreamPath, makeFolderSync } from '../evidence/location.js'
import type { ReporterOptions } from './options.js'

/**
 * A FIFO's open waits, signals or not, until something opens it to read: asked first without waiting, a FIFO nothing
 * reads is an error of this report (said, the run goes on), never a run that cannot end.
 */
function expectReader(file: string): number | undefined {
  let stats
  try {
    stats = statSync(file)
  } catch {
    return undefined
  }
  if (!stats.isFIFO()) return undefined
  try {
    return openSync(file, constants.O_WRONLY | constants.O_NONBLOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw new Error(`nothing reads the FIFO ${file}, so its report is not written`, { cause: error })
    throw error
  }
}

export function writeReport(options: ReporterOptions, text: string): void {
  if (!options.file) return options.write(text)
  const reader = expectReader(options.file)
  if (reader !== undefined) {
    // A reader is there: the report goes to it as to any pipe, whole.
    try {
      return writeFileSync(options.file, text, { flag: 'a' })
    } finally {
      closeSync(reader)
    }
  }
  // `junit=/dev/stdout` with standard output redirected to a log: appended to it, never truncating what it held.
  if (isStreamPath(options.file)) return writeFileSync(options.file, text, { flag: 'a' })
  makeFolderSync(dirname(options.file))
  writeFileSync(options.file, text)
}
