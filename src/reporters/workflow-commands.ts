// GitHub Actions workflow commands (`::name key=value::message`), escaped as the runner unescapes them.

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

/** One workflow command line, newline included. */
export function workflowCommand(name: string, message: string, properties: Record<string, string> = {}): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(',')
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}\n`
}
