// `verify hook <agent> [protocol]`: the stop gate of a coding agent. Reads the agent's stop event on stdin, runs the
// protocol reusing valid evidence, and unless the verdict is approved answers in the agent's own form so that it keeps
// working, with the agent digest as its next instruction. It fails closed: whatever goes wrong blocks, with the problem
// as the reason, except after `--max-blocks` consecutive blocks, when the stop goes through with the user told plainly
// that the work is not verified.
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { findConfigDir } from '../config/discover.js'
import { DEFAULTS, VERIFY_DIR } from '../defaults.js'
import { formatDuration } from '../duration.js'
import { VerifyUsageError } from '../errors.js'
import { ADAPTERS, AGENTS, HookInputError, isAgentName, type AgentAdapter, type HookAnswer, type StopEvent } from '../integrations/agents/adapters.js'
import { BlockCounter, blockKey } from '../integrations/agents/block-count.js'
import { renderAgentDigest } from '../reporters/agent.js'
import { guardJson } from '../reporters/safe-text.js'
import type { Reporter, RunOutcome } from '../reporters/types.js'
import { duration, parse, positiveInt } from './args.js'
import { ExitCode } from './exit-code.js'
import { HOOK_FLAGS } from './flags.js'
import type { CliIO } from './io.js'
import { formatError } from './main.js'

const MAX_INPUT_BYTES = 1024 * 1024
const INPUT_TIMEOUT_MS = 10_000
/** The opt-out a person sets; nothing an agent's answer can do. */
export const HOOK_SWITCH = 'VERIFY_HOOK'

interface Run {
  code: number
  outcome: RunOutcome | null
  /** The run was stopped at the budget. */
  outOfTime: boolean
  /** What verify said on stderr (a config error, a usage error). */
  stderr: string
}

/** Time for the checks: the budget less what stopping them (TERM, grace, KILL) and answering take. */
function runBudget(budgetMs: number): number {
  return Math.max(budgetMs / 2, budgetMs - Math.max(10_000, budgetMs / 10))
}

async function runProtocol(projectDir: string, io: CliIO, flags: string[], budgetMs: number): Promise<Run> {
  let outcome: RunOutcome | null = null
  let stderr = ''
  const capture: Reporter = { onRunEnd: (o) => void (outcome = o) }
  const runIO: CliIO = {
    stdout: () => undefined,
    stderr: (text) => void (stderr = (stderr + text).slice(-20_000)),
    env: io.env,
    cwd: projectDir,
    isTTY: false,
  }
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), runBudget(budgetMs))
  // A run that does not settle even after its checks were stopped must not cost the agent its answer.
  let hardTimer: NodeJS.Timeout | undefined
  const spare = budgetMs - runBudget(budgetMs)
  const hard = new Promise<number>((done) => (hardTimer = setTimeout(() => done(ExitCode.incomplete), budgetMs - Math.min(2000, spare / 2))))
  try {
    const { runCommand } = await import('./run.js')
    const code = await Promise.race([
      runCommand(flags, runIO, { reporters: [capture], signal: controller.signal }).catch((error: unknown) => {
        stderr += formatError(error)
        return ExitCode.usage
      }),
      hard,
    ])
    return { code, outcome, outOfTime: controller.signal.aborted, stderr }
  } finally {
    clearTimeout(timer)
    clearTimeout(hardTimer)
  }
}

function blockReason(run: Run, budgetMs: number, projectDir: string): string {
  const again = 'npx verify run --reuse'
  if (run.outcome && run.outOfTime) {
    return `verify: verification did not finish in time (the hook's budget is ${formatDuration(budgetMs)}). Unfinished checks were stopped and recorded as incomplete.\n${renderAgentDigest(run.outcome, { cwd: projectDir, invocation: 'npx verify run' })}`
  }
  if (run.outcome) return renderAgentDigest(run.outcome, { cwd: projectDir, invocation: 'npx verify run' })
  if (run.outOfTime)
    return `verify: verification did not finish in time (the hook's budget is ${formatDuration(budgetMs)}). Run \`${again}\` and fix what it reports.`
  const problem = run.stderr.trim().replace(/^verify: /, '') || `verify exited with code ${run.code} without a verdict`
  return `verify could not run the protocol, so the work is not verified: ${problem}\nFix it, then run \`${again}\`.`
}

function notVerified(verdict: string, blocks: number): string {
  return `verify: the agent was held back ${blocks} time${blocks === 1 ? '' : 's'} in a row and is now let stop, but the work is NOT verified (verdict: ${verdict}). Run \`npx verify\` to see what is missing.`
}

/** Decides the answer to one stop event. */
async function decide(
  adapter: AgentAdapter,
  event: StopEvent | Error,
  values: Record<string, string | boolean | undefined>,
  positional: string | undefined,
  io: CliIO,
  lineProblem: string | null,
): Promise<HookAnswer> {
  // A mistake in the hook line blocks, but never unbounded: the defaults hold meanwhile and every block is counted.
  const problems = lineProblem ? [lineProblem] : []
  const setting = <T>(read: () => T | undefined, fallback: T): T => {
    try {
      return read() ?? fallback
    } catch (error) {
      problems.push((error as Error).message)
      return fallback
    }
  }
  const budgetMs = setting(() => duration('timeout', values.timeout as string | undefined), DEFAULTS.hookBudgetMs)
  const maxBlocks = setting(() => positiveInt('max-blocks', values['max-blocks'] as string | undefined), DEFAULTS.hookMaxBlocks)
  const stop: StopEvent = event instanceof Error ? { cwd: null, session: 'unknown', event: 'unknown', continued: true, gate: true } : event
  if (!stop.gate) return { kind: 'allow' }
  const given = adapter.projectDirEnv ? io.env[adapter.projectDirEnv] : undefined
  // Only a project that has a protocol: in a monorepo whose packages each have their own, the event's folder decides.
  const agentProject = given && isAbsolute(given) && findConfigDir(given).dir !== undefined ? given : undefined
  const projectDir = resolve(io.cwd, (values.cwd as string | undefined) ?? agentProject ?? stop.cwd ?? '.')
  const evidence = values.evidence as string | undefined
  const counter = new FallbackCounter(evidence ? dirname(resolve(projectDir, evidence)) : join(projectDir, VERIFY_DIR), projectDir)
  const key = blockKey(adapter.name, stop.session, stop.event)
  // A new user turn starts a new count: the bound is on blocks in a row within one turn. An agent that does not say
  // whether this stop follows a block keeps the count, so the bound holds there too, but not across a pause: a count
  // idle for TURN_GAP_MS belongs to an earlier turn or session.
  if (stop.continued === false) await counter.update(key, () => 0)
  else if (stop.continued === null) await counter.update(key, (n) => n, TURN_GAP_MS)

  let reason: string
  let verdict = 'incomplete'
  if (problems.length > 0) {
    reason = `verify's hook line is wrong, so the work is not verified: ${problems.map((problem) => problem.replace(/\.$/, '')).join('; ')}. Fix the hook's command in the agent's settings.`
  } else if (event instanceof Error) {
    reason = `verify could not read the stop event, so the work is not verified: ${event.message}`
  } else {
    // Subagents that stop at once run one after another (the evidence file's lock), within the budget.
    const flags = [...(positional ? [positional] : []), '--reuse', '--no-interactive', '--no-color', `--wait=${Math.floor(runBudget(budgetMs))}ms`]
    for (const name of ['config', 'evidence'] as const) if (values[name]) flags.push(`--${name}`, values[name] as string)
    const run = await runProtocol(projectDir, io, flags, budgetMs)
    verdict = run.outcome?.summary.verdict ?? 'incomplete'
    if (verdict === 'approved' && run.code === ExitCode.approved) {
      await counter.update(key, () => 0)
      return { kind: 'allow' }
    }
    reason = blockReason(run, budgetMs, projectDir)
  }
  const blocks = await counter.update(key, (n) => n + 1)
  if (blocks > maxBlocks) {
    await counter.update(key, () => 0)
    return { kind: 'allow', userMessage: notVerified(verdict, maxBlocks) }
  }
  // The agent may enforce a cap of its own (Claude Code and Copilot stop after 8 blocks): at the last block verify
  // allows, the user hears from verify that an end now means unverified work.
  const last =
    blocks === maxBlocks
      ? { userMessage: `verify: this is block ${blocks} of ${maxBlocks}; if the agent stops now, the work is NOT verified (verdict: ${verdict}).` }
      : {}
  return { kind: 'block', reason, ...last }
}

// Blocks in a row come minutes apart at most (the agent works, then stops again); a longer pause is a new turn.
const TURN_GAP_MS = 30 * 60_000

/**
 * The block counter in the project's `.verify/`, or — when that cannot be written (a file named `.verify`, a read-only
 * checkout) — in a folder of the system's temp dir for this project: the loop stays bounded either way.
 */
class FallbackCounter {
  readonly #primary: BlockCounter
  readonly #fallback: BlockCounter

  constructor(verifyDir: string, projectDir: string) {
    this.#primary = new BlockCounter(verifyDir)
    this.#fallback = new BlockCounter(join(tmpdir(), `verify-hook-${blockKey('project', projectDir, '')}`))
  }

  update(key: string, change: (count: number) => number, forgetAfterMs?: number): Promise<number> {
    return this.#primary.update(key, change, forgetAfterMs).catch(() => this.#fallback.update(key, change, forgetAfterMs))
  }
}

export async function hookCommand(argv: string[], io: CliIO): Promise<number> {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] }
  let lineProblem: string | null = null
  try {
    parsed = parse('hook', argv, HOOK_FLAGS)
  } catch (error) {
    // The agent still gets an answer in its own form: the words that are not flags name it.
    lineProblem = (error as Error).message
    parsed = { values: {}, positionals: argv.filter((word) => !word.startsWith('-')) }
  }
  const { values, positionals } = parsed
  const [agent, protocol, ...extra] = positionals
  if (!agent || !isAgentName(agent)) {
    throw new VerifyUsageError(
      `verify hook needs the agent it answers: ${AGENTS.join(', ')}${agent ? ` (got "${agent}")` : ''}. E.g. \`verify hook claude-code\`.`,
    )
  }
  if (extra.length > 0 && !lineProblem) throw new VerifyUsageError(`verify hook takes an agent and at most one protocol name, got: ${positionals.join(' ')}`)
  const adapter = ADAPTERS[agent]
  // The same JSON once parsed, with nothing the output layer would have to defuse (see guardJson).
  const say = (answer: HookAnswer) => {
    if (answer.userMessage && adapter.userMessageOnStderr) io.stderr(`${answer.userMessage}\n`)
    io.stdout(guardJson(`${JSON.stringify(adapter.answer(answer))}\n`))
  }
  if ((io.env[HOOK_SWITCH] ?? '').toLowerCase() === 'off') {
    say({ kind: 'allow', userMessage: `verify: the stop gate is off (${HOOK_SWITCH}=off): the work was not verified.` })
    return ExitCode.approved
  }
  let event: StopEvent | Error
  try {
    if (!io.readStdin) throw new HookInputError('no stdin to read the stop event from')
    const text = await io.readStdin(MAX_INPUT_BYTES, INPUT_TIMEOUT_MS)
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch {
      throw new HookInputError(`the hook input is not JSON (${text.trim() ? `${text.trim().slice(0, 60)}…` : 'empty'})`)
    }
    event = adapter.parse(data)
  } catch (error) {
    event = error instanceof Error ? error : new Error(String(error))
  }
  try {
    say(await decide(adapter, event, values, protocol, io, lineProblem))
  } catch (error) {
    // Fail closed: an error of verify itself still answers, and blocks.
    say({
      kind: 'block',
      reason: `verify failed while gating this stop, so the work is not verified: ${formatError(error)
        .trim()
        .replace(/^verify: /, '')}`,
    })
  }
  // The answer is on stdout; the exit code is 0 so every agent reads it (Claude Code ignores stdout on exit 2).
  return ExitCode.approved
}
