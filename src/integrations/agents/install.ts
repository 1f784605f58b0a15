// `verify init --agent <name>`: adds verify's stop gate to an agent's project settings, merged with what the file
// already holds. Other hooks are kept, a second install changes nothing, and a file verify cannot read as the agent's
// settings is refused untouched.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser'
import { VerifyUsageError } from '../../errors.js'
import { writeFilesAtomic } from '../../evidence/store.js'
import { ADAPTERS, type AgentName } from './adapters.js'

/** Seconds every agent is told it may wait for the hook: the hook's default budget (`verify hook --timeout 10m`). */
const HOOK_SECONDS = 600

export function hookCommandLine(agent: AgentName): string {
  return `npx verify hook ${agent}`
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The entry each agent's settings hold for one event. */
function entry(agent: AgentName): Json {
  const command = hookCommandLine(agent)
  switch (agent) {
    case 'claude-code':
    case 'codex':
      return { hooks: [{ type: 'command', command, timeout: HOOK_SECONDS }] }
    case 'gemini':
      // Gemini counts hook timeouts in milliseconds.
      return { hooks: [{ type: 'command', command, timeout: HOOK_SECONDS * 1000 }] }
    case 'cursor':
      return { command }
    case 'copilot':
      return { type: 'command', bash: command, timeoutSec: HOOK_SECONDS }
  }
}

/** Does this event's list already run verify's hook for the agent (in any form a person may have written)? */
function installed(list: readonly unknown[], agent: AgentName): boolean {
  const mentions = (value: unknown): boolean => typeof value === 'string' && value.includes(`verify hook ${agent}`)
  return list.some((item) => {
    if (!isObject(item)) return false
    if (mentions(item.command) || mentions(item.bash)) return true
    return Array.isArray(item.hooks) && item.hooks.some((hook) => isObject(hook) && mentions(hook.command))
  })
}

/** The settings file as text (a UTF-8 BOM apart) and as data; JSON with comments and trailing commas is read as such. */
function readSettings(file: string, shown: string): { text: string; bom: string; data: Json } {
  if (!existsSync(file)) return { text: '', bom: '', data: {} }
  const raw = readFileSync(file, 'utf8')
  const bom = raw.startsWith('\uFEFF') ? '\uFEFF' : ''
  const text = raw.slice(bom.length)
  const errors: ParseError[] = []
  const data: unknown = text.trim() === '' ? {} : parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  const first = errors[0]
  if (first) {
    const line = text.slice(0, first.offset).split('\n').length
    throw new VerifyUsageError(
      `${shown} is not valid JSON, even with comments (${printParseErrorCode(first.error)} at line ${line}); verify left it as it is. Fix or remove it, then run \`verify init --agent\` again.`,
    )
  }
  if (!isObject(data)) throw new VerifyUsageError(`${shown} does not hold a JSON object; verify left it as it is.`)
  return { text, bom, data }
}

/** The settings with `changes` set, edited in place: the comments, order and layout a person wrote stay. */
function editedSettings(text: string, changes: readonly [path: string[], value: unknown][]): string {
  const formattingOptions = { insertSpaces: true, tabSize: 2, eol: text.includes('\r\n') ? '\r\n' : '\n' }
  let edited = text.trim() === '' ? '{}\n' : text
  for (const [path, value] of changes) edited = applyEdits(edited, modify(edited, path, value, { formattingOptions }))
  return edited.endsWith('\n') ? edited : `${edited}\n`
}

export interface InstallResult {
  /** The settings file, relative to the project. */
  file: string
  /** Events the hook was added to now (empty: it was there already). */
  added: string[]
}

/** Merges verify's stop hook into the agent's settings file in `dir`. */
export async function installHook(dir: string, agent: AgentName): Promise<InstallResult> {
  return planHook(dir, agent).install()
}

/**
 * Reads and checks the agent's settings file now (a usage error when verify cannot read it as the agent's settings),
 * and writes the hook into it only on `install()`: `verify init` writes nothing at all when the settings are refused.
 */
export function planHook(dir: string, agent: AgentName): { install(): Promise<InstallResult> } {
  const adapter = ADAPTERS[agent]
  const file = join(dir, adapter.settingsFile)
  const { text, bom, data: settings } = readSettings(file, adapter.settingsFile)
  const hooks = settings.hooks ?? {}
  if (!isObject(hooks)) throw new VerifyUsageError(`${adapter.settingsFile}: "hooks" is not an object; verify left the file as it is.`)
  const added: string[] = []
  const changes: [string[], unknown][] = []
  // Cursor and Copilot files are versioned; keep a version that is there, set the one they document otherwise.
  if ((agent === 'cursor' || agent === 'copilot') && settings.version === undefined) changes.push([['version'], 1])
  for (const event of adapter.events) {
    const list = hooks[event] ?? []
    if (!Array.isArray(list)) throw new VerifyUsageError(`${adapter.settingsFile}: "hooks.${event}" is not a list; verify left the file as it is.`)
    if (installed(list, agent)) continue
    changes.push([
      ['hooks', event],
      [...list, entry(agent)],
    ])
    added.push(event)
  }
  return {
    async install() {
      if (added.length > 0) await writeFilesAtomic([{ target: file, text: bom + editedSettings(text, changes) }])
      return { file: adapter.settingsFile, added }
    },
  }
}
