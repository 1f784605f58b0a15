// How many terminal columns text takes, and cutting it to fit without splitting an escape sequence or a character.

// An escape sequence at a position: CSI (colours, cursor), or an OSC string ended by BEL or ST.
const ESCAPE_AT = /\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b/y
// East Asian wide and fullwidth characters and emoji shown as pictures take two columns.
const WIDE =
  /[\u1100-\u115F\u231A\u231B\u2329\u232A\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uA960-\uA97F\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F000}-\u{1FAFF}\u{20000}-\u{3FFFD}]|\p{Emoji_Presentation}/u
// Combining marks, format characters and controls take none.
const ZERO = /[\p{Mn}\p{Me}\p{Cf}\p{Cc}]/u

function charWidth(ch: string): number {
  // A tab moves to the next stop, up to 8 columns: counted as 8 so a line is never wider than reckoned.
  if (ch === '\t') return 8
  if (ZERO.test(ch)) return 0
  return WIDE.test(ch) ? 2 : 1
}

/** Walks `text`: escape sequences (width 0) and characters, each with its width. */
function* cells(text: string): Generator<{ text: string; width: number; escape: boolean }> {
  let i = 0
  while (i < text.length) {
    if (text.charCodeAt(i) === 0x1b) {
      ESCAPE_AT.lastIndex = i
      const match = ESCAPE_AT.exec(text)
      const seq = match?.[0] ?? '\x1b'
      yield { text: seq, width: 0, escape: true }
      i += seq.length
      continue
    }
    const ch = String.fromCodePoint(text.codePointAt(i) as number)
    yield { text: ch, width: charWidth(ch), escape: false }
    i += ch.length
  }
}

// Printable ASCII, one column a character: most of what reporters measure.
const PLAIN = /^[\x20-\x7e]*$/

/** The columns `text` takes on a terminal; escape sequences take none. */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length
  let width = 0
  for (const cell of cells(text)) width += cell.width
  return width
}

/**
 * `text` cut to at most `columns` columns, ending in `…` when cut. Escape sequences are kept whole, and a cut line
 * that carried any ends with a colour reset so its colour does not run on.
 */
export function fitWidth(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text
  const room = Math.max(0, columns - 1)
  let out = ''
  let used = 0
  let escapes = false
  for (const cell of cells(text)) {
    if (cell.escape) {
      out += cell.text
      escapes = true
      continue
    }
    if (used + cell.width > room) break
    out += cell.text
    used += cell.width
  }
  return `${out}${columns > 0 ? '…' : ''}${escapes ? '\x1b[0m' : ''}`
}
