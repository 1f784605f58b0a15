// A check's output is untrusted text. Before a line of it reaches a terminal or a CI log it becomes what a terminal
// would end up showing, without control characters, and never a line the GitHub Actions runner would execute.
import { stripAnsi } from '../runner/ansi.js'

// C0 controls other than tab, DEL and C1 controls.
const CONTROL = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F]/g
// Characters that ICU string comparison skips, as the runner's culture-sensitive IndexOf/StartsWith do: controls,
// format characters (zero-width space, joiners, bidi marks, BOM, tags), variation selectors.
const INVISIBLE = /[\u007F-\u009F\p{Cf}\u034F\u180B-\u180D\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu
const IGNORABLE = new RegExp(`[\\u0000-\\u0008\\u000A-\\u001F]|${INVISIBLE.source}`, 'gu')
const SGR = /(\x1b\[[0-9;:]*m)/
const SGR_ALL = /\x1b\[[0-9;:]*m/g

/**
 * What a terminal shows of a line that carriage returns rewrote (a progress bar): the text after the last one that
 * something follows (`50%\r100%` is `100%`, `done\r` is `done`).
 */
export function afterLastCR(line: string): string {
  const end = line.replace(/\r+$/, '')
  return end.slice(end.lastIndexOf('\r') + 1)
}

/**
 * Does this text need a look line by line before it is printed? Not when it has no escape, carriage return or other
 * control, no `#`, and no line that starts (after spaces) with `:` or a character beyond ASCII: then plainLine,
 * colorLine and guardCommand leave each of its lines as it is, and it can be printed in one piece.
 */
export function needsALook(text: string): boolean {
  return UNUSUAL.test(text) || ODD_START.test(text) || ODD_LINE_START.test(text)
}

// Three simple scans, each far quicker on a flood than one pattern with alternatives (a high surrogate is beyond ASCII).
const UNUSUAL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F#]/
const ODD_START = /^[ \t]*[:\u0080-\uFFFF]/
const ODD_LINE_START = /\n[ \t]*[:\u0080-\uFFFF]/

/** One line of output as plain text: after its last carriage return, without escape sequences or control characters. */
export function plainLine(line: string): string {
  return afterLastCR(stripAnsi(line)).replace(CONTROL, '')
}

/** The same, keeping colours: SGR sequences stay, cursor movement, erasing, titles and other sequences go. */
export function colorLine(line: string): string {
  const kept = line
    .split(SGR)
    .map((part, i) => (i % 2 === 1 ? part : stripAnsi(part)))
    .join('')
  // The text after the last carriage return that something visible follows; the colours set around it still apply.
  const segments = kept.split('\r')
  let last = segments.length - 1
  while (last > 0 && (segments[last] as string).replace(SGR_ALL, '') === '') last--
  const colours = (from: string[]) => from.join('').match(SGR_ALL)?.join('') ?? ''
  const shown = `${colours(segments.slice(0, last))}${segments[last] ?? ''}${colours(segments.slice(last + 1))}`
  return shown
    .split(SGR)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(CONTROL, '')))
    .join('')
}

/** The first line of a message (a check's reason), as untrusted text. */
export function firstLine(text: string): string {
  return untrusted(text.split('\n')[0] ?? '')
}

// What the runner compares a line with: invisible characters skipped.
const seenByRunner = (line: string) => line.replace(IGNORABLE, '')
const isCommand = (seen: string) => seen.includes('##[') || seen.trimStart().startsWith('::')

/** A cheap first look (most lines are done here): a `#`, or a colon or anything not plain ASCII where the line starts. */
function mayBeCommand(line: string): boolean {
  const start = line.trimStart()
  const first = start.charCodeAt(0)
  return line.includes('#') || first === 0x3a || first < 0x20 || first >= 0x7f
}

/**
 * The line, unless the GitHub Actions runner could take it for a workflow command: the runner reads a command
 * from `::name::` at the start of a line (after whitespace) and from `##[name]` anywhere in it, skipping invisible
 * characters as it compares. Such a line is shown as plain text with `##[` spaced out (`## [`) and a leading `::`
 * split (`: :`), so it reads the same and does nothing.
 */
export function guardCommand(line: string): string {
  if (!mayBeCommand(line) || !isCommand(seenByRunner(line))) return line
  return seenByRunner(stripAnsi(line))
    .replaceAll('##[', '## [')
    .replace(/^(\s*):(?=:)/, '$1: ')
}

/**
 * The rest of a line whose start (`head`, see lineHead) went out in an earlier write: guarded so that the two together
 * are no workflow command either (`:` then `:error::`, `##` then `[error]`).
 */
export function guardContinuation(head: string, piece: string): string {
  const text = guardCommand(piece)
  return head !== '' && isCommand(head + seenByRunner(text)) ? ` ${seenByRunner(stripAnsi(text))}` : text
}

/** What guardContinuation needs to know of a line written so far (`head`, then `text`): the few characters that matter. */
export function lineHead(head: string, text: string): string {
  const line = (head + seenByRunner(text)).trimStart()
  return line.length <= 5 ? line : `${line.slice(0, 2)}…${line.slice(-2)}`
}

// Bidirectional overrides and isolates reorder what a terminal shows (text that reads other than it is).
const BIDI = /[\u202A-\u202E\u2066-\u2069]/g

/**
 * The one way untrusted text — a reason, a check's name or command, a protocol name, an approver's name or note, a
 * thrown message, a file name — is printed by verify: no escape sequence, no control character, no bidirectional
 * override, never a workflow command. `inline` (the default) makes it one line, its line breaks and carriage returns
 * spaces; `lines` keeps its lines, each cleaned and guarded on its own.
 */
export function untrusted(text: string, layout: 'inline' | 'lines' = 'inline'): string {
  const lines = stripAnsi(text)
    .replace(BIDI, '')
    .split(/\r\n|\r|\n/)
  const clean = lines.map((line) => line.replace(CONTROL, ''))
  return layout === 'inline' ? guardCommand(clean.join(' ')) : clean.map(guardCommand).join('\n')
}

/**
 * Text for a log: each line after its last carriage return (the runner splits lines at CR as well as LF) and through
 * guardCommand. Colours and verify's own layout are kept.
 */
export function guardText(text: string): string {
  return text
    .split('\n')
    .map((line) => guardCommand(afterLastCR(line)))
    .join('\n')
}

const unicodeEscape = (ch: string) => Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')

/**
 * JSON (as JSON.stringify writes it) that the runner cannot read a command from, and that parses to the same value:
 * invisible characters and the `[` of `##[` — only ever inside strings — become `\u` escapes.
 */
export function guardJson(json: string): string {
  return json.replace(INVISIBLE, unicodeEscape).replaceAll('##[', '##\\u005b')
}

/**
 * Escaped XML text that the runner cannot read a command from, and that parses to the same text: invisible characters,
 * carriage returns, the `[` of `##[` and a colon that starts a line become character references.
 */
export function guardXml(xml: string): string {
  return xml
    .replace(INVISIBLE, (ch) => `&#x${(ch.codePointAt(0) as number).toString(16)};`)
    .replaceAll('\r', '&#13;')
    .replaceAll('##[', '##&#91;')
    .replace(/^([^\S\n]*):/gm, '$1&#58;')
}
