// `verify init --agent <name>`: adds verify's stop gate to an agent's project settings, merged with what the file
// already holds. Other hooks are kept, a second install changes nothing, and a file verify cannot read as the agent's
// settings is refused untouched.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { VerifyUsageError } from '../../errors.js'
import { writeJsonAtomic } from '../../evidence/store.js'
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

function readSettings(file: string, shown: string): Json {
  if (!existsSync(file)) return {}
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new VerifyUsageError(
      `${shown} is not valid JSON (${(error as Error).message}); verify left it as it is. Fix or remove it, then run \`verify init --agent\` again.`,
    )
  }
  if (!isObject(data)) throw new VerifyUsageError(`${shown} does not hold a JSON object; verify left it as it is.`)
  return data
}

export interface InstallResult {
  /** The settings file, relative to the project. */
  file: string
  /** Events the hook was added to now (empty: it was there already). */
  added: string[]
}

/** Merges verify's stop hook into the agent's settings file in `dir`. */
export async function installHook(dir: string, agent: AgentName): Promise<InstallResult> {
  const adapter = ADAPTERS[agent]
  const file = join(dir, adapter.settingsFile)
  const settings = readSettings(file, adapter.settingsFile)
  const hooks = settings.hooks ?? {}
  if (!isObject(hooks)) throw new VerifyUsageError(`${adapter.settingsFile}: "hooks" is not an object; verify left the file as it is.`)
  const added: string[] = []
  for (const event of adapter.events) {
    const list = hooks[event] ?? []
    if (!Array.isArray(list)) throw new VerifyUsageError(`${adapter.settingsFile}: "hooks.${event}" is not a list; verify left the file as it is.`)
    if (installed(list, agent)) continue
    hooks[event] = [...list, entry(agent)]
    added.push(event)
  }
  if (added.length === 0) return { file: adapter.settingsFile, added }
  // Cursor and Copilot files are versioned; keep a version that is there, set the one they document otherwise.
  const versioned = agent === 'cursor' || agent === 'copilot' ? { version: settings.version ?? 1 } : {}
  await writeJsonAtomic(file, { ...versioned, ...settings, hooks })
  return { file: adapter.settingsFile, added }
}
