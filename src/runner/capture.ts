import { createHash } from 'node:crypto'
import { createWriteStream, rmSync } from 'node:fs'
import type { WriteStream } from 'node:fs'
import { once } from 'node:events'
import { dirname } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { makeFolderSync } from '../evidence/location.js'
import { maskVisible, type Redactor } from '../evidence/redact.js'
import type { OutputRecord } from '../types.js'
import { incompleteEscapeStart, stripAnsi } from './ansi.js'

export type OutputStream = 'stdout' | 'stderr'

export interface OutputCaptureOptions {
  /** Bytes of the start of the output kept in the record (default 16 KiB). */
  headBytes?: number
  /** Bytes of the end of the output kept in the record (default 48 KiB). */
  tailBytes?: number
  /** File that receives the whole output, ANSI stripped; parent folders are created. */
  logFile?: string
  /** Cap of the log file (default 50 MiB). */
  logLimitBytes?: number
  /** Applied to decoded text before it is stored, logged or shown (e.g. secret masking). */
  transform?: ((text: string) => string) | undefined
  /** Live view: decoded text with ANSI kept, `transform` applied. */
  onText?: ((text: string, stream: OutputStream) => void) | undefined
  /** Patterns looked for in the whole output as it streams (not only the kept head and tail); see `seen()`. */
  watch?: readonly (RegExp | string)[]
}

// A match may straddle two releases: this much of the previous text is searched again with the next.
const WATCH_OVERLAP = 4096

// With a transform, text is held back to the end of a line so a secret split across chunks is still
// seen whole; a line longer than this is let through anyway to keep memory bounded.
const LINE_CARRY_MAX = 8 * 1024
// Above this much queued log data `write()` asks the producer to pause until `drained()`.
const LOG_HIGH_WATER = 1024 * 1024
// A producer that ignores that and outruns the disk this far loses the rest of the log, not memory.
const LOG_BACKLOG_MAX = 4 * 1024 * 1024
// Tail pieces smaller than this are merged so the tail is a handful of strings, not thousands.
const TAIL_MERGE_BYTES = 8 * 1024

/** Collects a child's combined stdout/stderr in bounded memory: head, tail, byte count, SHA-256 and a log. */
export class OutputCapture {
  /** Live view listener (see the option); may be set after construction. */
  onText: ((text: string, stream: OutputStream) => void) | undefined
  /** Why the log file could not be written, if it could not. */
  logError: Error | null = null

  readonly #headBytes: number
  readonly #tailBytes: number
  readonly #logLimit: number
  readonly #transform: ((text: string) => string) | undefined
  readonly #hash = createHash('sha256')
  readonly #streams: Record<OutputStream, { decoder: StringDecoder; carry: string }> = {
    stdout: { decoder: new StringDecoder('utf8'), carry: '' },
    stderr: { decoder: new StringDecoder('utf8'), carry: '' },
  }
  #bytes = 0
  #head = ''
  #headUsed = 0
  #headClosed = false
  #tail: { text: string; bytes: number }[] = []
  #tailUsed = 0
  #storedBytes = 0
  // Kept after the log is ended early (cap reached) so finish() can wait for it to close.
  #log: WriteStream | null = null
  #logPath: string | null = null
  readonly #watch: readonly (RegExp | string)[]
  readonly #seen: boolean[]
  #overlap = ''
  #logged = 0
  #logDropped: string | null = null
  #finished: Promise<OutputRecord> | null = null

  constructor(options: OutputCaptureOptions = {}) {
    this.#headBytes = options.headBytes ?? 16 * 1024
    this.#tailBytes = options.tailBytes ?? 48 * 1024
    this.#logLimit = options.logLimitBytes ?? 50 * 1024 * 1024
    this.#transform = options.transform
    this.onText = options.onText
    this.#watch = options.watch ?? []
    this.#seen = this.#watch.map(() => false)
    if (options.logFile !== undefined) {
      // The log is opened on the first output (a silent check costs no file); an older run's log never lingers.
      this.#logPath = options.logFile
      try {
        rmSync(options.logFile, { force: true })
      } catch (error) {
        this.logError = error instanceof Error ? error : new Error(String(error))
      }
    }
  }

  /**
   * Feeds one raw chunk; synchronous and bounded in memory whatever the total size.
   * Returns false when the log file lags behind: pausing the source until `drained()` keeps the log whole.
   */
  write(chunk: Buffer, stream: OutputStream): boolean {
    if (this.#finished) return true
    this.#bytes += chunk.length
    this.#hash.update(chunk)
    const state = this.#streams[stream]
    this.#take(state.carry + state.decoder.write(chunk), stream, false)
    return !this.#logLagging()
  }

  /** Resolves once the log has caught up (at once when it has, or when there is no log). */
  drained(): Promise<void> {
    const log = this.#log
    if (!log || !this.#logLagging()) return Promise.resolve()
    return new Promise((resolve) => {
      const done = (): void => {
        log.off('drain', done).off('close', done)
        resolve()
      }
      log.on('drain', done).on('close', done)
    })
  }

  /** Flushes the decoders and the log; resolves with the record for the evidence. */
  finish(): Promise<OutputRecord> {
    this.#finished ??= this.#finish()
    return this.#finished
  }

  async #finish(): Promise<OutputRecord> {
    for (const stream of ['stdout', 'stderr'] as const) {
      const state = this.#streams[stream]
      this.#take(state.carry + state.decoder.end(), stream, true)
    }
    const record = this.#record()
    await this.#closeLog()
    // The evidence says when the full log is not whole, so nobody reads a cut log as the complete output.
    const why = this.logError ? `the log could not be written: ${this.logError.message}` : this.#logDropped
    if (why) record.logTruncated = why
    return record
  }

  // Splits off what can be released now and keeps the rest as the stream's carry.
  #take(text: string, stream: OutputStream, final: boolean): void {
    const state = this.#streams[stream]
    let cut = text.length
    if (!final) {
      if (this.#transform) {
        const lineEnd = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'))
        if (text.length - (lineEnd + 1) <= LINE_CARRY_MAX) {
          cut = lineEnd + 1
          // Base64 wrapped in lines may go on in the next chunk: held until it has come.
          cut = (this.#transform as Redactor).holdBack?.(text, cut) ?? cut
        } else {
          // A line too long to hold: release all but a tail that can hold a whole secret, never cutting one in two.
          const redactor = this.#transform as Redactor
          const hold = Math.max(0, (redactor.maxLength ?? 256) - 1)
          cut = Math.max(0, text.length - hold)
          if (redactor.safeCut) cut = redactor.safeCut(text, cut)
        }
      }
      if (cut === text.length) {
        const partial = incompleteEscapeStart(text)
        if (partial >= 0) cut = partial
      }
    }
    state.carry = text.slice(cut)
    if (cut > 0) this.#release(text.slice(0, cut), stream)
  }

  #release(text: string, stream: OutputStream): void {
    const transform = this.#transform
    // Masked as shown: colour codes inside a secret must not let a terminal show it whole.
    const live = this.onText && transform ? maskVisible(transform, text) : undefined
    this.onText?.(live ?? text, stream)
    // Strip before masking so a secret with escapes inside it is still recognised.
    const stripped = stripAnsi(text)
    // Without escapes the live text already is the masked text: mask once.
    const stored = !transform ? stripped : stripped === text && live !== undefined ? live : maskVisible(transform, stripped)
    if (stored.length === 0) return
    const bytes = Buffer.byteLength(stored, 'utf8')
    this.#storedBytes += bytes
    this.#writeLog(stored, bytes)
    this.#store(stored, bytes)
    this.#look(stored)
  }

  #look(text: string): void {
    if (this.#watch.length === 0) return
    const window = this.#overlap + text
    this.#watch.forEach((pattern, i) => {
      if (this.#seen[i]) return
      this.#seen[i] = typeof pattern === 'string' ? window.includes(pattern) : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')).test(window)
    })
    this.#overlap = window.slice(-WATCH_OVERLAP)
  }

  /** For each `watch` pattern, whether it occurred anywhere in the (masked, ANSI-stripped) output. */
  seen(): boolean[] {
    return [...this.#seen]
  }

  #store(text: string, bytes: number): void {
    if (!this.#headClosed) {
      const room = this.#headBytes - this.#headUsed
      if (bytes <= room) {
        this.#head += text
        this.#headUsed += bytes
        return
      }
      const first = utf8Slice(text, room)
      const firstBytes = Buffer.byteLength(first, 'utf8')
      this.#head += first
      this.#headUsed += firstBytes
      // Closed even when a character did not quite fit: the rest goes to the tail, in order.
      this.#headClosed = true
      text = text.slice(first.length)
      bytes -= firstBytes
      if (bytes === 0) return
    }
    if (bytes > this.#tailBytes) {
      text = utf8Slice(text, this.#tailBytes, true)
      bytes = Buffer.byteLength(text, 'utf8')
      this.#tail = []
      this.#tailUsed = 0
    }
    const last = this.#tail.at(-1)
    if (last && last.bytes + bytes <= TAIL_MERGE_BYTES) {
      last.text += text
      last.bytes += bytes
    } else {
      this.#tail.push({ text, bytes })
    }
    this.#tailUsed += bytes
    // Drop whole pieces that are no longer needed to cover the tail.
    let first = this.#tail[0]
    while (first && this.#tailUsed - first.bytes >= this.#tailBytes) {
      this.#tail.shift()
      this.#tailUsed -= first.bytes
      first = this.#tail[0]
    }
  }

  #record(): OutputRecord {
    let tail = this.#tail.map((piece) => piece.text).join('')
    if (this.#tailUsed > this.#tailBytes) tail = utf8Slice(tail, this.#tailBytes, true)
    const kept = this.#headUsed + Buffer.byteLength(tail, 'utf8')
    const omitted = Math.max(0, this.#storedBytes - kept)
    const text = omitted > 0 ? `${this.#head}\n[… ${omitted} bytes omitted …]\n${tail}` : this.#head + tail
    return { text, bytes: this.#bytes, truncated: omitted > 0, sha256: this.#hash.digest('hex') }
  }

  #openLog(file: string): void {
    try {
      makeFolderSync(dirname(file))
      // An error destroys the stream, which stops further writes.
      this.#log = createWriteStream(file).on('error', (error) => (this.logError = error))
    } catch (error) {
      this.logError = error instanceof Error ? error : new Error(String(error))
    }
  }

  #logLagging(): boolean {
    const log = this.#log
    return log !== null && !log.destroyed && !log.writableEnded && log.writableLength >= LOG_HIGH_WATER
  }

  #writeLog(text: string, bytes: number): void {
    if (this.#logPath !== null) {
      this.#openLog(this.#logPath)
      this.#logPath = null
    }
    const log = this.#log
    if (!log || log.destroyed || log.writableEnded) return
    if (log.writableLength > LOG_BACKLOG_MAX) {
      this.#logDropped = `the disk could not keep up; the log stops after ${this.#logged} bytes`
      this.#stopLog(`\n[… log truncated at ${this.#logged} bytes: the disk could not keep up …]\n`)
      return
    }
    if (this.#logged + bytes <= this.#logLimit) {
      log.write(text)
      this.#logged += bytes
      return
    }
    const part = utf8Slice(text, this.#logLimit - this.#logged)
    if (part.length > 0) log.write(part)
    this.#logged += Buffer.byteLength(part, 'utf8')
    this.#stopLog(`\n[… log truncated at ${this.#logged} bytes …]\n`)
  }

  // Ends the log with a note; later output is only counted, hashed and kept in the tail.
  #stopLog(note: string): void {
    this.#log?.end(note)
  }

  async #closeLog(): Promise<void> {
    const log = this.#log
    if (!log || log.closed) return
    const closed = once(log, 'close')
    if (!log.writableEnded) log.end()
    // A failed log is reported through `logError`; it never fails the capture.
    await closed.catch(() => undefined)
  }
}

/** The last `n` lines of `text`, without a trailing empty line. */
export function tailLines(text: string, n: number): string[] {
  if (n <= 0 || text.length === 0) return []
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines.slice(-n)
}

// Longest prefix (or, `fromEnd`, suffix) of `text` within `maxBytes` of UTF-8, never splitting a character.
function utf8Slice(text: string, maxBytes: number, fromEnd = false): string {
  const buf = Buffer.from(text, 'utf8')
  if (buf.length <= maxBytes) return text
  let at = fromEnd ? buf.length - Math.max(0, maxBytes) : Math.max(0, maxBytes)
  // Step off continuation bytes (10xxxxxx) towards the part that is dropped.
  while (at > 0 && at < buf.length && ((buf[at] ?? 0) & 0xc0) === 0x80) at += fromEnd ? 1 : -1
  return fromEnd ? buf.toString('utf8', at) : buf.toString('utf8', 0, at)
}
