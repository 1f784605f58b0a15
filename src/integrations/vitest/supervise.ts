// describeProtocol's hold on the process while its protocol runs, as `verify run` has one (SPEC §4): Vitest cancelling
// the run (Ctrl-C, --bail, a test's time limit) cancels the checks; a signal to the worker kills every process group
// the checks started and writes the evidence as interrupted; the worker's exit kills them too; and a registry beside
// the evidence names the groups, so the next run (`verify` or Vitest) cleans what a worker killed outright left.
import { dirname, join } from 'node:path'
import { buildEvidenceFile } from '../../evidence/record.js'
import type { EvidenceSession } from '../../evidence/session.js'
import { sealEvidence } from '../../evidence/sign.js'
import { writeEvidenceFileSync } from '../../evidence/store.js'
import { cleanDeadRuns, openRegistry } from '../../runner/registry.js'
import { killAllGroups } from '../../runner/spawn.js'
import type { Checklist } from '../../types.js'
import { summarize } from '../../verdict/summary.js'

export interface ProtocolSupervision {
  /** Aborted when Vitest cancels the run: the checks are killed at once, the evidence written incomplete. */
  readonly signal: AbortSignal
  cancel(reason: string): void
  /** Removes the handlers and closes the registry. */
  end(): void
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * Whatever had not settled is cancelled, and the evidence written at once: the process is about to end (a signal), or
 * Vitest may end it any moment (its cancel). `signal`: recorded as the run's interruption.
 */
function writeInterrupted(session: EvidenceSession, checklist: Checklist, by: string, signal: string | null): void {
  for (const result of checklist.results) {
    if (result.status === 'running' || result.status === 'pending') Object.assign(result, { status: 'cancelled', reason: `interrupted by ${by}` })
  }
  try {
    const summary = summarize(checklist.results, checklist.protocol.strictMode, { interrupted: true })
    writeEvidenceFileSync(session.evidencePath, sealEvidence(buildEvidenceFile(checklist, summary, signal), session.redact, session.signingKey))
  } catch (error) {
    process.stderr.write(`verify: cannot write the evidence at ${session.evidencePath} (${(error as Error).message})\n`)
  }
}

export function superviseProtocol(session: EvidenceSession, checklist: Checklist): ProtocolSupervision {
  const controller = new AbortController()
  const runs = join(dirname(session.evidencePath), 'run')
  // What an earlier run killed before it could clean up left behind, as `verify run` cleans it.
  cleanDeadRuns(runs, [dirname(session.evidencePath)])
  const registry = openRegistry(runs, checklist.runId)
  // The worker ends while the protocol runs (Vitest's main process gone, its channel closed): in its last moment, the
  // checks are killed and the evidence written, as for a signal.
  // In this order: the groups die at once, the evidence is written, then the slower sweep of the run's tag (it reads
  // every process's environment) — Vitest gives a worker 500 ms between its SIGTERM and a SIGKILL.
  const onExit = () => {
    killAllGroups('SIGKILL')
    writeInterrupted(session, checklist, 'the end of the Vitest worker', null)
    registry.close()
  }
  const handlers = SIGNALS.map((signal) => {
    const handler = () => {
      killAllGroups('SIGKILL')
      writeInterrupted(session, checklist, signal, signal)
      registry.close()
      end()
      // Then the signal does to the worker what it would have done: Vitest's own handling, or the default end.
      process.kill(process.pid, signal)
    }
    return [signal, handler] as const
  })
  const end = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler)
    process.off('exit', onExit)
    registry.close()
  }
  for (const [signal, handler] of handlers) process.on(signal, handler)
  process.on('exit', onExit)
  // Vitest tears its workers down soon after it cancels, without waiting for a grace period: the checks are stopped
  // at once and the evidence written now; the run then settles them as cancelled and writes it again if it can.
  const cancel = (reason: string) => {
    if (controller.signal.aborted) return
    controller.abort(reason)
    killAllGroups('SIGKILL')
    writeInterrupted(session, checklist, reason, null)
  }
  return { signal: controller.signal, cancel, end }
}
