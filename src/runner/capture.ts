// A check's combined stdout/stderr, captured as it streams: decoded, masked (never a secret split across chunks),
// ANSI stripped for the record and the log, watched for patterns. What is kept lives in capture-kept.ts, the log
// file in capture-log.ts.
import { createHash } from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import { DEFAULTS } from '../defaults.js'
import { maskVisible, type Redactor } from '../evidence/redact.js'
import type { OutputRecord } from '../types.js'
import { incompleteEscapeStart, stripAnsi } from './ansi.js'
import { KeptOutput } from './capture-kept.js'
import { CaptureLog } from './capture-log.js'

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
/** How far back the window reaches for the start of a long line; beyond it, the line's start is not kept. */
const WATCH_LINE = 16 * 1024

// With a transform, text is held back to the end of a line so a secret split across chunks is still
// seen whole; a line longer than this is let through anyway to keep memory bounded.
const LINE_CARRY_MAX = 8 * 1024

/** Collects a child's combined stdout/stderr in bounded memory: head, tail, byte count, SHA-256 and a log. */
export class OutputCapture {
  /** Live view listener (see the option); may be set after construction. */
  onText: ((text: string, stream: OutputStream) => void) | undefined
  readonly #kept: KeptOutput
  readonly #log: CaptureLog | null
  readonly #transform: ((text: string) => string) | undefined
  readonly #hash = createHash('sha256')
  readonly #streams: Record<OutputStream, { decoder: StringDecoder; carry: string }> = {
    stdout: { decoder: new StringDecoder('utf8'), carry: '' },
    stderr: { decoder: new StringDecoder('utf8'), carry: '' },
  }
  #bytes = 0
  readonly #watch: readonly (RegExp | string)[]
  readonly #seen: boolean[]
  #overlap = ''
  #finished: Promise<OutputRecord> | null = null

  constructor(options: OutputCaptureOptions = {}) {
    this.#kept = new KeptOutput(options.headBytes ?? 16 * 1024, options.tailBytes ?? 48 * 1024)
    this.#log = options.logFile === undefined ? null : new CaptureLog(options.logFile, options.logLimitBytes ?? DEFAULTS.logLimitBytes)
    this.#transform = options.transform
    this.onText = options.onText
    this.#watch = options.watch ?? []
    this.#seen = this.#watch.map(() => false)
  }

  /** Why the log file could not be written, if it could not. */
  get logError(): Error | null {
    return this.#log?.error ?? null
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
    return !this.#log?.lagging()
  }

  /** Resolves once the log has caught up (at once when it has, or when there is no log). */
  drained(): Promise<void> {
    return this.#log?.drained() ?? Promise.resolve()
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
    this.#look('', true)
    const record = this.#kept.record(this.#bytes, this.#hash.digest('hex'))
    await this.#log?.close()
    // The evidence says when the full log is not whole, so nobody reads a cut log as the complete output.
    const why = this.logError ? `the log could not be written: ${this.logError.message}` : (this.#log?.dropped ?? null)
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
    // The patterns judge what the check printed, before masking: a mask (a variable that looks secret, a `redact`
    // pattern) must not hide what `notOutput` forbids, nor make up what `output` requires.
    this.#look(stripped)
    if (stored.length === 0) return
    const bytes = Buffer.byteLength(stored, 'utf8')
    this.#log?.write(stored, bytes)
    this.#kept.store(stored, bytes)
  }

  // Patterns are tried on a window of the output: what is kept of the output before (at least WATCH_OVERLAP
  // characters, back to the newline that ends the line before them) and the new text, up to its last newline. Anchors
  // keep their meaning: the window starts with that newline, or with a NUL when the line is too long to keep whole,
  // so `^` never matches where the window starts inside a line, nor (without `m`) anywhere but at the very start of
  // the output; and it ends where a line ends, so `$` never matches inside one. The unfinished line is tried with
  // the next text, or at `finish`; one longer than WATCH_LINE is tried as it comes.
  #look(text: string, end = false): void {
    if (this.#watch.length === 0) return
    const window = this.#overlap + text
    const lineEnd = window.lastIndexOf('\n') + 1
    const probe = end || window.length - lineEnd > WATCH_LINE ? window : window.slice(0, lineEnd)
    if (probe.length > 0) {
      this.#watch.forEach((pattern, i) => {
        if (this.#seen[i]) return
        this.#seen[i] = typeof pattern === 'string' ? probe.includes(pattern) : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')).test(probe)
      })
    }
    if (window.length <= WATCH_OVERLAP) return void (this.#overlap = window)
    // What is kept reaches back to the newline before the last WATCH_OVERLAP characters, and so holds the untried line.
    const from = Math.min(window.length - WATCH_OVERLAP, lineEnd)
    const before = window.lastIndexOf('\n', from - 1)
    // A long line's start is cut only when it is too long to keep: the output's first line keeps its `^`.
    const cut = Math.max(0, window.length - WATCH_LINE)
    this.#overlap = before >= 0 && from - before <= WATCH_LINE ? window.slice(before) : cut === 0 ? window : `\u0000${window.slice(cut)}`
  }

  /** For each `watch` pattern, whether it occurred anywhere in the output (ANSI stripped, not masked). */
  seen(): boolean[] {
    return [...this.#seen]
  }
}

/** The last `n` lines of `text`, without a trailing empty line. */
export function tailLines(text: string, n: number): string[] {
  if (n <= 0 || text.length === 0) return []
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines.slice(-n)
}
