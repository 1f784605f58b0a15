// Where a report goes: the file named with `name=<file>`, else the run's output.
import { closeSync, constants, openSync, statSync, writeFileSync, writeSync } from 'node:fs'
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

/** How long a FIFO's reader may leave the report unread before verify gives up on it, rather than wait for ever. */
const READER_PATIENCE_MS = 30_000

/**
 * Writes to the FIFO's reader through the descriptor opened without waiting: a full pipe is waited on a little at a
 * time, so a reader that opens the FIFO and never reads costs the run at most READER_PATIENCE_MS.
 */
function writeToReader(fd: number, file: string, bytes: Buffer): void {
  const pause = new Int32Array(new SharedArrayBuffer(4))
  const until = Date.now() + READER_PATIENCE_MS
  for (let offset = 0; offset < bytes.length;) {
    try {
      offset += writeSync(fd, bytes, offset)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
      if (Date.now() > until)
        throw new Error(`the reader of the FIFO ${file} read no more for ${READER_PATIENCE_MS / 1000} s: the report is cut after ${offset} bytes`, {
          cause: error,
        })
      Atomics.wait(pause, 0, 0, 10)
    }
  }
}

export function writeReport(options: ReporterOptions, text: string): void {
  if (!options.file) return options.write(text)
  const reader = expectReader(options.file)
  if (reader !== undefined) {
    try {
      return writeToReader(reader, options.file, Buffer.from(text))
    } finally {
      closeSync(reader)
    }
  }
  // `junit=/dev/stdout` with standard output redirected to a log: appended to it, never truncating what it held.
  if (isStreamPath(options.file)) return writeFileSync(options.file, text, { flag: 'a' })
  makeFolderSync(dirname(options.file))
  writeFileSync(options.file, text)
}
