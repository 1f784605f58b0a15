// Test reports read by a real parser (SPEC §6.3): the JUnit matrix of what real and hostile reports hold, and the
// Jest/Vitest JSON report. Counted by testcase, as GitLab, Jenkins and action-junit-report count.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseJestJson, readTestReport } from '../../src/runner/test-report.js'
import { countJUnit, parseJUnit } from '../../src/test-reports/junit.js'

const suite = (cases: string, attrs = '') => `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="s"${attrs}>${cases}</testsuite></testsuites>`
const ok = (name: string) => `<testcase classname="c" name="${name}"/>`
const failing = (name: string, body = 'trace') => `<testcase classname="c" name="${name}"><failure message="boom">${body}</failure></testcase>`

describe('JUnit: what the XML means, not what a regex sees', () => {
  it('a </testcase> inside CDATA is text: one test, and its failure still counts', () => {
    const xml = suite(`<testcase name="a"><system-out><![CDATA[log </testcase><testcase name="fake"/>]]></system-out><failure message="x"/></testcase>`)
    expect(countJUnit(xml)).toEqual({ passed: 0, failed: 1, skipped: 0 })
  })

  it('a testcase in a comment is not a test', () => {
    expect(countJUnit(suite(`<!-- <testcase name="ghost"/> -->${ok('a')}`))).toEqual({ passed: 1, failed: 0, skipped: 0 })
  })

  it('a failure in a comment is not a failure, and a commented-out closing tag hides nothing', () => {
    expect(countJUnit(suite(`<testcase name="a"><!-- <failure/> --></testcase>`))).toEqual({ passed: 1, failed: 0, skipped: 0 })
    expect(countJUnit(suite(`<testcase name="a"><!-- </testcase> --><failure/></testcase>`))).toEqual({ passed: 0, failed: 1, skipped: 0 })
  })

  it('an attribute containing "/>" or ">" does not end the testcase', () => {
    const xml = suite(`<testcase name="a/>b" classname="x > y"><failure message="m"/></testcase>${ok('c')}`)
    expect(countJUnit(xml)).toEqual({ passed: 1, failed: 1, skipped: 0 })
    expect(parseJUnit(xml).failures[0]?.name).toBe('a/>b')
  })

  it('entities are decoded in names and messages', () => {
    const xml = suite(`<testcase classname="c" name="cart &gt; adds &amp; sums &#x2713;"><failure message="expected &lt;12&gt; &quot;x&quot;"/></testcase>`)
    expect(parseJUnit(xml).failures).toEqual([{ name: 'cart > adds & sums ✓', message: 'expected <12> "x"' }])
  })

  it('nested suites (testsuites > testsuite > testsuite, as PHPUnit writes) are all counted', () => {
    const xml = `<testsuites><testsuite name="a"><testsuite name="a.b">${ok('1')}${failing('2')}</testsuite><testsuite name="a.c"><testsuite name="a.c.d">${ok('3')}</testsuite></testsuite>${ok('4')}</testsuite></testsuites>`
    expect(countJUnit(xml)).toEqual({ passed: 3, failed: 1, skipped: 0 })
  })

  it('a bare <testsuite> root is a report too', () => {
    expect(countJUnit(`<testsuite name="x">${ok('a')}${ok('b')}</testsuite>`)).toEqual({ passed: 2, failed: 0, skipped: 0 })
  })

  it('<error> fails a test like <failure>', () => {
    expect(countJUnit(suite(`<testcase name="a"><error message="TypeError: x is undefined" type="TypeError"/></testcase>`))).toEqual({
      passed: 0,
      failed: 1,
      skipped: 0,
    })
  })

  it('<skipped> and status="disabled" / "skipped" / "ignored" are skipped', () => {
    const xml = suite(
      `<testcase name="a"><skipped/></testcase><testcase name="b" status="disabled"/><testcase name="c" status="skipped"/><testcase name="d" status="ignored"/>${ok('e')}`,
    )
    expect(countJUnit(xml)).toEqual({ passed: 1, failed: 0, skipped: 4 })
  })

  it('a failure next to a skip marker still fails: a skip never hides a failure', () => {
    expect(countJUnit(suite(`<testcase name="a" status="disabled"><failure/></testcase><testcase name="b"><skipped/><error/></testcase>`))).toEqual({
      passed: 0,
      failed: 2,
      skipped: 0,
    })
  })

  it('failures a suite declares beyond its testcases count (a hook or a file that did not load)', () => {
    const hidden = parseJUnit(suite(ok('a'), ' tests="2" failures="1" errors="1"'))
    expect(hidden.counts).toEqual({ passed: 1, failed: 2, skipped: 0 })
    expect(hidden.failures[0]?.message).toMatch(/declares 2 failing/)
    const direct = parseJUnit(suite(`${ok('a')}<error message="beforeAll hook timed out">at setup (test/db.test.ts:4:3)</error>`))
    expect(direct.counts.failed).toBe(1)
    expect(direct.failures).toEqual([{ name: 's', file: 'test/db.test.ts', line: 4, message: 'beforeAll hook timed out' }])
  })

  it('the tests attribute is not trusted over the testcases', () => {
    expect(countJUnit(suite(ok('a'), ' tests="500" failures="0"'))).toEqual({ passed: 1, failed: 0, skipped: 0 })
  })

  it('names the failing tests with file, line and the first line of the message', () => {
    const body = '\nAssertionError: expected 11 to be 12 // Object.is equality\n\n- Expected\n+ Received\n\n ❯ cart.test.mjs:12:75\n'
    const xml = suite(
      `<testcase classname="cart.test.mjs" name="cart &gt; adds up the prices"><failure message="expected 11 to be 12 // Object.is equality" type="AssertionError">${body}</failure></testcase>`,
    )
    expect(parseJUnit(xml).failures).toEqual([
      { name: 'cart > adds up the prices', file: 'cart.test.mjs', line: 12, message: 'AssertionError: expected 11 to be 12 // Object.is equality' },
    ])
    const attrs = suite(
      `<testcase name="test_total" classname="tests.test_cart" file="tests/test_cart.py" line="7"><failure>assert 11 == 12</failure></testcase>`,
    )
    expect(parseJUnit(attrs).failures).toEqual([{ name: 'test_total', file: 'tests/test_cart.py', line: 7, message: 'assert 11 == 12' }])
  })

  it('keeps the first 10 failing tests and counts them all', () => {
    const report = parseJUnit(suite(Array.from({ length: 25 }, (_, i) => failing(`t${i}`)).join('')))
    expect(report.counts.failed).toBe(25)
    expect(report.failures.map((f) => f.name)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i}`))
  })

  it.each([
    ['an unclosed element', `<testsuites><testsuite>${ok('a')}`],
    ['a mismatched closing tag', `<testsuites><testsuite><testcase name="a"><failure></testcase></testsuite></testsuites>`],
    ['two root elements', `<testsuite>${ok('a')}</testsuite><testsuite>${ok('b')}</testsuite>`],
    ['an undefined entity', suite(`<testcase name="&bogus;"/>`)],
    ['text, not XML', 'Tests: 12 passed'],
    ['an empty file', ''],
    ['another root element', `<coverage>${ok('a')}</coverage>`],
    ['a testcase inside a testcase', suite(`<testcase name="a"><testcase name="b"/></testcase>`)],
  ])('malformed: %s is unreadable, never a count', (_, xml) => {
    expect(() => countJUnit(xml)).toThrow(/not well-formed|root element|no XML element|inside/)
  })

  it('a DOCTYPE entity bomb is refused at once, never expanded', () => {
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('')
    const xml = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY l0 "lol">${levels}]><testsuites><testsuite><testcase name="&l9;"/></testsuite></testsuites>`
    const started = performance.now()
    expect(() => countJUnit(xml)).toThrow(/DOCTYPE/)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(() => countJUnit(`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&e;"/></testsuite>`)).toThrow(/DOCTYPE/)
  })
})

const jest = (extra: Record<string, unknown>) =>
  JSON.stringify({ numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, success: true, ...extra })

describe('Jest / Vitest JSON', () => {
  it('counts the tests it lists and names the failing ones with file and line', () => {
    const report = parseJestJson(
      jest({
        numPassedTests: 1,
        numFailedTests: 1,
        numPendingTests: 1,
        success: false,
        testResults: [
          {
            name: '/repo/test/cart.test.js',
            status: 'failed',
            assertionResults: [
              { fullName: 'cart is empty', status: 'passed', failureMessages: [] },
              {
                fullName: 'cart adds up',
                status: 'failed',
                failureMessages: [
                  'Error: expect(received).toBe(expected)\n\nExpected: 12\n    at Object.<anonymous> (/repo/node_modules/x.js:1:1)\n    at Object.<anonymous> (/repo/test/cart.test.js:9:20)',
                ],
              },
              { fullName: 'cart discounts', status: 'pending', failureMessages: [] },
            ],
          },
        ],
      }),
    )
    expect(report.counts).toEqual({ passed: 1, failed: 1, skipped: 1 })
    expect(report.failures).toEqual([{ name: 'cart adds up', file: '/repo/test/cart.test.js', line: 9, message: 'Error: expect(received).toBe(expected)' }])
  })

  it('a test file that failed without a failing test fails (it did not load, a hook threw)', () => {
    const report = parseJestJson(
      jest({
        numPassedTests: 1,
        success: false,
        testResults: [
          { name: '/r/broken.test.mjs', status: 'failed', message: 'boom at load', assertionResults: [] },
          { name: '/r/ok.test.mjs', status: 'passed', assertionResults: [{ fullName: 'ok', status: 'passed' }] },
        ],
      }),
    )
    expect(report.counts).toEqual({ passed: 1, failed: 1, skipped: 0 })
    expect(report.failures[0]).toMatchObject({ name: '/r/broken.test.mjs', message: 'boom at load' })
  })

  it('success: false or runtime-error suites fail even when no test is listed as failed', () => {
    expect(parseJestJson(jest({ numPassedTests: 3, success: false })).counts.failed).toBe(1)
    expect(parseJestJson(jest({ numPassedTests: 3, numRuntimeErrorTestSuites: 1 })).counts.failed).toBe(1)
    expect(
      parseJestJson(jest({ numPassedTests: 3, numFailedTests: 2, testResults: [{ name: 'a', assertionResults: [{ status: 'passed' }] }] })).counts.failed,
    ).toBe(2)
  })

  it('an unknown test status is not a pass', () => {
    const report = parseJestJson(jest({ testResults: [{ name: 'a', assertionResults: [{ fullName: 't', status: 'weird' }] }] }))
    expect(report.counts).toEqual({ passed: 0, failed: 1, skipped: 0 })
  })

  it('not JSON, or JSON without counts, is unreadable', () => {
    expect(() => parseJestJson('{"numPassedTests": 3')).toThrow(/not valid JSON/)
    expect(() => parseJestJson('[1]')).toThrow(/not a JSON object/)
    expect(() => parseJestJson('{"tests": 3}')).toThrow(/no test counts/)
  })
})

describe('readTestReport', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verify-reports-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text)
    return name
  }

  it('a report path that is a FIFO or a device fails at once with the reason: it is never opened', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe.xml')])
    for (const [junit, where] of [
      ['pipe.xml', 'pipe.xml'],
      ['/dev/zero', '/dev/zero'],
    ]) {
      const result = await readTestReport({ junit, min: 1 }, dir, 0)
      expect(result).toEqual({ ok: false, reason: `the JUnit report at ${where} is not a regular file (a FIFO, a device or a socket)` })
    }
  })

  it('a malformed report fails with the reason, never a count', async () => {
    const result = await readTestReport({ junit: write('bad.xml', `<testsuite>${ok('a')}`), min: 1 }, dir, Date.now() - 5000)
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^the JUnit report at bad\.xml cannot be used: it is not well-formed XML/) })
  })

  it('a test file that failed as a whole is named by its relative path', async () => {
    const json = JSON.stringify({
      numPassedTests: 0,
      numFailedTests: 0,
      success: false,
      testResults: [{ name: join(dir, 'broken.test.mjs'), status: 'failed', message: 'boom at load', assertionResults: [] }],
    })
    const result = await readTestReport({ vitestJson: write('broken.json', json), min: 1 }, dir, Date.now() - 5000)
    expect(result.counts?.failures).toEqual([{ name: 'broken.test.mjs', file: 'broken.test.mjs', message: 'boom at load' }])
  })

  it('failing tests carry paths relative to the check folder', async () => {
    const json = JSON.stringify({
      numPassedTests: 0,
      numFailedTests: 1,
      testResults: [
        {
          name: join(dir, 'test', 'a.test.js'),
          assertionResults: [{ fullName: 'a', status: 'failed', failureMessages: [`Error: no\n    at ${join(dir, 'test', 'a.test.js')}:3:1`] }],
        },
      ],
    })
    const result = await readTestReport({ vitestJson: write('r.json', json), min: 1 }, dir, Date.now() - 5000)
    expect(result).toEqual({
      ok: false,
      reason: '1 test failed according to r.json',
      counts: { passed: 0, failed: 1, skipped: 0, failures: [{ name: 'a', file: 'test/a.test.js', line: 3, message: 'Error: no' }] },
    })
  })
})
