// How the GitHub Actions runner reads a step's output, for the tests (after actions/runner's ProcessInvoker and
// ActionCommand): lines end at LF, CR or CRLF; a line is a command when it starts, after whitespace, with
// `::name::` or holds `##[name]` anywhere; the runner compares culture-sensitively, so invisible characters (controls,
// format characters, variation selectors) do not count. Every name counts here, not only the runner's own: a test
// that passes here passes there. After `::stop-commands::<token>` only `<token>` is a command, and it resumes them.
// Escapes are undone as the runner undoes them.

export interface WorkflowCommand {
  name: string
  properties: Record<string, string>
  message: string
  line: number
}

export interface ParsedLog {
  commands: WorkflowCommand[]
  /** Lines shown as plain log text. */
  text: string[]
}

const unescapeData = (s: string) => s.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n').replace(/%25/g, '%')
const unescapeProperty = (s: string) => unescapeData(s.replace(/%3A/gi, ':').replace(/%2C/gi, ','))

// What ICU collation skips when the runner looks for `::` and `##[`.
const INVISIBLE = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\p{Cf}\u034F\u180B-\u180D\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu

function parseCommand(raw: string, index: number): WorkflowCommand | null {
  const line = raw.replace(INVISIBLE, '')
  const trimmed = line.trimStart()
  if (trimmed.startsWith('::')) {
    const end = trimmed.indexOf('::', 2)
    if (end >= 0) {
      const head = trimmed.slice(2, end)
      const space = head.indexOf(' ')
      const name = space < 0 ? head : head.slice(0, space)
      const properties: Record<string, string> = {}
      if (space >= 0) {
        for (const pair of head.slice(space + 1).split(',')) {
          const eq = pair.indexOf('=')
          if (eq > 0) properties[pair.slice(0, eq).trim()] = unescapeProperty(pair.slice(eq + 1))
        }
      }
      if (name !== '') return { name, properties, message: unescapeData(trimmed.slice(end + 2)), line: index }
    }
  }
  const at = line.indexOf('##[')
  if (at < 0) return null
  const end = line.indexOf(']', at)
  if (end < 0) return null
  const [name = '', ...props] = line.slice(at + 3, end).split(' ')
  if (name === '') return null
  return { name, properties: { raw: props.join(' ') }, message: unescapeData(line.slice(end + 1)), line: index }
}

export function parseWorkflowLog(log: string): ParsedLog {
  const commands: WorkflowCommand[] = []
  const text: string[] = []
  let stopToken: string | null = null
  const lines = log.split(/\r\n|\r|\n/)
  if (lines.at(-1) === '') lines.pop()
  for (const [index, line] of lines.entries()) {
    const command = parseCommand(line, index)
    if (stopToken !== null) {
      if (command?.name.toLowerCase() === stopToken.toLowerCase()) stopToken = null
      else text.push(line)
      continue
    }
    if (!command) {
      text.push(line)
      continue
    }
    if (command.name.toLowerCase() === 'stop-commands') stopToken = command.message
    commands.push(command)
  }
  return { commands, text }
}

// Escape sequences other than colours (SGR), and control characters other than tab and LF: a carriage return ends a
// line for the runner and rewrites it in a terminal.
const SGR = /\x1b\[[0-9;]*m/g
const UNSAFE_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/

/**
 * What is wrong with `text` as a CI log or a terminal's output: workflow commands other than `allowed` (and the
 * resume tokens of verify's folds), and any escape sequence but colours or control character but tab and LF.
 */
export function unsafeOutput(text: string, allowed: readonly string[] = []): string[] {
  const foreign = parseWorkflowLog(text).commands.filter((c) => !allowed.includes(c.name) && !/^[0-9a-f]{32}$/.test(c.name))
  const problems = foreign.map((c) => `workflow command ::${c.name}:: on line ${c.line + 1}`)
  const control = UNSAFE_CONTROL.exec(text.replace(SGR, ''))
  if (control) problems.push(`control character U+${(control[0].codePointAt(0) as number).toString(16).padStart(4, '0')} at ${control.index}`)
  return problems
}
