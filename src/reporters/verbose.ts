// The `verbose` reporter: every check's output live, each line prefixed with the check's id, around the
// default reporter's start and end lines and summary.
import pc from 'picocolors'
import { createDefaultReporter } from './default.js'
import type { ReporterOptions } from './options.js'
import { colorLine, guardCommand, needsALook, plainLine } from './safe-text.js'
import type { Reporter } from './types.js'

// A line longer than this is printed in pieces rather than held in memory.
const MAX_PARTIAL = 64 * 1024

export function createVerboseReporter(options: ReporterOptions): Reporter {
  const c = pc.createColors(options.color)
  // Line mode: a live redraw would erase the output lines printed between two frames.
  const base = createDefaultReporter({ ...options, isTTY: false })
  const partial = new Map<string, string>()
  let pad = 0

  // A check's line as a terminal would end up showing it (a progress bar's carriage returns would overwrite the
  // prefix), its colours at most: cursor movement from one check must not overwrite another's lines.
  const shown = options.color ? colorLine : plainLine
  const reset = options.color ? '\x1b[0m' : ''
  const print = (id: string, lines: readonly string[]) => {
    const prefix = c.dim(`${id.padEnd(pad)} │ `)
    options.write(lines.map((line) => `${prefix}${guardCommand(shown(line))}${reset}\n`).join(''))
  }
  // Whole lines that need no look (needsALook) are printed as they are, in one piece. Line by line, a flood of short
  // lines kept the event loop from reading the check's pipes, and slowed the check down to its timeout.
  const printPlain = (id: string, text: string) => {
    const prefix = c.dim(`${id.padEnd(pad)} │ `)
    options.write(`${prefix}${text.replaceAll('\n', `${reset}\n${prefix}`)}${reset}\n`)
  }

  return {
    onRunStart(checklist) {
      pad = Math.max(0, ...checklist.results.map((r) => r.id.length))
      return base.onRunStart?.(checklist)
    },
    onCheckStart(check, result) {
      base.onCheckStart?.(check, result)
    },
    onCheckOutput(check, chunk, stream) {
      const key = `${check.id}\0${stream}`
      const text = (partial.get(key) ?? '') + chunk
      const end = text.lastIndexOf('\n')
      if (end >= 0 && text.length - end - 1 <= MAX_PARTIAL && !needsALook(text)) {
        partial.set(key, text.slice(end + 1))
        printPlain(check.id, text.slice(0, end))
        return
      }
      const lines = text.split(/\r?\n/)
      let rest = lines.pop() ?? ''
      if (rest.length > MAX_PARTIAL) {
        lines.push(rest)
        rest = ''
      }
      partial.set(key, rest)
      if (lines.length) print(check.id, lines)
    },
    onCheckEnd(check, result) {
      for (const stream of ['stdout', 'stderr']) {
        const key = `${check.id}\0${stream}`
        const rest = partial.get(key)
        partial.delete(key)
        if (rest) print(check.id, [rest])
      }
      base.onCheckEnd?.(check, result)
    },
    onRunEnd(outcome) {
      return base.onRunEnd?.(outcome)
    },
  }
}
