// How the GitHub Actions runner reads a step's output, for the tests: each line that starts (after leading
// spaces) with `::` or `##[` is a command, unless commands were stopped with `::stop-commands::<token>` and not
// yet resumed with `::<token>::`. Escapes are undone as the runner undoes them.

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

function parseCommand(line: string, index: number): WorkflowCommand | null {
  const trimmed = line.trimStart()
  if (trimmed.startsWith('##[')) {
    const end = trimmed.indexOf(']')
    if (end < 0) return null
    const [name = '', ...props] = trimmed.slice(3, end).split(' ')
    return { name, properties: { raw: props.join(' ') }, message: trimmed.slice(end + 1), line: index }
  }
  if (!trimmed.startsWith('::')) return null
  const end = trimmed.indexOf('::', 2)
  if (end < 0) return null
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
  if (name === '') return null
  return { name, properties, message: unescapeData(trimmed.slice(end + 2)), line: index }
}

export function parseWorkflowLog(log: string): ParsedLog {
  const commands: WorkflowCommand[] = []
  const text: string[] = []
  let stopToken: string | null = null
  const lines = log.split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, '')
    if (stopToken !== null) {
      if (line.trim() === `::${stopToken}::`) stopToken = null
      else text.push(line)
      continue
    }
    const command = parseCommand(line, index)
    if (!command) {
      text.push(line)
      continue
    }
    if (command.name === 'stop-commands') stopToken = command.message
    commands.push(command)
  }
  return { commands, text }
}
