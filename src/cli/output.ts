// Everything verify prints passes through one layer: secrets masked as a terminal shows them, then each line cleaned
// (colours kept; cursor movement, titles, other escape sequences, carriage returns and control characters gone) and
// never a GitHub Actions workflow command. A new print site is safe without doing anything. verify's own terminal
// control and workflow commands go through `unguarded`, masked only: the one way past it.
import { maskVisible, protocolRedactor, type Redactor } from '../evidence/redact.js'
import { colorLine, guardContinuation, lineHead, needsALook } from '../reporters/safe-text.js'
import type { CliIO } from './io.js'

const layers = new WeakMap<CliIO, { redact: Redactor }>()

/** The secrets verify can know before any config is loaded: those of its own environment. */
export function environmentRedactor(env: NodeJS.ProcessEnv): Redactor {
  return protocolRedactor(env)
}

// Escape sequences, carriage returns and control characters other than tab and LF: text without any is shown as is.
const NOT_PLAIN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/

function guardedStream(write: (text: string) => void, layer: { redact: Redactor }): (text: string) => void {
  // What the current line holds so far, when a write ended without a line break.
  let head = ''
  return (text) => {
    // Text that starts a line and needs no look is masked and written in one piece (a verbose flood is made of it).
    if (head === '' && !needsALook(text)) {
      const masked = layer.redact(text)
      write(masked)
      head = lineHead('', masked.slice(masked.lastIndexOf('\n') + 1))
      return
    }
    // Most text is plain: masked in one pass, and only guarded line by line.
    const plain = !NOT_PLAIN.test(text)
    const pieces = (plain ? layer.redact(text) : text).split('\n')
    const out = pieces.map((piece, i) => {
      const shown = plain ? piece : maskVisible(layer.redact, colorLine(piece))
      const start = i === 0 ? head : ''
      const guarded = guardContinuation(start, shown)
      if (i === pieces.length - 1) head = lineHead(start, guarded)
      // Guarding drops invisible characters: what they split must still be masked.
      return guarded === shown ? shown : layer.redact(guarded)
    })
    write(out.join('\n'))
  }
}

/**
 * The IO with every printed byte masked and defused. Given an IO it made, it masks with `redact` from then on (a
 * loaded config knows more secrets: `redact` must include the environment's) and returns that same IO.
 */
export function safeIO(io: CliIO, redact: Redactor = environmentRedactor(io.env)): CliIO {
  const existing = layers.get(io)
  if (existing) {
    existing.redact = redact
    return io
  }
  const layer = { redact }
  const safe: CliIO = {
    ...io,
    stdout: guardedStream(io.stdout, layer),
    stderr: guardedStream(io.stderr, layer),
    unguarded: { stdout: (text) => io.stdout(maskVisible(layer.redact, text)), stderr: (text) => io.stderr(maskVisible(layer.redact, text)) },
  }
  layers.set(safe, layer)
  return safe
}
