// `verify run`, step 2 — execute: the checks run under supervision (signals, the run registry, nothing outliving
// verify), then a person at the terminal may approve the manual checks still waiting.
import { join, dirname } from 'node:path'
import { openRegistry, type RunRegistry } from '../../runner/registry.js'
import { runChecks } from '../../runner/schedule.js'
import { killAllGroups } from '../../runner/spawn.js'
import { canPrompt, promptApprovals } from '../approve.js'
import { exitCodeOfSignal } from '../exit-code.js'
import type { CliIO } from '../io.js'
import { writeInterruptedEvidence } from './finalise.js'
import type { RunExtras, RunPlan } from './plan.js'

export type Signal = 'SIGINT' | 'SIGTERM' | 'SIGHUP'

/** The run's hold on the process while it runs: which signal interrupted it, and the release of everything it holds. */
export interface Supervision {
  readonly signal: AbortSignal
  /** The first signal that interrupted the run; null while none did. */
  interrupted(): Signal | null
  /** Ctrl-C at an approval prompt: an interrupt like any other. */
  interruptedAtPrompt(): void
  /** Removes the handlers and closes the registry (the caller still releases the lock). */
  end(): void
}

/**
 * Signals stop the run: the first aborts the checks (their evidence is written, incomplete); a second stops waiting
 * for graceful ends, writes what is known and exits. Whatever way verify exits, no check's process outlives it.
 */
export function supervise(plan: RunPlan, rawIO: CliIO, extras: RunExtras): Supervision {
  const controller = new AbortController()
  let interrupted: Signal | null = null
  const onSignal = (signal: Signal) => {
    if (interrupted) {
      killAllGroups('SIGKILL')
      writeInterruptedEvidence(plan, interrupted, rawIO)
      process.exit(exitCodeOfSignal(interrupted))
    }
    interrupted = signal
    controller.abort(signal)
  }
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = () => onSignal(signal)
    process.on(signal, handler)
    return [signal, handler] as const
  })
  const registry: RunRegistry = openRegistry(join(dirname(plan.context.evidencePath), 'run'), plan.checklist.runId)
  // Last resort: if verify exits for any reason, no check's process (in its group or escaped) outlives it.
  const killEverything = () => {
    killAllGroups('SIGKILL')
    registry.close()
  }
  process.on('exit', killEverything)
  const onExtraAbort = () => onSignal('SIGTERM')
  if (extras.signal?.aborted) onExtraAbort()
  extras.signal?.addEventListener('abort', onExtraAbort, { once: true })
  return {
    signal: controller.signal,
    interrupted: () => interrupted,
    interruptedAtPrompt: () => void (interrupted = 'SIGINT'),
    end() {
      for (const [signal, handler] of handlers) process.off(signal, handler)
      process.off('exit', killEverything)
      extras.signal?.removeEventListener('abort', onExtraAbort)
      registry.close()
    },
  }
}

/** Runs the checks the plan did not settle, then offers the waiting manual checks for approval; returns the runner's warnings. */
export async function executeRun(plan: RunPlan, supervision: Supervision, rawIO: CliIO): Promise<string[]> {
  const { context, io, checklist } = plan
  const run = await runChecks(checklist, {
    signal: supervision.signal,
    reporter: plan.reporter,
    sequential: plan.sequential,
    ...(plan.only ? { only: plan.only } : {}),
    ...(plan.skip ? { skip: plan.skip } : {}),
    logDir: context.logDir,
    env: io.env,
    transform: context.redact,
    workspace: plan.workspace.workspace,
    settled: plan.prior.settled,
    ...(plan.shard ? { shard: plan.shard } : {}),
  })
  if (!supervision.interrupted() && plan.interactive && canPrompt(rawIO)) {
    try {
      await promptApprovals(context, checklist, plan.workspace.workspace, io)
    } catch (error) {
      // Ctrl-C at a question is an interrupt like any other: the evidence is still written, exit 130.
      if ((error as Error).name !== 'AbortError') throw error
      supervision.interruptedAtPrompt()
    }
  }
  return run.warnings
}
