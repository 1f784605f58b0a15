// A check's full log file, as OutputCapture writes it: opened on the first output (a silent check costs no file),
// capped in size, and cut with a note rather than grown in memory when the disk cannot keep up.
import { once } from 'node:events'
import { createWriteStream, rmSync, type WriteStream } from 'node:fs'
import { dirname } from 'node:path'
import { makeFolderSync } from '../evidence/location.js'
import { utf8Slice } from './capture-kept.js'

// Above this much queued log data the producer is asked to pause until `drained()`.
const LOG_HIGH_WATER = 1024 * 1024
// A producer that ignores that and outruns the disk this far loses the rest of the log, not memory.
const LOG_BACKLOG_MAX = 4 * 1024 * 1024

export class CaptureLog {
  /** Why the log file could not be written, if it could not. */
  error: Error | null = null
  /** Why the log stops before the output's end, if it does (the cap aside, which it notes in itself). */
  dropped: string | null = null

  readonly #limit: number
  // The file still to be opened on the first write.
  #path: string | null
  // Kept after the log is ended early (cap reached) so close() can wait for it to close.
  #log: WriteStream | null = null
  #logged = 0

  constructor(file: string, limitBytes: number) {
    this.#limit = limitBytes
    this.#path = file
    // An older run's log never lingers.
    try {
      rmSync(file, { force: true })
    } catch (error) {
      this.error = error instanceof Error ? error : new Error(String(error))
    }
  }

  /** The log lags behind the output: the producer should pause until `drained()`. */
  lagging(): boolean {
    const log = this.#log
    return log !== null && !log.destroyed && !log.writableEnded && log.writableLength >= LOG_HIGH_WATER
  }

  /** Resolves once the log has caught up (at once when it has). */
  drained(): Promise<void> {
    const log = this.#log
    if (!log || !this.lagging()) return Promise.resolve()
    return new Promise((resolve) => {
      const done = (): void => {
        log.off('drain', done).off('close', done)
        resolve()
      }
      log.on('drain', done).on('close', done)
    })
  }

  write(text: string, bytes: number): void {
    if (this.#path !== null) {
      this.#open(this.#path)
      this.#path = null
    }
    const log = this.#log
    if (!log || log.destroyed || log.writableEnded) return
    if (log.writableLength > LOG_BACKLOG_MAX) {
      this.dropped = `the disk could not keep up; the log stops after ${this.#logged} bytes`
      this.#stop(`\n[… log truncated at ${this.#logged} bytes: the disk could not keep up …]\n`)
      return
    }
    if (this.#logged + bytes <= this.#limit) {
      log.write(text)
      this.#logged += bytes
      return
    }
    const part = utf8Slice(text, this.#limit - this.#logged)
    if (part.length > 0) log.write(part)
    this.#logged += Buffer.byteLength(part, 'utf8')
    this.#stop(`\n[… log truncated at ${this.#logged} bytes …]\n`)
  }

  /** Ends and closes the file. A failed log is reported through `error`; it never fails the capture. */
  async close(): Promise<void> {
    const log = this.#log
    if (!log || log.closed) return
    const closed = once(log, 'close')
    if (!log.writableEnded) log.end()
    await closed.catch(() => undefined)
  }

  #open(file: string): void {
    try {
      makeFolderSync(dirname(file))
      // An error destroys the stream, which stops further writes.
      this.#log = createWriteStream(file).on('error', (error) => (this.error = error))
    } catch (error) {
      this.error = error instanceof Error ? error : new Error(String(error))
    }
  }

  // Ends the log with a note; later output is only counted, hashed and kept in the tail.
  #stop(note: string): void {
    this.#log?.end(note)
  }
}
