// ANSI / VT escape sequences, as terminals parse them (ECMA-48), without a dependency.

// Parameter bytes 0x30–0x3F include the private markers `?`, `<`, `=`, `>`; intermediates are 0x20–0x2F.
const CSI = String.raw`(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]`
// OSC, DCS, SOS, PM and APC carry a string that ends with BEL or ST (ESC \ or C1 0x9C).
const STRING = String.raw`\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)`
// nF sequences such as charset selection `ESC ( B`.
const NF = String.raw`\x1b[\x20-\x2f]+[\x30-\x7e]`
// Single-character sequences (`ESC 7`, `ESC M`, `ESC =`, …); the introducers above are excluded.
const SINGLE = String.raw`\x1b[\x30-\x4f\x51-\x57\x59\x5a\x5c\x60-\x7e]`
// A stray or malformed introducer is dropped on its own so it cannot garble what follows.
const STRAY = String.raw`\x1b|\x9b`

const SEQUENCE = new RegExp(`${CSI}|${STRING}|${NF}|${SINGLE}|${STRAY}`, 'g')
const COMPLETE_AT = new RegExp(`${CSI}|${STRING}|${NF}|${SINGLE}`, 'y')
// What a sequence can look like before its final byte has arrived.
const PREFIX_AT = new RegExp(String.raw`(?:\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*|[\]PX^_][^\x07\x1b\x9c]*\x1b?|[\x20-\x2f]*)|\x9b[\x30-\x3f]*[\x20-\x2f]*)$`, 'y')

/** Removes ANSI/VT escape sequences (CSI, OSC/DCS strings, nF and single-character escapes, C1 CSI). */
export function stripAnsi(text: string): string {
  // Most output has no escapes at all: skip the regex.
  if (!text.includes('\x1b') && !text.includes('\x9b')) return text
  return text.replace(SEQUENCE, '')
}

/**
 * Index where an escape sequence that is still incomplete at the end of `text` starts, or -1.
 * Only the last `window` characters are searched, so a carry built from it stays small.
 */
export function incompleteEscapeStart(text: string, window = 64): number {
  let i = Math.max(0, text.length - window)
  while (i < text.length) {
    const code = text.charCodeAt(i)
    if (code !== 0x1b && code !== 0x9b) {
      i++
      continue
    }
    COMPLETE_AT.lastIndex = i
    if (COMPLETE_AT.test(text)) {
      i = COMPLETE_AT.lastIndex
      continue
    }
    PREFIX_AT.lastIndex = i
    if (PREFIX_AT.test(text)) return i
    i++
  }
  return -1
}
