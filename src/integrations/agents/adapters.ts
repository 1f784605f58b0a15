// The stop-hook contracts of the coding agents verify gates: what each sends on stdin, and how each is told to keep
// working, to stop, or to show the user a message. Every agent's answer is one JSON object on stdout, exit code 0.
import { z } from 'zod'

export const AGENTS = ['claude-code', 'codex', 'cursor', 'gemini', 'copilot'] as const
export type AgentName = (typeof AGENTS)[number]

export function isAgentName(name: string): name is AgentName {
  return (AGENTS as readonly string[]).includes(name)
}

/** What verify needs of a stop event, whatever the agent. */
export interface StopEvent {
  /** The folder the agent works in (absolute or relative to the hook's cwd); null when the input names none. */
  cwd: string | null
  /** Identifies the conversation: blocks are counted per session and event. */
  session: string
  event: string
  /**
   * True when this stop follows a stop the hook blocked (the agent kept working because of it); false on the first
   * stop of a user turn, which resets the count of consecutive blocks; null when the agent does not say (Copilot's
   * agentStop has no such field): then only an approval, or the stop let through at the bound, resets the count.
   */
  continued: boolean | null
  /** False when the agent stopped for a reason verify must not gate (Cursor: aborted, error). */
  gate: boolean
}

/** An answer to the agent. `block` keeps it working with `reason` as its next instruction. */
export type HookAnswer = { kind: 'block'; reason: string; userMessage?: string } | { kind: 'allow'; userMessage?: string }

export interface AgentAdapter {
  name: AgentName
  /** Where `verify init --agent` installs the hook, relative to the project. */
  settingsFile: string
  /** The agent's own name for the events the hook is installed on. */
  events: readonly string[]
  /**
   * The variable in which the agent hands its hooks the project's folder (where the session started). It wins over
   * the event's `cwd`, which is wherever the agent last moved to: a folder of its own choosing, with a config of its
   * own choosing, would otherwise be the one gated.
   */
  projectDirEnv?: string
  parse(input: unknown): StopEvent
  answer(answer: HookAnswer): Record<string, unknown>
  /** The answer has no field for a message to the user: it goes to stderr, which the agent keeps in its hook log. */
  userMessageOnStderr?: boolean
}

/** Claude Code caps strings of a hook's answer at 10,000 characters; no agent needs more of a reason. */
export const MAX_REASON = 10_000

const text = z.string().max(4096)
const loose = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape)

// Claude Code, Codex and Gemini CLI send the same fields (Stop; SubagentStop on Claude Code; AfterAgent on Gemini).
const stopHookInput = loose({
  session_id: text.optional(),
  cwd: text.optional(),
  hook_event_name: text.optional(),
  stop_hook_active: z.boolean().optional(),
})

const cursorInput = loose({
  conversation_id: text.optional(),
  generation_id: text.optional(),
  status: z.enum(['completed', 'aborted', 'error']).optional(),
  loop_count: z.number().int().min(0).optional(),
  workspace_roots: z.array(text).max(64).optional(),
  hook_event_name: text.optional(),
})

const copilotInput = loose({
  sessionId: text.optional(),
  session_id: text.optional(),
  cwd: text.optional(),
  stop_hook_active: z.boolean().optional(),
  stopHookActive: z.boolean().optional(),
})

export class HookInputError extends Error {
  override name = 'HookInputError'
}

function parseWith<T extends z.ZodType>(schema: T, input: unknown, agent: AgentName): z.infer<T> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const [issue] = parsed.error.issues
  const where = issue?.path.length ? issue.path.join('.') : 'the input'
  throw new HookInputError(`the ${agent} hook input is not what ${agent} sends (${where}: ${issue?.message ?? 'invalid'})`)
}

/** The parser of the agents that send `session_id`, `cwd`, `hook_event_name` and `stop_hook_active`. */
function stopHookEvent(agent: AgentName, defaultEvent: string): (input: unknown) => StopEvent {
  return (input) => {
    const data = parseWith(stopHookInput, input, agent)
    return {
      cwd: data.cwd ?? null,
      session: data.session_id ?? 'unknown',
      event: data.hook_event_name ?? defaultEvent,
      continued: data.stop_hook_active === true,
      gate: true,
    }
  }
}

const cut = (reason: string) => (reason.length <= MAX_REASON ? reason : `${reason.slice(0, MAX_REASON - 40)}\n… (cut to fit the agent's limit)`)

/** `{ decision, reason }` answers (Claude Code, Codex, Copilot; Gemini says "deny"), with an optional user message. */
function decisionAnswer(blockWord: string, userMessages: boolean) {
  return (answer: HookAnswer): Record<string, unknown> => {
    const out: Record<string, unknown> = answer.kind === 'block' ? { decision: blockWord, reason: cut(answer.reason) } : {}
    if (answer.userMessage && userMessages) out.systemMessage = cut(answer.userMessage)
    return out
  }
}

export const ADAPTERS: Record<AgentName, AgentAdapter> = {
  'claude-code': {
    name: 'claude-code',
    settingsFile: '.claude/settings.json',
    events: ['Stop', 'SubagentStop'],
    projectDirEnv: 'CLAUDE_PROJECT_DIR',
    parse: stopHookEvent('claude-code', 'Stop'),
    answer: decisionAnswer('block', true),
  },
  codex: {
    name: 'codex',
    settingsFile: '.codex/hooks.json',
    events: ['Stop'],
    parse: stopHookEvent('codex', 'Stop'),
    answer: decisionAnswer('block', true),
  },
  cursor: {
    name: 'cursor',
    settingsFile: '.cursor/hooks.json',
    events: ['stop'],
    parse(input) {
      const data = parseWith(cursorInput, input, 'cursor')
      return {
        cwd: data.workspace_roots?.[0] ?? null,
        session: data.conversation_id ?? 'unknown',
        event: data.hook_event_name ?? 'stop',
        continued: (data.loop_count ?? 0) > 0,
        // Only a finished turn claims the work is done; an aborted or failed one claims nothing.
        gate: (data.status ?? 'completed') === 'completed',
      }
    },
    // Cursor submits `followup_message` as the user's next message; it has no separate channel to the user.
    answer: (answer) => (answer.kind === 'block' ? { followup_message: cut(answer.reason) } : {}),
  },
  gemini: {
    name: 'gemini',
    settingsFile: '.gemini/settings.json',
    events: ['AfterAgent'],
    projectDirEnv: 'GEMINI_PROJECT_DIR',
    parse: stopHookEvent('gemini', 'AfterAgent'),
    answer: decisionAnswer('deny', true),
  },
  copilot: {
    name: 'copilot',
    settingsFile: '.github/hooks/verify.json',
    events: ['agentStop'],
    parse(input) {
      const data = parseWith(copilotInput, input, 'copilot')
      return {
        cwd: data.cwd ?? null,
        session: data.sessionId ?? data.session_id ?? 'unknown',
        event: 'agentStop',
        continued: data.stop_hook_active ?? data.stopHookActive ?? null,
        gate: true,
      }
    },
    answer: decisionAnswer('block', false),
    userMessageOnStderr: true,
  },
}
