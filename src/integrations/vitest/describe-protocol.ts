// `describeProtocol()`: a protocol's checks as Vitest tests. The protocol runs once, with its own parallelism and
// dependencies; each test waits for its check and shows how it ended, so every Vitest reporter shows the checks.
import { afterAll, beforeAll, describe, test } from 'vitest'
import type { ResolvedCheck, ResolvedProtocol } from '../../types.js'
import { shellEnvironment } from '../shell-env.js'
import { loadProtocolRunner } from '../bundled.js'
import type { ProtocolRun } from './protocol-run.js'

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
    const { checkTest, openEvidenceSession, startRun } = await loadProtocolRunner()
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
