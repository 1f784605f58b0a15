// What a Vitest run showed, read from Vitest's reported tasks (TestModule / TestCase), and whether it ran the whole
// suite: a filtered, sharded, focused or bailed run proves less than the check would.
import { relative } from 'node:path'
import type { Reporter, TestCase, TestModule, TestSpecification, Vitest } from 'vitest/node'
import type { ResolvedCheck, TestFailure } from '../../types.js'
import { firstMessageLine, MAX_FAILURES, testFailure } from '../../test-reports/location.js'
import { commandGives, commandWords, optionLeftOut, optionNotGiven } from '../command-words.js'
import { focusedFile, samePlace } from '../focus.js'
import type { TestRunFacts } from '../test-run.js'

type UnhandledErrors = Parameters<NonNullable<Reporter['onTestRunEnd']>>[1]
type RunEndReason = Parameters<NonNullable<Reporter['onTestRunEnd']>>[2]

const key = (spec: TestSpecification) => `${spec.project.name}\0${spec.moduleId}`

function firstLine(text: string | undefined): string | undefined {
  return text?.split('\n').find((line) => line.trim() !== '')
}

/**
 * Why the run about to start is not the whole suite (at `onTestRunStart`, before Vitest resets `--changed`), or null.
 */
export async function partialRunReason(vitest: Vitest, specifications: readonly TestSpecification[]): Promise<string | null> {
  const config = vitest.config
  const pattern = config.testNamePattern ?? vitest.getGlobalTestNamePattern()
  if (pattern) return `tests filtered by name (-t ${String(pattern)})`
  if (config.changed) return `only tests related to changed files ran (--changed${typeof config.changed === 'string' ? ` ${config.changed}` : ''})`
  if (config.related?.length) return 'only tests related to some files ran (--related)'
  if (config.shard) return `a shard of the suite (--shard ${config.shard.index}/${config.shard.count})`
  if (config.project?.length) return `only some projects ran (--project ${config.project.join(', ')})`
  if (config.tagsFilter?.length) return `tests filtered by tags (--tags-filter ${config.tagsFilter.join(' ')})`
  // `--exclude` on the command line narrows the files before they are globbed: the glob below cannot see it.
  if (config.cliExclude?.length) return `test files left out on the command line (--exclude ${config.cliExclude.join(' ')})`
  if (specifications.some((s) => s.testLines?.length || s.testIds?.length || s.testNamePattern || s.testTagsFilter?.length)) {
    return 'only some tests of a file ran (a line, id or name filter)'
  }
  const all = await vitest.globTestSpecifications()
  const ran = new Set(specifications.map(key))
  const missing = all.filter((spec) => !ran.has(key(spec)))
  if (missing.length > 0) {
    const example = relative(config.root, missing[0]?.moduleId ?? '')
    return `${ran.size} of ${all.length} test files ran (a file filter or a watch rerun of changed files; ${example} did not run)`
  }
  return null
}

/**
 * What Vitest was started with beside its config file: its command line, or the options given to createVitest. Kept
 * by Vitest (4.1) under this untyped name; without it, only the folder rule below applies.
 */
const START_OPTIONS = '_cliOptions'

interface StartOptions {
  root?: unknown
  dir?: unknown
  config?: unknown
  mergeReports?: unknown
  typecheck?: { only?: unknown }
}

/**
 * Why this Vitest is not set up as the check's own command sets it up, or null: it replays the blob reports of
 * earlier runs, runs in another folder than the check, or was given a root, a test folder or a config file that the
 * check's command does not give. Each of these changes which test files are the suite, so the glob of the run's own
 * files cannot see what they leave out.
 */
export function narrowedRunReason(vitest: Vitest, check: ResolvedCheck): string | null {
  const started = (vitest as unknown as Record<string, StartOptions | undefined>)[START_OPTIONS] ?? {}
  const merged = vitest.config.mergeReports ?? started.mergeReports
  if (merged) return `a merge of the blob reports of earlier runs (--mergeReports ${String(merged)}): they ran on code that may have changed since`
  const cwd = process.cwd()
  if (!samePlace(cwd, check.cwd)) {
    return `Vitest ran in ${relative(check.cwd, cwd) || cwd}, not in the folder the "${check.id}" check runs in (${check.cwd})`
  }
  const options: [string, string[], unknown][] = [
    ['--root', ['root', 'r'], started.root],
    ['--dir', ['dir'], started.dir],
    ['--config', ['config', 'c'], started.config],
  ]
  for (const [option, names, value] of options) {
    if (typeof value === 'string' && value !== '' && !commandGives(check, names, value, cwd)) {
      return `Vitest was started with ${option} ${value}, which the "${check.id}" check's command does not give`
    }
  }
  // The suite's glob then holds only the type tests: the runtime tests are not missing from it, they are not in it.
  if (started.typecheck?.only === true && !commandWords(check).some((word) => /^--typecheck\.only(?:=true)?$/.test(word))) {
    return `only the type tests ran (--typecheck.only), which the "${check.id}" check's command does not give`
  }
  const [, script = '', ...argv] = process.argv
  if (!VITEST_SCRIPT.test(script)) return `Vitest was not started from its command line (${script || 'node'}): the options it was given cannot be seen`
  const option = optionNotGiven(argv, check, harmless, VITEST_ALIASES)
  if (option) return `Vitest was started with ${option}, which the "${check.id}" check's command does not give`
  const left = optionLeftOut(argv, check, VITEST_SCRIPT, needed, VITEST_ALIASES)
  return left ? `Vitest was started without ${left}, which the "${check.id}" check's command gives` : null
}

// Left out of a run, an option that is not harmless changes it, and so does coverage that the check turns on.
function needed(name: string, value: string | undefined): boolean {
  const [head = '', sub] = name.split('.', 2)
  return !harmless(name, value) || (head === 'coverage' && (sub === undefined || sub === 'enabled'))
}

// Options with two names.
const VITEST_ALIASES = [
  ['c', 'config'],
  ['r', 'root'],
  ['coverage', 'coverage.enabled'],
]

// vitest/vitest.mjs, node_modules/.bin/vitest: what Vitest's own command line runs.
const VITEST_SCRIPT = /(?:^|[\\/])vitest(?:\.mjs)?$/

/**
 * Vitest options that change only how it reports, caches or spreads its work: never which tests run, nor whether
 * they pass. Any other option the check's own command does not give (`--retry`, `-u`, `--passWithNoTests`, a
 * timeout, coverage turned off or its thresholds changed, another pool, `--no-isolate` …) makes the run another run.
 * `bail` is here because a run it cut short is caught when it ends.
 */
const HARMLESS = new Set(
  `reporter reporters outputFile silent color hideSkippedTests logHeapUsage clearScreen printConsoleTrace
  includeTaskLocation cache maxWorkers minWorkers fileParallelism maxConcurrency run watch w bail`.split(/\s+/),
)
// What the coverage may set beside turning it on (which can only add a failure, a threshold): where it reports.
const COVERAGE_REPORTING = new Set(['reporter', 'reportsDirectory', 'clean', 'cleanOnRerun', 'reportOnFailure'])

// `--pool`, `--no-isolate`: what shares a module registry or a process decides whether tests that leak state pass.
function harmless(name: string, value: string | undefined): boolean {
  // `--no-watch`, `--no-color`: the negation of a harmless option is harmless too.
  const negated = /^no[A-Z]/.test(name) ? `${name.charAt(2).toLowerCase()}${name.slice(3)}` : undefined
  if (negated !== undefined && negated !== 'coverage' && HARMLESS.has(negated)) return true
  const [head = '', sub] = name.split('.', 2)
  if (head === 'coverage') {
    if (sub === undefined || sub === 'enabled') return value === undefined || value === 'true'
    return COVERAGE_REPORTING.has(sub)
  }
  return HARMLESS.has(head)
}

function failureOf(test: TestCase, root: string): TestFailure {
  const result = test.result()
  const error = result.state === 'failed' ? result.errors[0] : undefined
  const file = relative(root, test.module.moduleId)
  const frame = error?.stacks?.find((s) => s.file === test.module.moduleId)
  const line = test.location?.line ?? frame?.line
  const message = error ? [error.name && !error.message.startsWith(error.name) ? `${error.name}: ` : '', error.message].join('') : undefined
  return testFailure(test.fullName, { file, line, message: firstMessageLine(message) })
}

/** Counts, failures and errors of a finished run; `notFull` as found when it started, plus `.only` and bail. */
export async function runFacts(
  vitest: Vitest,
  testModules: readonly TestModule[],
  unhandledErrors: UnhandledErrors,
  reason: RunEndReason,
  notFullAtStart: string | null,
): Promise<TestRunFacts> {
  const root = vitest.config.root
  const facts: TestRunFacts = {
    runner: 'vitest',
    version: vitest.version,
    command: ['vitest', ...process.argv.slice(2)].join(' '),
    passed: 0,
    failed: 0,
    skipped: 0,
    todo: 0,
    failures: [],
    errors: unhandledErrors.map((e) => firstLine(e.message) ?? String(e.name ?? 'error')),
    notFull: notFullAtStart,
    interrupted: false,
  }
  const skipping = new Set<string>()
  for (const module of testModules) {
    for (const error of module.errors()) facts.errors.push(`${relative(root, module.moduleId)}: ${firstLine(error.message) ?? 'error'}`)
    for (const suite of module.children.allSuites()) {
      for (const error of suite.errors()) facts.errors.push(`${suite.fullName}: ${firstLine(error.message) ?? 'error'}`)
    }
    for (const test of module.children.allTests()) {
      const { state } = test.result()
      if (state === 'passed') facts.passed++
      else if (state === 'failed') {
        facts.failed++
        if (facts.failures.length < MAX_FAILURES) facts.failures.push(failureOf(test, root))
      } else if (test.options.mode === 'todo') facts.todo++
      else {
        facts.skipped++
        skipping.add(module.moduleId)
      }
    }
  }
  if (reason === 'interrupted') {
    const bail = vitest.config.bail
    if (bail && facts.failed >= bail) facts.notFull ??= `bail stopped the run after ${facts.failed} failed test${facts.failed === 1 ? '' : 's'} (bail: ${bail})`
    else facts.interrupted = true
  }
  const focused = await focusedFile(skipping)
  if (focused) facts.notFull ??= `tests focused with .only in ${relative(root, focused)}: the others were skipped`
  return facts
}
