// GitHub Actions workflow commands (`::name key=value::message`), escaped as the runner unescapes them.
import { stripAnsi } from '../runner/ansi.js'
import { stripControl } from './excerpt.js'

/** Error, warning and notice annotations GitHub keeps per step, each kind on its own. */
export const ANNOTATIONS_PER_STEP = 10
/** GitHub rejects a step summary larger than this. */
export const STEP_SUMMARY_LIMIT = 1024 * 1024

/** Escapes a command's message: `%`, CR and LF. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/** Escapes a property value: as data, plus `:` and `,` which end a property. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

// Messages and titles quote names, reasons and output: no escape sequence or control character reaches the log (CR
// and LF are escaped).
const clean = (text: string) => stripControl(stripAnsi(text))

/** One workflow command line, newline included: the message and properties escaped, their control characters gone. */
export function workflowCommand(name: string, message: string, properties: Record<string, string> = {}): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(clean(value))}`)
    .join(',')
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(clean(message))}\n`
}

export interface ParsedWorkflowCommand {
  name: string
  properties: Record<string, string>
  /** The message, unescaped. */
  message: string
}

const COMMAND = /^\s*::([A-Za-z][\w-]*)(?: ([^:]*))?::(.*)$/
const unescape = (text: string) => text.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n').replace(/%3A/gi, ':').replace(/%2C/gi, ',').replace(/%25/g, '%')

/** The workflow command a line of a tool's output holds (`::error file=a.ts,line=3::msg`), unescaped; else null. */
export function readWorkflowCommand(line: string): ParsedWorkflowCommand | null {
  const m = COMMAND.exec(line)
  if (!m) return null
  const properties: Record<string, string> = {}
  for (const pair of (m[2] ?? '').split(',')) {
    const at = pair.indexOf('=')
    if (at > 0) properties[pair.slice(0, at).trim()] = unescape(pair.slice(at + 1))
  }
  return { name: m[1] as string, properties, message: unescape(m[3] as string) }
}
