// `describeProtocol()`: a protocol's checks as Vitest tests. The protocol runs once, with its own parallelism and
// dependencies; each test waits for its check and shows how it ended, so every Vitest reporter shows the checks.
import { afterAll, beforeAll, describe, test, type TestContext } from 'vitest'
import { VerifyError } from '../../errors.js'
import { buildEvidenceFile } from '../../evidence/record.js'
import { saveEvidence } from '../../evidence/save.js'
import { openEvidenceSession, type EvidenceSession } from '../../evidence/session.js'
import { failingTestLines, failureExcerpt, howItEnded, moreTestsLine } from '../../reporters/excerpt.js'
import { runVerification } from '../../api.js'
import { createChecklist } from '../../runner/schedule.js'
import type { CheckResult, Checklist, ResolvedCheck, ResolvedProtocol, Summary } from '../../types.js'
import { withEvidenceLock } from '../lock.js'
import { shellEnvironment } from '../shell-env.js'
import { superviseProtocol, type ProtocolSupervision } from './supervise.js'
import { plainError } from '../test-run.js'
import { isFailing } from '../../status.js'
import { isBlocking } from '../../verdict/verdict.js'

export interface DescribeProtocolOptions {
  /** The verify config file (default: discovered from `cwd`). */
  config?: string
  /** Where to look for the config (default: the process's cwd, Vitest's root). */
  cwd?: string
  /** The evidence file (default: `.verify/evidence.json` next to the config). */
  evidence?: string
  /** The environment checks get (default: the shell's, without what Vitest added). */
  env?: NodeJS.ProcessEnv
}

/** Margin for spawning, draining output and writing logs, on top of a check's own timeout and grace. */
const MARGIN_MS = 5_000

/** Checks in an order where each comes after what it depends on (declaration order otherwise). */
function dependencyOrder(checks: readonly ResolvedCheck[]): ResolvedCheck[] {
  const byId = new Map(checks.map((c) => [c.id, c]))
  const out: ResolvedCheck[] = []
  const seen = new Set<string>()
  const visit = (check: ResolvedCheck) => {
    if (seen.has(check.id)) return
    seen.add(check.id)
    for (const dep of check.dependsOn) {
      const found = byId.get(dep)
      if (found) visit(found)
    }
    out.push(check)
  }
  for (const check of checks) visit(check)
  return out
}

/**
 * How long a check's test may wait. Tests run in dependency order, so when one starts its dependencies have settled;
 * the check may still wait for a free slot (at most the longest other check), then runs within its own timeout.
 */
function testTimeout(protocol: ResolvedProtocol, check: ResolvedCheck): number {
  const limit = protocol.parallel ? Math.max(1, protocol.concurrency) : 1
  const others = protocol.checks.filter((c) => c !== check && c.kind !== 'manual')
  const slotWait = others.length >= limit ? Math.max(0, ...others.map((c) => c.timeoutMs + protocol.graceMs)) : 0
  return check.timeoutMs + protocol.graceMs + slotWait + MARGIN_MS
}

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

interface ProtocolRun {
  checklist: Checklist
  settled: Map<string, Promise<CheckResult>>
  done: Promise<Summary>
  /** Vitest cancelled the run (Ctrl-C, --bail, a time limit): running checks are killed, the rest cancelled. */
  cancel(reason: string): void
}

function startRun(session: EvidenceSession, env: NodeJS.ProcessEnv): ProtocolRun {
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
  return (reason instanceof Error ? reason.message : String(reason)).replace(/\.$/, '')
}

function checkTest(check: ResolvedCheck, run: () => ProtocolRun, strictMode: boolean) {
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

/**
 * Declares one Vitest test per check of the protocol (default: "default", or the only one), in a suite named after
 * it, plus a last test that fails unless the verdict is approved. Writes the evidence file as `npx verify` does.
 */
export function describeProtocol(protocolName?: string, options: DescribeProtocolOptions = {}): void {
  const guard = process.env.VERIFY_CHECK_ID
  if (guard) {
    // Inside a check of verify, running the protocol again would recurse.
    describe(`verify${protocolName ? ` ${protocolName}` : ''}`, () => {
      test('protocol', (context) => context.skip(`skipped inside the verify check "${guard}": the protocol is not run from within itself`))
    })
    return
  }
  const env = options.env ?? shellEnvironment()
  // Loaded while Vitest collects the tests: they are the protocol's checks.
  describe(`verify${protocolName ? ` ${protocolName}` : ''}`, async () => {
    const session = await openEvidenceSession({
      cwd: options.cwd ?? process.cwd(),
      env,
      configEnv: env,
      configFile: options.config,
      evidence: options.evidence,
      protocol: protocolName,
    })
    const { protocol } = session.loaded
    let current: ProtocolRun | null = null
    const run = () => (current ??= startRun(session, env))
    const total = protocol.checks.reduce((sum, c) => sum + testTimeout(protocol, c), 0)
    let judged = false
    const judge = async () => {
      judged = true
      const summary = await run().done
      if (summary.verdict !== 'approved') {
        throw new Error([`verdict ${summary.verdict}`, ...summary.issues.map((i) => `• ${i}`), ...summary.recommendations.map((r) => `→ ${r}`)].join('\n'))
      }
    }
    beforeAll(() => void run())
    afterAll(async () => {
      if (!current) return
      // The verdict test filtered out (`-t build`): the verdict still decides the run. A failed run (the lock) has
      // failed its tests already.
      if (!judged && (await current.done.then(() => true).catch(() => false))) await judge()
      else await current.done.catch(() => {})
    }, total)
    for (const check of dependencyOrder(protocol.checks)) {
      const body = checkTest(check, run, protocol.strictMode)
      if (check.name === check.id) test(check.id, body, testTimeout(protocol, check))
      else describe(check.id, () => test(check.name, body, testTimeout(protocol, check)))
    }
    test('verdict', judge, total)
  })
}
