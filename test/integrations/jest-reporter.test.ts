// The Jest reporter end to end with real Jest 30 runs in a CommonJS project: Jest loads this ES module package's
// reporter, which records the test check's evidence; filtered and focused runs do not count. The fixture's tests are
// plain CommonJS, so its Jest config sets `transform: {}`: each project is new to Jest's transform cache, and babel-jest
// cost every run about 0.5 s of CPU (1.42 s -> 0.89 s a run) for nothing the reporter sees.
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { cleanup, sleep } from '../helpers/cli.js'
import { checkLine, removeProjects, type Project } from '../helpers/project.js'
import { JEST_BIN, killTools, runnerProject, runTool, startTool, until, withoutOuterVitest } from './helpers.js'

const JEST_VERSION = (JSON.parse(readFileSync(join(JEST_BIN, '..', '..', 'package.json'), 'utf8')) as { version: string }).version

afterEach(async () => {
  killTools()
  await cleanup()
})
afterAll(removeProjects)

/** How many runs a watching Jest's output shows; how many of them found no test related to a change. */
const runs = (output: string) => output.match(/^Ran all test suites\.$/gm)?.length ?? 0
const none = (output: string) => output.match(/No tests found related to files changed since last commit/g)?.length ?? 0

/** The files and folders under `dir` (not .git, no link followed) changed since `since`: what a watcher would see. */
function writtenSince(dir: string, since: number): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(dir, path).split(sep).includes('.git') && lstatSync(path).mtimeMs >= since)
    .map((path) => relative(dir, path))
}

const jest = (dir: string, args: readonly string[], env: Record<string, string | undefined> = {}) =>
  runTool(JEST_BIN, ['--ci', ...args], dir, { env, timeoutMs: 90_000 })

describe('the Jest reporter', () => {
  test('a full run records evidence that verify check accepts, next to the default reporter', { timeout: 90_000 }, async () => {
    const p = runnerProject('jest-reporter', { git: true })
    const run = await jest(p.dir, [])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stderr).toMatch(/Tests: +1 skipped, 1 todo, 3 passed, 5 total/)
    expect(run.stderr).toContain('verify: recorded "test" evidence (3 tests, full run)')
    const recorded = p.check('test')
    expect(recorded.status).toBe('passed')
    expect(recorded.evidence?.tests).toEqual({ passed: 3, failed: 0, skipped: 1, todo: 1, failures: [] })
    expect(recorded.evidence?.recordedBy).toEqual({ runner: 'jest', version: JEST_VERSION, fullRun: true })
    const check = await p.verify('check', [], { env: withoutOuterVitest() })
    expect(check.code, check.stdout).toBe(0)
    expect(checkLine(check.stdout, 'test')).toMatch(/valid \(recorded by jest reporter, 3 tests, \S+ ago\)/)
  })

  test('a failing run records the failing test with its file, line and message', { timeout: 90_000 }, async () => {
    const p = runnerProject('jest-reporter', { git: true })
    const run = await jest(p.dir, [], { BREAK_TEST: '1' })
    expect(run.code).toBe(1)
    expect(p.check('test')).toMatchObject({ status: 'failed', reason: '1 of 3 tests failed' })
    expect(p.check('test').evidence?.tests?.failures).toEqual([
      { name: 'adds negative numbers', file: 'test/add.test.js', line: 5, message: expect.stringContaining('toBe(expected)') },
    ])
    expect((await p.verify('check', [], { env: withoutOuterVitest() })).code).toBe(1)
  })

  test('a run started from code (require("jest").run), whose options the reporter cannot see, does not count', { timeout: 90_000 }, async () => {
    const p = runnerProject('jest-reporter', { git: true })
    p.write('ignored/run.cjs', "require('jest').run(['--ci'])\n")
    const run = await runTool(join(p.dir, 'ignored', 'run.cjs'), [], p.dir, { timeoutMs: 90_000 })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ fullRun: false, notFull: expect.stringContaining('not started from its command line') })
  })

  test.each([
    {
      name: 'a coverage threshold not met',
      // The thresholds are the project's own (its config), so the run counts; --coverage and where it reports may be added.
      args: ['--coverage', '--coverageDirectory', 'ignored/coverage'],
      setUp: (p: Project) => {
        const pkg = JSON.parse(p.read('package.json')) as { jest: Record<string, unknown> }
        Object.assign(pkg.jest, { collectCoverageFrom: ['*.js'], coverageThreshold: { global: { lines: 100 } } })
        p.write('package.json', JSON.stringify(pkg, null, 2))
      },
    },
    {
      name: 'an obsolete snapshot under --ci',
      args: [],
      setUp: (p: Project) =>
        p.write('test/__snapshots__/add.test.js.snap', '// Jest Snapshot v1, https://jestjs.io/docs/snapshot-testing\n\nexports[`gone 1`] = `"x"`;\n'),
    },
  ])('a run that Jest fails after its tests passed ($name) is recorded as failed; verify check rejects', { timeout: 90_000 }, async ({ args, setUp }) => {
    const p = runnerProject('jest-reporter', { git: true })
    setUp(p)
    const run = await jest(p.dir, args)
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stderr).toMatch(/3 passed/)
    const recorded = p.check('test')
    expect(recorded.status, recorded.reason ?? '').toBe('failed')
    expect(recorded.reason).toMatch(/^Jest failed the run after the tests: /)
    expect((await p.verify('check', [], { env: withoutOuterVitest() })).code).toBe(1)
  })

  test.each([
    { name: 'a name filter', args: ['-t', 'small'], why: 'tests filtered by name (-t small)' },
    { name: 'a file filter', args: ['sum'], why: 'test files filtered (sum)' },
    { name: 'a shard', args: ['--shard=1/2'], why: 'a shard of the suite (--shard 1/2)' },
  ])('a run with $name does not count, and verify check says why', { timeout: 90_000 }, async ({ args, why }) => {
    const p = runnerProject('jest-reporter', { git: true })
    const run = await jest(p.dir, args)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test')).toMatchObject({ status: 'stale', evidence: { recordedBy: { fullRun: false, notFull: why } } })
    const check = await p.verify('check', [], { env: withoutOuterVitest() })
    expect(check.code).toBe(3)
    expect(checkLine(check.stdout, 'test')).toContain(`recorded by a jest run that does not count: ${why}`)
  })

  test.each([
    { name: 'an ignore pattern', args: ['--testPathIgnorePatterns', 'sum'], why: 'Jest was started with --testPathIgnorePatterns sum' },
    { name: 'a test match', args: ['--test-match=**/add.test.js'], why: 'Jest was started with --test-match **/add.test.js' },
    {
      name: 'a config of its own',
      args: ['-c', JSON.stringify({ testMatch: ['**/add.test.js'], reporters: ['verify-protocol/jest/reporter'] })],
      why: 'Jest was started with -c',
    },
    // Options the deny-list never named: anything the check's command does not give, but for how Jest reports.
    { name: 'a setup file that could disarm expect', args: ['--setupFilesAfterEnv', '<rootDir>/math.js'], why: 'Jest was started with --setupFilesAfterEnv' },
    { name: 'snapshots rewritten (-u)', args: ['-u'], why: 'Jest was started with -u' },
    { name: 'a test sequencer of its own', args: ['--testSequencer', '@jest/test-sequencer'], why: 'Jest was started with --testSequencer' },
    // Coverage turned off, or its thresholds changed, decides whether a run with thresholds passes.
    { name: 'coverage turned off', args: ['--coverage=false'], why: 'Jest was started with --coverage false' },
    { name: 'coverage turned off (--no-coverage)', args: ['--no-coverage'], why: 'Jest was started with --no-coverage' },
    { name: 'other coverage thresholds', args: ['--coverageThreshold', '{}'], why: 'Jest was started with --coverageThreshold {}' },
  ])('a run set up otherwise than the check ($name) does not count', { timeout: 90_000 }, async ({ args, why }) => {
    const p = runnerProject('jest-reporter', { git: true })
    const run = await jest(p.dir, args)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ fullRun: false, notFull: expect.stringContaining(why) })
    expect((await p.verify('check', [], { env: withoutOuterVitest() })).code).toBe(3)
  })

  test('an option the check gives, with another value given apart from it, does not count', { timeout: 90_000 }, async () => {
    const p = runnerProject('jest-reporter', { git: true })
    p.write('verify.config.mts', p.read('verify.config.mts').replace('jest.js', 'jest.js --testPathIgnorePatterns /nothing/'))
    const run = await jest(p.dir, ['--testPathIgnorePatterns', 'sum'])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({
      fullRun: false,
      notFull: expect.stringContaining('Jest was started with --testPathIgnorePatterns sum'),
    })
    // The check's own value counts.
    await jest(p.dir, ['--testPathIgnorePatterns', '/nothing/'])
    expect(p.check('test').evidence?.recordedBy).toMatchObject({ fullRun: true })
  })

  test('a run that leaves out an option the check gives (coverage, whose thresholds then do not apply) does not count', { timeout: 90_000 }, async () => {
    const p = runnerProject('jest-reporter', { git: true })
    const pkg = JSON.parse(p.read('package.json')) as { jest: Record<string, unknown> }
    Object.assign(pkg.jest, { collectCoverageFrom: ['*.js'], coverageThreshold: { global: { lines: 100 } }, coverageDirectory: 'ignored/coverage' })
    p.write('package.json', JSON.stringify(pkg, null, 2))
    p.write('verify.config.mts', p.read('verify.config.mts').replace('jest.js', 'jest.js --coverage'))
    const run = await jest(p.dir, [])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy).toMatchObject({
      fullRun: false,
      notFull: expect.stringContaining('Jest was started without --coverage, which the "test" check\'s command gives'),
    })
  })

  test('the reporter stands only for a test_pass check: its `check` option cannot name another', { timeout: 90_000 }, async () => {
    const p = runnerProject('jest-reporter', { git: true })
    p.write('verify.config.mts', p.read('verify.config.mts').replace('checks: {', "checks: {\n    build: 'exit 1',"))
    const reporters = [['verify-protocol/jest/reporter', { check: 'build' }]]
    const run = await jest(p.dir, ['-c', JSON.stringify({ testMatch: ['<rootDir>/test/**/*.test.js'], reporters })])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /^verify-protocol: Check "build" of protocol "default" is a build_success check .*: a test run can stand only for a test_pass check\.$/m,
    )
    expect(existsSync(p.evidencePath)).toBe(false)
  })

  test(
    'in watch mode, an evidence file that Jest watches is not written (each write would start another run, without end); ignored by Jest, each run records',
    { timeout: 90_000 },
    async () => {
      const p = runnerProject('jest-reporter', { git: true })
      await sleep(20)
      const since = Date.now()
      // --watch with nothing changed since the last commit: a run of no test, which named no project either.
      const changed = startTool(JEST_BIN, ['--watch'], p.dir, { timeoutMs: 60_000 })
      try {
        await until(() => none(changed.output()) > 0, changed.output)
        await sleep(3000)
        expect(none(changed.output()), changed.output()).toBe(1)
        expect(existsSync(p.evidencePath)).toBe(false)
        // Nor anything else under Jest's roots, node_modules included (watched in watch mode): the config's transform
        // kept there as it loaded made a busy machine's Jest run again.
        expect(writtenSince(p.dir, since)).toEqual([])
      } finally {
        changed.stop()
      }
      await changed.done

      const watched = startTool(JEST_BIN, ['--watchAll'], p.dir, { timeoutMs: 60_000 })
      try {
        await until(() => runs(watched.output()) > 0, watched.output)
        // A run of this suite takes under a second: a loop would have run it again meanwhile.
        await sleep(3000)
        expect(runs(watched.output()), watched.output()).toBe(1)
        expect(watched.output()).toContain(
          'verify: not recording "test" evidence in Jest\'s watch mode: Jest watches .verify/evidence.json, and each record would start another run, without end.',
        )
        expect(watched.output()).toContain('"watchPathIgnorePatterns": ["<rootDir>/\\\\.verify/"]')
        expect(existsSync(p.evidencePath)).toBe(false)
        expect(writtenSince(p.dir, since)).toEqual([])
      } finally {
        watched.stop()
      }
      await watched.done

      const pkg = JSON.parse(p.read('package.json')) as { jest: Record<string, unknown> }
      pkg.jest.watchPathIgnorePatterns = ['<rootDir>/.verify/']
      p.write('package.json', JSON.stringify(pkg, null, 2))
      const ignored = startTool(JEST_BIN, ['--watchAll'], p.dir, { timeoutMs: 60_000 })
      try {
        await until(() => p.check('test').status === 'passed', ignored.output)
        const first = p.check('test').evidence
        // --watchAll runs the whole suite each time: it counts as the check's own command.
        expect(first?.recordedBy).toMatchObject({ runner: 'jest', fullRun: true })
        p.write('math.js', 'exports.add = (a, b) => b + a\n')
        await until(() => p.check('test').evidence?.timestamp !== first?.timestamp, ignored.output)
        expect(p.check('test').evidence?.fingerprint).not.toBe(first?.fingerprint)
        await sleep(3000)
        expect(runs(ignored.output()), ignored.output()).toBe(2)
      } finally {
        ignored.stop()
      }
      await ignored.done
    },
  )

  test('focused tests (.only) do not count', { timeout: 90_000 }, async () => {
    const p = runnerProject('jest-reporter', { git: true })
    // Called through another name: any `.only` in a file that skipped tests is taken for focus.
    p.write('test/focus.test.js', "const t = test\nt.only('focused', () => expect(1).toBe(1))\ntest('left out', () => expect(1).toBe(1))\n")
    const run = await jest(p.dir, [])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.check('test').evidence?.recordedBy?.notFull).toBe('tests focused with .only / fit in test/focus.test.js: the others were skipped')
  })
})
