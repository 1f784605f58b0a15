// The junit reporter: one testcase per check, the right counts, and well-formed XML whatever the output holds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { createJUnitReporter, renderJUnit, xmlAttr, xmlText } from '../../src/reporters/junit.js'
import { lines, outcome, recorder, replay, result } from '../helpers/outcome.js'
import { childElements, parseXml, textOf, type XmlElement } from './xml.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-junit-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function suiteOf(xml: string): { root: XmlElement; suite: XmlElement; cases: XmlElement[] } {
  const root = parseXml(xml)
  expect(root.name).toBe('testsuites')
  const [suite, ...more] = childElements(root, 'testsuite')
  expect(more).toHaveLength(0)
  if (!suite) throw new Error('no testsuite')
  return { root, suite, cases: childElements(suite, 'testcase') }
}

const every = () =>
  outcome(
    [
      result('build', 'passed', { name: 'Build', durationMs: 2841 }),
      result('test', 'failed', { name: 'Unit tests', reason: 'exit code 2', output: lines(200, (i) => `line ${i}`), durationMs: 1500 }),
      result('slow', 'timed_out', { reason: 'timed out after 10s; its process group was killed', output: 'waiting…\n', durationMs: 10_000 }),
      result('missing', 'error', { reason: 'the shell could not find the command (exit code 127)', output: '' }),
      result('lint', 'skipped', { reason: 'its dependency "build" did not pass (failed)' }),
      result('e2e', 'cancelled', { reason: 'cancelled by fail-fast' }),
      result('review', 'pending_manual', { reason: 'A reviewer has read the design change' }),
      result('audit', 'stale', { reason: 'the code changed since it ran' }),
    ],
    { name: 'pre-merge' },
  )

describe('junit: structure', () => {
  test('one testcase per check in order, classname = protocol, time in seconds, counts that add up', () => {
    const { root, suite, cases } = suiteOf(renderJUnit(every()))
    expect(cases.map((c) => c.attributes.name)).toEqual(['Build (build)', 'Unit tests (test)', 'slow', 'missing', 'lint', 'e2e', 'review', 'audit'])
    expect(new Set(cases.map((c) => c.attributes.classname))).toEqual(new Set(['pre-merge']))
    expect(cases[0]?.attributes.time).toBe('2.841')
    expect(cases[1]?.attributes.time).toBe('1.500')
    for (const el of [root, suite]) {
      expect(el.attributes).toMatchObject({ tests: '8', failures: '3', errors: '0', skipped: '4', time: '3.210' })
    }
    expect(suite.attributes.name).toBe('pre-merge')
    expect(Number.isNaN(Date.parse(suite.attributes.timestamp ?? ''))).toBe(false)
    const failures = cases.filter((c) => childElements(c, 'failure').length === 1)
    const skipped = cases.filter((c) => childElements(c, 'skipped').length === 1)
    expect(failures.length).toBe(Number(suite.attributes.failures))
    expect(skipped.length).toBe(Number(suite.attributes.skipped))
    expect(childElements(cases[0] as XmlElement)).toEqual([])
    const properties = childElements(childElements(suite, 'properties')[0] as XmlElement, 'property')
    expect(properties.find((p) => p.attributes.name === 'verdict')?.attributes.value).toBe('rejected')
  })

  test('failed, timed_out and error are failures with the reason as message and the output tail as body', () => {
    const { cases } = suiteOf(renderJUnit(every()))
    const failure = (i: number) => childElements(cases[i] as XmlElement, 'failure')[0] as XmlElement
    expect(failure(1).attributes).toEqual({ message: 'exit code 2', type: 'failed' })
    const body = textOf(failure(1))
    expect(body.startsWith('$ run test\n')).toBe(true)
    // The tail: the last 100 lines, not the first ones.
    expect(body).toContain('line 200')
    expect(body).toContain('line 101')
    expect(body).not.toContain('line 100\n')
    expect(failure(2).attributes).toEqual({ message: 'timed out after 10s; its process group was killed', type: 'timed_out' })
    expect(failure(3).attributes).toEqual({ message: 'the shell could not find the command (exit code 127)', type: 'error' })
  })

  test('skipped, cancelled, pending_manual and stale are skipped with a message saying why', () => {
    const { cases } = suiteOf(renderJUnit(every()))
    const messages = cases.slice(4).map((c) => childElements(c, 'skipped')[0]?.attributes.message)
    expect(messages).toEqual([
      'skipped: its dependency "build" did not pass (failed)',
      'cancelled: cancelled by fail-fast',
      'pending manual: A reviewer has read the design change',
      'stale: the code changed since it ran',
    ])
  })

  test('an optional failing check is a failure that says it is optional', () => {
    const { cases } = suiteOf(renderJUnit(outcome([result('lint', 'failed', { required: false, reason: 'exit code 1' })])))
    expect(childElements(cases[0] as XmlElement, 'failure')[0]?.attributes.message).toBe('exit code 1 (optional check)')
  })
})

describe('junit: output cannot break the XML', () => {
  const nasty = [
    'plain & simple <tag attr="x"> it\'s',
    ']]> end of a CDATA that is not there <![CDATA[ x ]]>',
    '<?xml version="1.0"?><!-- comment --></testcase></testsuite>',
    `control: ${String.fromCharCode(0, 1, 7, 8, 11, 12, 27, 31)} done`,
    `surrogates: \uD800 lone high, \uDC00 lone low, 😀 pair`,
    `non-characters: \uFFFE \uFFFF end`,
    'tab\tand carriage\rreturn',
  ].join('\n')

  test('every kind of nasty output parses, and the body is the output minus the characters XML cannot hold', () => {
    const run = outcome([
      result('nasty', 'failed', { name: 'Nasty "quoted" <name> & \'more\'', reason: 'exit code 1 <"&\'>\n second line\ttab', output: `${nasty}\n` }),
    ])
    const { cases } = suiteOf(renderJUnit(run))
    const testcase = cases[0] as XmlElement
    expect(testcase.attributes.name).toBe('Nasty "quoted" <name> & \'more\' (nasty)')
    const failure = childElements(testcase, 'failure')[0] as XmlElement
    // Line breaks and tabs in attributes survive as character references.
    expect(failure.attributes.message).toBe('exit code 1 <"&\'>\n second line\ttab')
    const body = textOf(failure)
    expect(body).toContain(']]> end of a CDATA that is not there <![CDATA[ x ]]>')
    expect(body).toContain('</testcase></testsuite>')
    expect(body).toContain('control:  done')
    expect(body).toContain('surrogates:  lone high,  lone low, 😀 pair')
    expect(body).toContain('non-characters:   end')
    // A carriage return rewrote the line (a progress bar): the body shows what a terminal would end with.
    expect(body).toContain('\nreturn')
    expect(body).not.toContain('carriage')
  })

  test('escaping helpers: text and attributes', () => {
    expect(xmlText('a<b>&c]]>\u0000\uFFFF')).toBe('a&lt;b&gt;&amp;c]]&gt;')
    expect(xmlAttr(`"'\n\t\r<`)).toBe('&quot;&apos;&#10;&#9;&#13;&lt;')
  })

  test('200 checks with big outputs: still one well-formed document', () => {
    const results = Array.from({ length: 200 }, (_, i) =>
      result(`check-${i}`, i % 3 === 0 ? 'failed' : 'passed', { output: lines(300, (n) => `${n} <&> ${'x'.repeat(80)} \u0001`) }),
    )
    const { cases, suite } = suiteOf(renderJUnit(outcome(results)))
    expect(cases).toHaveLength(200)
    expect(suite.attributes.failures).toBe('67')
  })
})

describe('junit: destination', () => {
  test('junit=<file> writes the document to the file, nothing to stdout', async () => {
    const file = join(tmp, 'nested', 'dir', 'junit.xml')
    const { options, out } = recorder({ file })
    await replay(createJUnitReporter(options), every())
    expect(out.text).toBe('')
    expect(suiteOf(readFileSync(file, 'utf8')).cases).toHaveLength(8)
  })

  test('without a file, the document goes to stdout', async () => {
    const { options, out } = recorder()
    await replay(createJUnitReporter(options), every())
    expect(suiteOf(out.text).cases).toHaveLength(8)
  })

  test('normalised snapshot', () => {
    const xml = renderJUnit(every())
      .replace(/hostname="[^"]*"/, 'hostname="<host>"')
      .replace(/timestamp="[^"]*"/, 'timestamp="<time>"')
    expect(xml.split('\n').slice(0, 12).join('\n')).toMatchInlineSnapshot(`
      "<?xml version="1.0" encoding="UTF-8"?>
      <testsuites name="verify" tests="8" failures="3" errors="0" skipped="4" time="3.210">
        <testsuite name="pre-merge" tests="8" failures="3" errors="0" skipped="4" time="3.210" timestamp="<time>" hostname="<host>">
          <properties>
            <property name="verdict" value="rejected"/>
            <property name="runId" value="00000000-0000-4000-8000-000000000000"/>
          </properties>
          <testcase classname="pre-merge" name="Build (build)" time="2.841"/>
          <testcase classname="pre-merge" name="Unit tests (test)" time="1.500">
            <failure message="exit code 2" type="failed">$ run test
      line 101
      line 102"
    `)
  })
})
