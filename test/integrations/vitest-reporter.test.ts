// The Vitest reporter and plugin, end to end with real Vitest runs: test evidence recorded from the runner's own run,
// accepted by `verify check` and `verify run --reuse` only when the run proves the whole suite.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '../helpers/cli.js'
import { checkLine, removeProjects } from '../helpers/project.js'
import { groupAlive, killTools, runnerProject, runTool, startTool, until, VITEST_BIN, withoutOuterVitest } from './helpers.js'

const VITEST_VERSION = (JSON.parse(readFileSync(join(VITEST_BIN, '..', 'package.json'), 'utf8')) as { version: string }).version

afterEach(async () => {
  killTools()
  await cleanup()
})
afterAll(removeProjects)

// The recording happens in Vitest's main process, whatever runs the tests: every run but the first (Vitest's defaults)
// runs them in one thread, which costs a third less than a fresh process per file.
const LEAN = ['--pool=threads', '--no-isolate']
const vitest = (dir: string, args: readonly string[], env: Record<string, string | undefined> = {}) =>
  runTool(VITEST_BIN, ['run', ...LEAN, ...args], dir, { env })

describe('the Vitest reporter', () => {
  test('a full run records evidence that verify check and verify run --reuse accept, next to the reporters of the command line', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    const junit = join(p.outside, 'junit.xml')
    const run = await runTool(VITEST_BIN, ['run', ...LEAN, '--reporter=verbose', '--reporter=junit', `--outputFile.junit=${junit}`], p.dir)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    // The command line's reporters still report; the plugin's reporter records.
    expect(run.stdout).toMatch(/✓ test\/add\.test\.ts > adds small numbers/)
    expect(run.stdout).toMatch(/↓ test\/sum\.test\.ts > sums nothing/)
    expect(run.stdout).toContain('verify: recorded "test" evidence (3 tests, full run')
    expect(readFileSync(junit, 'utf8').match(/<testcase /g)).toHaveLength(5)

    const recorded = p.check('test')
    expect(recorded.status).toBe('passed')
    expect(recorded.evidence?.tests).toEqual({ passed: 3, failed: 0, skipped: 1, todo: 1, failures: [] })
    expect(recorded.evidence?.recordedBy).toEqual({ runner: 'vitest', version: VITEST_VERSION, fullRun: true })
    expect(recorded.evidence?.command).toContain('vitest run')
    // Checks nothing recorded are not claimed.
    expect(p.check('lint')).toMatchObject({ status: 'skipped', reason: 'no evidence recorded', evidence: null })

    const check = await p.verify('check', [], { env: withoutOuterVitest() })
    expect(checkLine(check.stdout, 'test')).toMatch(/valid \(recorded by vitest reporter, 3 tests, \S+ ago\)/)

    const reuse = await p.verify('run', ['--reuse'], { env: withoutOuterVitest() })
    expect(reuse.code, reuse.stdout + reuse.stderr).toBe(0)
    // Only lint ran: the suite did not run a second time.
    expect(p.check('test').evidence).toMatchObject({ reused: true, recordedBy: { runner: 'vitest', fullRun: true } })
    expect(p.check('lint').evidence?.reused).toBeUndefined()
  })

  test('a failing run records the failing tests with file, line and message; verify check rejects', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    const run = await vitest(p.dir, [], { BREAK_TEST: '1' })
    expect(run.code).toBe(1)
    const recorded = p.check('test')
    expect(recorded).toMatchObject({ status: 'failed', reason: '1 of 3 tests failed' })
    expect(recorded.evidence?.tests?.failures).toEqual([
      { name: 'adds negative numbers', file: 'test/add.test.ts', line: 6, message: expect.stringContaining('expected -2 to be +0') },
    ])
    expect(recorded.evidence?.output.text).toContain('FAIL test/add.test.ts:6 > adds negative numbers')
    const check = await p.verify('check', [], { env: withoutOuterVitest() })
    expect(check.code).toBe(1)
  })

  test('a run that Vitest fails after the tests passed (a coverage threshold) is recorded as failed; verify check rejects', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    const run = await vitest(p.dir, [], { COVERAGE_GATE: '1' })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stderr).toMatch(/does not meet global threshold/)
    const recorded = p.check('test')
    expect(recorded).toMatchObject({ status: 'failed' })
    expect(recorded.reason).toMatch(/Vitest failed the run after the tests/)
    expect(recorded.evidence?.passed).toBe(false)
    const check = await p.verify('check', [], { env: withoutOuterVitest() })
    expect(check.code).toBe(1)
  })

  test.each([
    { name: 'a name filter', args: ['-t', 'small'], why: 'tests filtered by name (-t /small/)' },
    // Filtered down to nothing: no failure of the suite either.
    { name: 'a name filter that matches nothing', args: ['-t', 'nothing-has-this-name'], why: 'tests filtered by name (-t /nothing-has-this-name/)' },
    { name: 'a file filter', args: ['test/sum.test.ts'], why: '1 of 2 test files ran' },
    { name: 'a shard', args: ['--shard=1/2'], why: 'a shard of the suite (--shard 1/2)' },
    { name: 'an --exclude', args: ['--exclude', 'test/sum.test.ts'], why: 'test files left out on the command line (--exclude test/sum.test.ts)' },
    {
      name: 'only the type tests',
      args: ['--typecheck.only'],
      why: 'only the type tests ran (--typecheck.only), which the "test" check\'s command does not give',
    },
  ])('a run with $name does not count, and verify check says why', async ({ args, why }) => {
    const p = runnerProject('vitest-reporter', { git: true })
    const run = await vitest(p.dir, args)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const recorded = p.check('test')
    expect(recorded.status).toBe('stale')
    expect(recorded.reason).toContain(why)
    expect(recorded.evidence?.recordedBy?.fullRun).toBe(false)
    expect(recorded.evidence?.recordedBy?.notFull).toContain(why)
    const check = await p.verify('check', [], { env: withoutOuterVitest() })
    expect(check.code).toBe(3)
    expect(checkLine(check.stdout, 'test')).toContain(`recorded by a vitest run that does not count: ${why}`)
    const reuse = await p.verify('run', ['--reuse', '--only', 'lint'], { env: withoutOuterVitest() })
    expect(reuse.code).toBe(3)
  })

  test('.only and a bail cut-off do not count', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    p.write(
      'test/focus.test.ts',
      "import { expect, test } from 'vitest'\ntest.only('focused', () => expect(1).toBe(1))\ntest('left out', () => expect(1).toBe(1))\n",
    )
    await vitest(p.dir, [])
    expect(p.check('test').evidence?.recordedBy?.notFull).toBe('tests focused with .only in test/focus.test.ts: the others were skipped')
    // Vitest's options form focuses as well.
    p.write(
      'test/focus.test.ts',
      "import { expect, test } from 'vitest'\ntest('focused', { only: true }, () => expect(1).toBe(1))\ntest('left out', () => expect(1).toBe(1))\n",
    )
    await vitest(p.dir, [])
    expect(p.check('test').evidence?.recordedBy?.notFull).toBe('tests focused with .only in test/focus.test.ts: the others were skipped')

    const q = runnerProject('vitest-reporter', { git: true })
    const bailed = await vitest(q.dir, ['--bail=1', '--no-file-parallelism'], { BREAK_TEST: '1' })
    expect(bailed.code).toBe(1)
    expect(q.check('test')).toMatchObject({
      status: 'failed',
      evidence: { recordedBy: { fullRun: false, notFull: expect.stringContaining('bail stopped the run') } },
    })
  })

  test('the reporter form (`reporters: [..., "verify-protocol/vitest/reporter"]`) records too, with the config the check names', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    p.write('verify.config.ts', p.read('verify.config.ts').replace('vitest.mjs run ', 'vitest.mjs run --config vitest.reporters.config.ts '))
    const run = await vitest(p.dir, ['--config', './vitest.reporters.config.ts'])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ runner: 'vitest', fullRun: true })
    // The same option under its other name.
    expect((await vitest(p.dir, ['-c', 'vitest.reporters.config.ts'])).code).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ runner: 'vitest', fullRun: true })
  })

  test.each([
    { name: '--dir', args: ['--dir', 'test/more'], why: 'Vitest was started with --dir test/more' },
    { name: 'a config of its own', args: ['--config', 'narrow.config.ts'], why: 'Vitest was started with --config narrow.config.ts' },
    { name: 'another folder', args: ['--root', '..'], cwd: 'test', why: 'Vitest ran in test, not in the folder the "test" check runs in' },
  ])('a run set up otherwise than the check ($name) does not count', async ({ args, cwd, why }) => {
    const p = runnerProject('vitest-reporter', { git: true })
    // Inside test/more, the config's `include` (test/**/*.test.ts) finds this file alone.
    p.write('test/more/test/more.test.ts', "import { expect, test } from 'vitest'\ntest('more', () => expect(1).toBe(1))\n")
    p.write('narrow.config.ts', p.read('vitest.config.ts').replace('test/**/*.test.ts', 'test/more/**/*.test.ts'))
    const run = await vitest(cwd ? p.path(cwd) : p.dir, args)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ fullRun: false, notFull: expect.stringContaining(why) })
    expect((await p.verify('check', [], { env: withoutOuterVitest() })).code).toBe(3)
  })

  test.each([
    // Options no list of filters names: anything the check's command does not give, but for how Vitest reports or
    // spreads its work (the other runs here add --pool=threads --no-isolate and count).
    { name: 'coverage turned off', args: ['--coverage.enabled=false'], env: { COVERAGE_GATE: '1' }, why: 'Vitest was started with --coverage.enabled false' },
    { name: 'retries', args: ['--retry=2'], env: {}, why: 'Vitest was started with --retry 2' },
    { name: 'snapshots rewritten (-u)', args: ['-u'], env: {}, why: 'Vitest was started with -u' },
    // Tests that leak state pass or fail by the pool and isolation: the check here gives neither.
    { name: 'no isolation', args: ['--no-isolate'], env: {}, why: 'Vitest was started with --no-isolate', own: true },
  ])('a run given an option the check does not give ($name) does not count', async ({ args, env, why, own }) => {
    const p = runnerProject('vitest-reporter', { git: true })
    if (own) p.write('verify.config.ts', p.read('verify.config.ts').replace(' --pool=threads --no-isolate', ''))
    const run = await (own ? runTool(VITEST_BIN, ['run', ...args], p.dir) : vitest(p.dir, args, env))
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ fullRun: false, notFull: expect.stringContaining(why) })
    expect((await p.verify('check', [], { env: withoutOuterVitest() })).code).toBe(3)
  })

  test('a run that leaves out an option the check gives (coverage, whose thresholds then do not apply) does not count', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    p.write(
      'vitest.config.ts',
      p.read('vitest.config.ts').replace('...(coverage ? { coverage } : {})', 'coverage: { ...reported, enabled: false, thresholds: { lines: 100 } }'),
    )
    p.write('verify.config.ts', p.read('verify.config.ts').replace('vitest.mjs run ', 'vitest.mjs run --coverage '))
    const run = await vitest(p.dir, [])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({
      fullRun: false,
      notFull: expect.stringContaining('Vitest was started without --coverage, which the "test" check\'s command gives'),
    })
    // With it, the thresholds fail the run, as the check's own command would.
    expect((await vitest(p.dir, ['--coverage'])).code).toBe(1)
    expect(p.check('test').status).toBe('failed')
  })

  test('options that change only how Vitest reports count, negated too; a word after an option the check gives alone is no value of it', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    p.write('verify.config.ts', p.read('verify.config.ts').replace('vitest.mjs run ', 'vitest.mjs run --passWithNoTests '))
    const run = await runTool(VITEST_BIN, ['--passWithNoTests', 'run', ...LEAN, '--no-watch', '--no-color', '--silent'], p.dir)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ fullRun: true })
  })

  test('a merge of earlier blob reports does not count', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    const blobs = join(p.outside, 'blobs')
    // Blobs of a run inside verify (which records nothing itself), merged later: the code may have changed since.
    const blob = await vitest(p.dir, ['--reporter=blob', `--outputFile=${join(blobs, 'blob.json')}`], { VERIFY_CHECK_ID: 'test' })
    expect(blob.code, blob.stdout + blob.stderr).toBe(0)
    const merged = await runTool(VITEST_BIN, ['--mergeReports', blobs], p.dir)
    expect(merged.code, merged.stdout + merged.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ fullRun: false, notFull: expect.stringContaining('--mergeReports') })
  })

  test('a protocol with no test_pass check fails the run at its start, in one paragraph', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    p.write('verify.config.ts', "import { defineProtocol } from 'verify-protocol'\nexport default defineProtocol({ checks: { lint: 'true' } })\n")
    const run = await vitest(p.dir, [])
    expect(run.code).toBe(1)
    expect(run.stdout + run.stderr).toContain('verify-protocol: Protocol "default" has no test_pass check: name the check this test run stands for')
    expect(run.stdout + run.stderr).not.toMatch(/test-run\.js|at TestRunRecording/)
  })

  test('records of other checks survive, also those a concurrent `verify run` writes', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    const lint = await p.verify('run', ['--only', 'lint'], { env: withoutOuterVitest() })
    expect(lint.code).toBe(3)
    const first = p.check('lint').evidence?.timestamp
    // A verify run and a Vitest run at the same time, each writing the same evidence file.
    let verifyEnded = 0
    const running = p.verify('run', ['--only', 'lint'], { env: { ...withoutOuterVitest(), LINT_MS: '6000' }, timeoutMs: 30_000 })
    void running.then(() => (verifyEnded = Date.now()))
    await until(
      () => existsSync(`${p.evidencePath}.lock`),
      () => 'verify run took no lock',
    )
    const tests = await vitest(p.dir, [])
    expect(tests.code, tests.stdout + tests.stderr).toBe(0)
    // The reporter waited for the run that held the evidence file, then added its record to what the run wrote.
    expect(verifyEnded).toBeGreaterThan(0)
    expect((await running).code).toBe(3)
    const file = p.evidence()
    expect(file.checks.find((c) => c.id === 'test')?.evidence?.recordedBy?.runner).toBe('vitest')
    const lintNow = file.checks.find((c) => c.id === 'lint')
    expect(lintNow?.status).toBe('passed')
    expect(Date.parse(lintNow?.evidence?.timestamp ?? '')).toBeGreaterThan(Date.parse(first ?? ''))
    expect(file.summary.verdict).toBe('approved')
    expect((await p.verify('check', [], { env: withoutOuterVitest() })).code).toBe(0)
  })

  test('inside a check of verify run, the reporter leaves the evidence to verify', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    const run = await p.verify('run', [], { env: withoutOuterVitest(), timeoutMs: 60_000 })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const recorded = p.check('test')
    expect(recorded.status).toBe('passed')
    expect(recorded.evidence?.recordedBy).toBeUndefined()
    expect(recorded.evidence?.tests).toMatchObject({ passed: 3, failed: 0 })
    expect(recorded.evidence?.output.text).not.toContain('verify: recorded')
  })

  test('a watch-mode rerun refreshes the evidence (with coverage, after a failing run), and stopping Vitest leaves no process behind', async () => {
    const p = runnerProject('vitest-reporter', { git: true })
    p.write('src/math.ts', 'export const add = (a: number, b: number): number => a - b\n')
    // Coverage with no threshold: the failing first run's exit code must not fail the passing rerun.
    const watch = startTool(VITEST_BIN, ['--watch', ...LEAN], p.dir, { timeoutMs: 60_000, env: { COVERAGE: '1' } })
    const pid = watch.child.pid as number
    try {
      await until(() => existsSync(p.evidencePath) && p.check('test').status === 'failed', watch.output)
      const first = p.check('test').evidence
      p.write('src/math.ts', 'export const add = (a: number, b: number): number => b + a\n')
      await until(() => p.check('test').evidence?.timestamp !== first?.timestamp, watch.output)
      const second = p.check('test').evidence
      expect(p.check('test').status, p.check('test').reason ?? '').toBe('passed')
      expect(second?.fingerprint).not.toBe(first?.fingerprint)
      expect(second?.recordedBy?.fullRun).toBe(true)
      expect(checkLine((await p.verify('check', [], { env: withoutOuterVitest() })).stdout, 'test')).toContain('valid (recorded by vitest reporter, 3 tests')
    } finally {
      watch.stop()
    }
    await watch.done
    await until(
      () => !groupAlive(pid),
      () => `process group ${pid} still alive`,
    )
  })
})
