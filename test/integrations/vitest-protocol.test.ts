// `describeProtocol()` end to end with real Vitest runs: the checks as tests in Vitest's reporters, the evidence file
// as `npx verify` writes it, the environment checks get, and no recursion when a check runs the same suite.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { readEvidenceFile } from '../../src/evidence/store.js'
import { cleanup, readPids, sleep, survivors } from '../helpers/cli.js'
import { checkLine, removeProjects } from '../helpers/project.js'
import { killTools, runnerProject, runTool, startTool, VITEST_BIN, withoutOuterVitest } from './helpers.js'

function killTree(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !condition(); await sleep(50)) if (Date.now() > until) throw new Error('timed out waiting')
}

afterEach(async () => {
  killTools()
  await cleanup()
})
afterAll(removeProjects)

const STATUSES = { slow: 'passed', build: 'passed', env: 'passed', types: 'failed', hang: 'timed_out', docs: 'skipped', review: 'pending_manual' }

/** A protocol whose lint check fails, optional or not. */
const lintFails = (required: boolean) =>
  `import { defineProtocol } from 'verify-protocol'\nexport default defineProtocol({ checks: { build: 'echo built', lint: { command: 'echo "lint warning" >&2; exit 1', required: ${required} } } })\n`

describe('describeProtocol', () => {
  test('each check is a test in the verbose reporter; the run fails; the evidence is what verify writes', { timeout: 90_000 }, async () => {
    const p = runnerProject('vitest-protocol')
    const run = await runTool(VITEST_BIN, ['run', '--reporter=verbose'], p.dir, { env: { USER_VAR: 'kept' } })
    const out = run.stdout
    expect(run.code, out + run.stderr).toBe(1)
    expect(out).toMatch(/✓ verify\.test\.ts > verify > build > Build/)
    expect(out).toMatch(/✓ verify\.test\.ts > verify > env/)
    expect(out).toMatch(/× verify\.test\.ts > verify > types > Typecheck/)
    expect(out).toMatch(/✓ verify\.test\.ts > verify > slow \d{4}ms/)
    expect(out).toMatch(/× verify\.test\.ts > verify > hang/)
    expect(out).toMatch(/↓ verify\.test\.ts > verify > docs .*\[skipped: its dependency "types" did not pass \(failed\)\]/)
    expect(out).toMatch(/↓ verify\.test\.ts > verify > review .*\[waiting for approval: A reviewer has read the design/)
    expect(out).toMatch(/× verify\.test\.ts > verify > verdict/)
    // The failure shows how the check ended and the lines that matter of its output.
    expect(out).toContain('Typecheck: exit code 2')
    expect(out).toContain('src/a.ts(3,7): error TS2322: Type string is not assignable to type number')
    expect(out).toMatch(/hang: timed out after 1s/)
    expect(out).toContain('verdict rejected')

    const stored = await readEvidenceFile(p.evidencePath)
    if (!stored.ok) throw new Error(stored.reason)
    expect(Object.fromEntries(stored.file.checks.map((c) => [c.id, c.status]))).toEqual(STATUSES)
    expect(stored.file.summary.verdict).toBe('rejected')
    // Vitest's variables stay out of the checks; the shell's own do not.
    expect(
      readFileSync(join(p.dir, '.verify', 'logs', 'env.log'), 'utf8')
        .trim()
        .split('\n'),
    ).toEqual(['NODE_ENV=unset', 'VITEST=unset', 'TEST=unset', 'MODE=unset', 'VITEST_WORKER_ID=unset', 'USER_VAR=kept'])
    // `verify check` reads the same file and binding.
    const check = await p.verify('check', [], { env: withoutOuterVitest() })
    expect(check.code).toBe(1)
    expect(checkLine(check.stdout, 'build')).toContain('valid')
  })

  test('the junit reporter shows checks as testcases; a NODE_ENV the shell had reaches the checks', { timeout: 90_000 }, async () => {
    const p = runnerProject('vitest-protocol')
    const junit = join(p.outside, 'junit.xml')
    const run = await runTool(VITEST_BIN, ['run', '--reporter=junit', `--outputFile.junit=${junit}`], p.dir, { env: { NODE_ENV: 'production' } })
    expect(run.code).toBe(1)
    const xml = readFileSync(junit, 'utf8')
    expect(xml.match(/<testcase /g)).toHaveLength(8)
    expect(xml).toMatch(/<testcase classname="verify\.test\.ts" name="verify &gt; types &gt; Typecheck"[^>]*>\s*<failure message="Typecheck: exit code 2/)
    expect(xml).toContain('error TS2322')
    expect(xml).toMatch(/name="verify &gt; review"[^>]*>\s*<skipped\/>/)
    expect(readFileSync(join(p.dir, '.verify', 'logs', 'env.log'), 'utf8')).toContain('NODE_ENV=production\nVITEST=unset')
  })

  test(
    'the Vitest run fails exactly when the verdict is not approved: an optional failure only warns; a filter keeps the verdict',
    { timeout: 90_000 },
    async () => {
      const p = runnerProject('vitest-protocol')
      p.write('verify.config.ts', lintFails(false))
      const optional = await runTool(VITEST_BIN, ['run', '--reporter=verbose'], p.dir)
      expect(optional.code, optional.stdout + optional.stderr).toBe(0)
      expect(optional.stdout).toMatch(/↓ verify\.test\.ts > verify > lint .*\[optional check, not blocking: exit code 1\]/)
      expect(optional.stdout).toMatch(/✓ verify\.test\.ts > verify > verdict/)
      expect(p.evidence().summary.verdict).toBe('approved')

      p.write('verify.config.ts', lintFails(true))
      const filtered = await runTool(VITEST_BIN, ['run', '--reporter=verbose', '-t', 'build'], p.dir)
      expect(filtered.code, filtered.stdout + filtered.stderr).toBe(1)
      expect(filtered.stdout + filtered.stderr).toContain('verdict rejected')
      expect(p.evidence().summary.verdict).toBe('rejected')
    },
  )

  test("in Vitest's VM pools too (each test file in a VM context of its own, with Vitest's own `node:module`)", { timeout: 90_000 }, async () => {
    const p = runnerProject('vitest-protocol')
    p.write('verify.config.ts', lintFails(false))
    const run = await runTool(VITEST_BIN, ['run', '--reporter=verbose', '--pool=vmThreads'], p.dir)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/✓ verify\.test\.ts > verify > build/)
    expect(run.stdout).toMatch(/↓ verify\.test\.ts > verify > lint .*\[optional check, not blocking: exit code 1\]/)
    expect(p.evidence().summary.verdict).toBe('approved')
  })

  test("Ctrl-C to Vitest ends the checks' processes (one ignores SIGTERM) and writes the evidence incomplete", { timeout: 60_000 }, async () => {
    const p = runnerProject('vitest-protocol')
    const pids = join(p.outside, 'pids')
    p.write(
      'verify.config.ts',
      `export default { killGrace: '1s', checks: { long: 'echo $$ >> "${pids}"; sleep 41', stubborn: "trap '' TERM; echo $$ >> '${pids}'; sleep 42" } }\n`,
    )
    const vitest = startTool(VITEST_BIN, ['run'], p.dir)
    await waitUntil(() => existsSync(pids) && readPids(pids).length === 2)
    const started = readPids(pids)
    try {
      process.kill(-(vitest.child.pid as number), 'SIGINT')
      await vitest.done
      expect(await survivors(started, 3000)).toEqual([])
    } finally {
      // Each check leads a process group of its own: none may outlive the test, whatever it found.
      for (const pid of started) killTree(pid)
    }
    // Vitest's main process may end first: its worker writes the evidence in the moments after.
    await waitUntil(() => existsSync(p.evidencePath), 10_000)
    const file = p.evidence()
    expect(file.summary.verdict).toBe('incomplete')
    expect(file.checks.map((c) => c.status)).toEqual(['cancelled', 'cancelled'])
  })

  test('a check that runs the same Vitest suite finds the suite skipped inside it: nothing recurses', { timeout: 120_000 }, async () => {
    const p = runnerProject('vitest-recursion')
    const run = await runTool(VITEST_BIN, ['run', '--reporter=verbose'], p.dir, { timeoutMs: 100_000 })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/✓ verify\.test\.ts > verify > test/)
    expect(run.stdout).toMatch(/✓ verify\.test\.ts > verify > verdict/)
    const inner = readFileSync(join(p.dir, '.verify', 'logs', 'test.log'), 'utf8')
    expect(inner).toMatch(/↓ verify\.test\.ts > verify > protocol .*\[skipped inside the verify check "test": the protocol is not run from within itself\]/)
    expect(p.evidence().summary.verdict).toBe('approved')
  })
})
