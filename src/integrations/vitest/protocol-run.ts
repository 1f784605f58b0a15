// The running half of `describeProtocol()` (describe-protocol.ts): the protocol's one run, its supervision and evidence,
// and each check's test body. Loaded when Vitest collects the tests, so that importing `verify-protocol/vitest` (a
// Vitest config does, for the plugin) loads none of verify's core.
import type { TestContext } from 'vitest'
import { VerifyError } from '../../errors.js'
import { buildEvidenceFile } from '../../evidence/record.js'
import { saveEvidence } from '../../evidence/save.js'
import { openEvidenceSession, type EvidenceSession } from '../../evidence/session.js'
import { failingTestLines, failureExcerpt, howItEnded, moreTestsLine } from '../../reporters/excerpt.js'
import { runVerification } from '../../api.js'
import { createChecklist } from '../../runner/schedule.js'
import type { CheckResult, Checklist, ResolvedCheck, Summary } from '../../types.js'
import { withEvidenceLock } from '../lock.js'
import { superviseProtocol, type ProtocolSupervision } from './supervise.js'
import { plainError } from '../test-run.js'
import { isFailing } from '../../status.js'
import { isBlocking } from '../../verdict/verdict.js'

export { openEvidenceSession }

const LINE_WIDTH = 300

/** The check's failure as a test error: how it ended, its failing tests, then the lines of its output that matter. */
function failureMessage(result: CheckResult): string {
  const lines = [`${result.name}: ${howItEnded(result)}`]
  const found = failureExcerpt(result, { maxLines: 30, maxTests: 5, width: LINE_WIDTH })
  const tests = found.tests.flatMap((failing) => failingTestLines(failing, LINE_WIDTH).map((line, i) => (i === 0 ? `✗ ${line}` : `  ${line}`)))
  if (tests.length) lines.push('', ...tests, ...moreTestsLine(found))
  if (found.matches.length) lines.push('', ...found.matches)
  if (found.matches.length && found.tail.length) lines.push('⋮')
  if (found.tail.length) lines.push(...(found.matches.length ? [] : ['']), ...found.tail)
  if (result.evidence?.command) lines.push('', `$ ${result.evidence.command}`)
  return lines.join('\n')
}

export interface ProtocolRun {
  checklist: Checklist
  settled: Map<string, Promise<CheckResult>>
  done: Promise<Summary>
  /** Vitest cancelled the run (Ctrl-C, --bail, a time limit): running checks are killed, the rest cancelled. */
  cancel(reason: string): void
}

export function startRun(session: EvidenceSession, env: NodeJS.ProcessEnv): ProtocolRun {
  const { protocol } = session.loaded
  const checklist = createChecklist(protocol)
  const resolvers = new Map<string, { resolve: (result: CheckResult) => void; reject: (error: unknown) => void }>()
  const settled = new Map(protocol.checks.map((c) => [c.id, new Promise<CheckResult>((resolve, reject) => resolvers.set(c.id, { resolve, reject }))]))
  // One run at a time per evidence file, as `verify run`: the lock is held from the first check to the written file.
  let supervision: ProtocolSupervision | undefined
  let cancelled: string | undefined
  const done = withEvidenceLock(session.evidencePath, 'vitest describeProtocol', async () => {
    supervision = superviseProtocol(session, checklist)
    if (cancelled !== undefined) supervision.cancel(cancelled)
    try {
      const summary = await runVerification(checklist, {
        env,
        transform: session.redact,
        logDir: session.logDir,
        signal: supervision.signal,
        reporter: { onCheckEnd: (check, result) => resolvers.get(check.id)?.resolve(result) },
      })
      await saveEvidence(session, buildEvidenceFile(checklist, summary))
      return summary
    } finally {
      supervision.end()
    }
  })
  // A run that could not start (the lock) or write fails every test that waits for it, with its reason.
  done.catch((error: unknown) => {
    for (const { reject } of resolvers.values()) reject(plainError(error))
  })
  // Handled here too: a check whose test was filtered out is never awaited.
  for (const result of settled.values()) result.catch(() => {})
  const cancel = (reason: string) => {
    cancelled ??= reason
    supervision?.cancel(reason)
  }
  return { checklist, settled, done, cancel }
}

function abortMessage(reason: unknown): string {
  // Not `instanceof Error`: in Vitest's VM pools the reason is an Error of the test file's context, not of this one.
  const message = (reason as { message?: unknown } | null)?.message
  return (typeof message === 'string' ? message : String(reason)).replace(/\.$/, '')
}

export function checkTest(check: ResolvedCheck, run: () => ProtocolRun, strictMode: boolean) {
  return async (context: TestContext) => {
    const protocolRun = run()
    // Vitest aborts a test's signal when the run is cancelled (Ctrl-C, --bail) or the test runs out of time.
    context.signal.addEventListener('abort', () => protocolRun.cancel(`Vitest (${abortMessage(context.signal.reason)})`), { once: true })
    const result = await protocolRun.settled.get(check.id)
    if (!result) throw new VerifyError('E_USAGE', `check "${check.id}" did not settle`)
    // An optional check's failure only warns (SPEC §6.2): the Vitest run fails exactly when `npx verify` would.
    if (isFailing(result.status) && !isBlocking(result, strictMode)) return context.skip(`optional check, not blocking: ${howItEnded(result)}`)
    switch (result.status) {
      case 'passed':
        return
      case 'skipped':
      case 'cancelled':
        return context.skip(`${result.status}: ${result.reason ?? 'no reason given'}`)
      case 'pending_manual':
        return context.skip(`waiting for approval: ${check.manual ?? 'a person approves it'} (npx verify approve ${check.id} --by <name>)`)
      default:
        throw new Error(failureMessage(result))
    }
  }
}
