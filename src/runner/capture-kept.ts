// What the evidence keeps of a check's output in bounded memory: the head and the tail, whatever the total size, and
// a marker of how much lies between them.
import type { OutputRecord } from '../types.js'

// Tail pieces smaller than this are merged so the tail is a handful of strings, not thousands.
const TAIL_MERGE_BYTES = 8 * 1024

export class KeptOutput {
  readonly #headBytes: number
  readonly #tailBytes: number
  #head = ''
  #headUsed = 0
  #headClosed = false
  #tail: { text: string; bytes: number }[] = []
  #tailUsed = 0
  #storedBytes = 0

  constructor(headBytes: number, tailBytes: number) {
    this.#headBytes = headBytes
    this.#tailBytes = tailBytes
  }

  /** Adds released text (`bytes` of UTF-8) in order. */
  store(text: string, bytes: number): void {
    this.#storedBytes += bytes
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

  /** The kept text, with the omitted middle marked; `bytes` and `sha256` are of the raw output. */
  record(bytes: number, sha256: string): OutputRecord {
    let tail = this.#tail.map((piece) => piece.text).join('')
    if (this.#tailUsed > this.#tailBytes) tail = utf8Slice(tail, this.#tailBytes, true)
    const kept = this.#headUsed + Buffer.byteLength(tail, 'utf8')
    const omitted = Math.max(0, this.#storedBytes - kept)
    const text = omitted > 0 ? `${this.#head}\n[… ${omitted} bytes omitted …]\n${tail}` : this.#head + tail
    return { text, bytes, truncated: omitted > 0, sha256 }
  }
}

/** Longest prefix (or, `fromEnd`, suffix) of `text` within `maxBytes` of UTF-8, never splitting a character. */
export function utf8Slice(text: string, maxBytes: number, fromEnd = false): string {
  const buf = Buffer.from(text, 'utf8')
  if (buf.length <= maxBytes) return text
  let at = fromEnd ? buf.length - Math.max(0, maxBytes) : Math.max(0, maxBytes)
  // Step off continuation bytes (10xxxxxx) towards the part that is dropped.
  while (at > 0 && at < buf.length && ((buf[at] ?? 0) & 0xc0) === 0x80) at += fromEnd ? 1 : -1
  return fromEnd ? buf.toString('utf8', at) : buf.toString('utf8', 0, at)
}
