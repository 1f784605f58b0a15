// A linear pass over JSON bytes, before JSON.parse, that measures what parsing would build: how deep it nests and how
// many values it holds. Hostile evidence (a file of 60 MB of `[`, a million empty objects) is refused here, in
// constant memory, instead of costing gigabytes in the parser or overflowing the stack of code that walks the result.

/** Limits of an evidence file's shape: far above what verify writes, far below what hurts. */
export interface JsonLimits {
  /** Arrays and objects nested deeper than this are refused. */
  maxDepth: number
  /** More array elements and object members than this (counted roughly, by `[`, `{` and `,`) are refused. */
  maxValues: number
}

export const EVIDENCE_JSON_LIMITS: JsonLimits = { maxDepth: 64, maxValues: 500_000 }

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
const COMMA = 0x2c

/**
 * Feeds chunks of UTF-8 JSON and says, as soon as it shows, why the whole would be refused. Works on bytes: every
 * structural character is ASCII, and no byte of a multi-byte UTF-8 character is.
 */
export class JsonShapeScanner {
  private depth = 0
  private values = 0
  private inString = false
  private escaped = false

  constructor(private readonly limits: JsonLimits = EVIDENCE_JSON_LIMITS) {}

  /** Scans the next chunk; returns why the JSON is refused, or null while it is within the limits. */
  scan(chunk: Uint8Array): string | null {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (byte === BACKSLASH) this.escaped = true
        else if (byte === QUOTE) this.inString = false
        continue
      }
      if (byte === QUOTE) this.inString = true
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        if (++this.depth > this.limits.maxDepth) return `it is nested deeper than ${this.limits.maxDepth} levels`
        if (++this.values > this.limits.maxValues) return `it holds more than ${this.limits.maxValues} values`
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) this.depth--
      else if (byte === COMMA && ++this.values > this.limits.maxValues) return `it holds more than ${this.limits.maxValues} values`
    }
    return null
  }
}
