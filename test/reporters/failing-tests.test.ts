// Failures that name the failing test: from the parsed report when the evidence has one, else from what the runner
// printed — in the default, verbose, markdown and github-actions reporters, from one extraction module.
import { afterAll, describe, expect, test } from 'vitest'
import { renderAgentDigest } from '../../src/reporters/agent.js'
import { failureExcerpt } from '../../src/reporters/excerpt.js'
import { renderAnnotations } from '../../src/reporters/github-actions.js'
import { renderMarkdownSummary } from '../../src/reporters/markdown-summary.js'
import { failuresFromOutput, withoutCoverage } from '../../src/test-reports/from-output.js'
import type { CheckResult, TestsRecord } from '../../src/types.js'
import { cleanup, diagnose, fixture, ROOT, sandbox } from '../helpers/cli.js'
import { outcome, result } from '../helpers/outcome.js'
import { parseWorkflowLog } from './workflow.js'

afterAll(cleanup)

/** The lines the default reporter prints for the failing check `name`, up to the blank line after it. */
function failureBlock(stdout: string, name: string): string[] {
  const lines = stdout.split('\n')
  const start = lines.indexOf(lines.find((l) => l.startsWith(`✗ ${name} — `)) as string)
  if (start < 0) throw new Error(`no failure block for ${name} in:\n${stdout}`)
  return lines.slice(start, lines.indexOf('', start))
}

const withTests = (r: CheckResult, tests: TestsRecord): CheckResult => ({ ...r, evidence: r.evidence && { ...r.evidence, tests } })

describe('the default reporter names the failing test (spawned: real Vitest, a mocha + nyc project)', () => {
  test('Vitest with a JUnit report: counts and the failing test in the evidence, its name, message and location printed', async () => {
    const box = sandbox()
    const run = await box.run(['--cwd', fixture('reports-vitest')], { timeoutMs: 60_000 })
    expect(run.code, diagnose(run)).toBe(1)
    const check = box.check('test')
    expect(check.reason).toBe(`exit code 1; 1 test failed according to ${box.dir}/junit.xml`)
    expect(check.evidence?.tests).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'cart > adds up the prices', file: 'cart.test.mjs', line: 12, message: 'AssertionError: expected 11 to be 12 // Object.is equality' }],
    })
    // The JSON report of the same run names the same test; its stack gives the line.
    expect(box.check('test-json').evidence?.tests).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'cart adds up the prices', file: 'cart.test.mjs', line: 12, message: 'AssertionError: expected 11 to be 12 // Object.is equality' }],
    })
    const stdout = run.stdout
      .replaceAll(box.dir, '$TMP')
      .replace(/(Start at|Duration) .*/g, '$1 …')
      .replace(/⎯+/g, '⎯⎯')
    const block = failureBlock(stdout, 'Unit tests')
    expect(block.slice(0, 4)).toEqual([
      '✗ Unit tests — exit code 1; 1 test failed according to $TMP/junit.xml',
      '  $ node ../../node_modules/vitest/vitest.mjs run --reporter=default --reporter=junit --outputFile.junit=$TMP/junit.xml',
      '  ✗ cart > adds up the prices (cart.test.mjs:12)',
      '    AssertionError: expected 11 to be 12 // Object.is equality',
    ])
    // Then the tail of Vitest's output, bounded. Vitest writes the code frame to stderr and the totals to stdout, so
    // the order in which the two arrive, and so which lines are last, varies from run to run.
    const tail = block.slice(4)
    expect(tail.length).toBeGreaterThan(0)
    expect(tail.length).toBeLessThanOrEqual(12)
    for (const line of tail) expect(line).toMatch(/^ {2}│ /)
    expect(tail.some((line) => /Test Files {2}1 failed|JUNIT report written|^ {2}│ +1[0-4]\|/.test(line))).toBe(true)
    // Without a report, the same test is found in Vitest's own output.
    expect(failureBlock(stdout, 'Unit tests (output only)').slice(0, 4)).toEqual([
      '✗ Unit tests (output only) — exit code 1',
      '  $ node ../../node_modules/vitest/vitest.mjs run --reporter=default',
      '  ✗ cart > adds up the prices (cart.test.mjs:12)',
      '    AssertionError: expected 11 to be 12 // Object.is equality',
    ])
  })

  test('mocha under nyc: the "failing" section, not the coverage table', async () => {
    const box = sandbox({ inProcess: true })
    const run = await box.run(['--cwd', fixture('reports-mocha')])
    expect(run.code, diagnose(run)).toBe(1)
    expect(failureBlock(run.stdout, 'Unit tests')).toEqual([
      '✗ Unit tests — exit code 1',
      '  $ node ../bin/mocha-nyc.mjs',
      '  ✗ cart adds up the prices (test/cart.test.js:9)',
      '    AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
      '  │ 11 !== 12',
      '  │       + expected - actual',
      '  │       -11',
      '  │       +12',
      '  │       at Context.<anonymous> (test/cart.test.js:9:12)',
      '  │       at process.processImmediate (node:internal/timers:483:21)',
    ])
    // verbose prints every output line live, then the same summary.
    const verbose = await box.run(['--cwd', fixture('reports-mocha'), '--reporter', 'verbose'])
    expect(failureBlock(verbose.stdout, 'Unit tests').slice(2, 4)).toEqual([
      '  ✗ cart adds up the prices (test/cart.test.js:9)',
      '    AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
    ])
  })

  test('github-actions: the annotation carries file and line of the failing test, relative to the workspace', async () => {
    const box = sandbox({ inProcess: true })
    // The check with the JUnit report alone: the other two run the same Vitest suite again.
    const run = await box.run(['--cwd', fixture('reports-vitest'), '--only', 'test', '--reporter', 'github-actions'], {
      timeoutMs: 60_000,
      env: { GITHUB_WORKSPACE: ROOT },
    })
    const errors = parseWorkflowLog(run.stdout).commands.filter((c) => c.name === 'error')
    expect(errors[0]?.properties).toEqual({ file: 'fixtures/reports-vitest/cart.test.mjs', line: '12', title: 'Unit tests' })
    expect(errors[0]?.message).toContain('\n✗ cart > adds up the prices (cart.test.mjs:12)\n  AssertionError: expected 11 to be 12 // Object.is equality\n')
    expect(run.stdout).toMatch(/^::error file=fixtures\/reports-vitest\/cart\.test\.mjs,line=12,title=Unit tests::/m)
  })
})

const VITEST_OUTPUT = ` RUN  v4.1.12 /repo

 ❯ src/cart.test.ts (2 tests | 1 failed) 7ms
   ✓ cart > is empty
   × cart > adds up 4ms

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/cart.test.ts > cart > adds up
AssertionError: expected 11 to be 12 // Object.is equality

- Expected
+ Received

 ❯ src/cart.test.ts:12:75
`
const JEST_OUTPUT = ` FAIL  test/cart.test.js
  cart
    ✕ adds up (3 ms)

  ● cart › adds up

    expect(received).toBe(expected) // Object.is equality

    Expected: 12
    Received: 11

      at Object.toBe (test/cart.test.js:9:22)
      at Promise.then.completed (node_modules/jest-circus/build/utils.js:298:28)

  ● Console

    console.log
      hello
`

describe('failing tests found in the output', () => {
  test('Vitest, Jest, mocha and pytest', () => {
    expect(failuresFromOutput(VITEST_OUTPUT)).toEqual([
      { name: 'cart > adds up', file: 'src/cart.test.ts', line: 12, message: 'AssertionError: expected 11 to be 12 // Object.is equality' },
    ])
    expect(failuresFromOutput(JEST_OUTPUT)).toEqual([
      { name: 'cart > adds up', file: 'test/cart.test.js', line: 9, message: 'expect(received).toBe(expected) // Object.is equality' },
    ])
    const mocha =
      '  2 passing\n  2 failing\n\n  1) top level fails:\n     Error: nope\n      at Context.<anonymous> (test/a.js:3:9)\n\n  2) suite\n       inner\n         deepest:\n     TypeError: x is not a function\n      at Context.<anonymous> (test/b.js:7:1)\n'
    expect(failuresFromOutput(mocha)).toEqual([
      { name: 'top level fails', file: 'test/a.js', line: 3, message: 'Error: nope' },
      { name: 'suite inner deepest', file: 'test/b.js', line: 7, message: 'TypeError: x is not a function' },
    ])
    expect(failuresFromOutput('FAILED tests/test_cart.py::test_total - assert 11 == 12\n')).toEqual([
      { name: 'test_total', file: 'tests/test_cart.py', message: 'assert 11 == 12' },
    ])
    expect(failuresFromOutput('error TS2304: Cannot find name x\n')).toEqual([])
  })

  test('coverage tables (nyc, c8, text-summary) leave the tail; other tables stay', () => {
    const table = ['-----|---------|', 'File | % Stmts |', '-----|---------|', 'a.js |     100 |', '-----|---------|']
    const summary = [
      '=============================== Coverage summary ===============================',
      'Statements   : 100% ( 3/3 )',
      '================================================================================',
    ]
    expect(withoutCoverage(['before', ...table, 'between', ...summary, 'after'])).toEqual(['before', 'between', 'after'])
    expect(withoutCoverage(['| a | b | c |', '| 1 | 2 | 3 |'])).toEqual(['| a | b | c |', '| 1 | 2 | 3 |'])
  })
})

describe('every reporter shows the failing tests, bounded', () => {
  const many: TestsRecord = {
    passed: 0,
    failed: 40,
    skipped: 0,
    failures: Array.from({ length: 10 }, (_, i) => ({ name: `case ${i}`, file: 'test/a.test.ts', line: i + 1, message: `Error: ${i}` })),
  }
  const failing = withTests(result('test', 'failed', { name: 'Unit tests', output: `${'noise\n'.repeat(50)}FAIL  other.test.ts > not this one\n` }), many)

  test('the parsed report wins over the output, at most 5 tests and how many more', () => {
    const found = failureExcerpt(failing)
    expect(found.tests.map((t) => t.name)).toEqual(['case 0', 'case 1', 'case 2', 'case 3', 'case 4'])
    expect(found.moreTests).toBe(35)
  })

  test('markdown: a list of the failing tests above the output block, escaped', () => {
    const md = renderMarkdownSummary(
      outcome([withTests(failing, { passed: 0, failed: 1, skipped: 0, failures: [{ name: 'a <b> | *c*', file: 'x.ts', line: 2, message: 'boom' }] })]),
      { maxBytes: 64 * 1024, cwd: '/project' },
    )
    expect(md).toContain('`test` failing tests:\n\n- ❌ a &lt;b&gt; \\| \\*c\\* (x.ts:2) — boom\n\n<details>')
  })

  test('agent digest: the failing tests first', () => {
    const text = renderAgentDigest(outcome([failing]), { cwd: '/project' })
    expect(text).toContain('  ✗ case 0 (test/a.test.ts:1)\n    Error: 0\n')
    expect(text).toContain('  … and 35 more failing tests\n')
  })

  test("github-actions: a tool's own ::error lines are read, not escaped twice; their file and line are used", () => {
    const eslint = withTests(
      result('lint', 'failed', { output: `::error file=src/a.ts,line=3,col=5,title=no-unused-vars::'x' is defined%0Abut never used\n` }),
      { passed: 0, failed: 0, skipped: 0 },
    )
    const log = parseWorkflowLog(renderAnnotations(outcome([eslint]), { workspace: '/project' }))
    expect(log.commands).toEqual([expect.objectContaining({ name: 'error', properties: { file: 'src/a.ts', line: '3', title: 'lint' } })])
    expect(log.commands[0]?.message).toContain("src/a.ts:3: no-unused-vars: 'x' is defined but never used")
    expect(log.commands[0]?.message).not.toMatch(/%0A|%25|::error/)
  })

  test('github-actions: a failing test outside the workspace gets no file', () => {
    const outside = withTests(result('test', 'failed', { output: 'x\n' }), {
      passed: 0,
      failed: 1,
      skipped: 0,
      failures: [{ name: 't', file: '../../etc/x.ts', line: 1 }],
    })
    const log = parseWorkflowLog(renderAnnotations(outcome([outside]), { workspace: '/project' }))
    expect(log.commands[0]?.properties).toEqual({ title: 'test' })
  })
})
