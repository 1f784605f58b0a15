// Each reporter end to end: the built CLI on a small failing fixture, checked structurally. In process (cli(argv, io)),
// but for the agent's detection, which reads the process's own environment, and a reporter module loaded by path.
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, sandbox } from '../helpers/cli.js'
import { parseWorkflowLog } from './workflow.js'
import { childElements, parseXml, textOf } from './xml.js'

afterAll(cleanup)

const BASIC = fixture('reporters-basic')
const CURSOR = new RegExp(`${'\x1b'}\\[\\d*[A-K]`)
const INJECTED = ['::error::injected by the check', '::set-output name=verdict::approved', '##[error]old syntax']

describe.concurrent('reporters through the CLI', () => {
  test('junit=<file>: a well-formed report with a testcase per check; exit code by the verdict', async () => {
    const box = sandbox({ inProcess: true })
    const report = box.path('reports/verify.xml')
    const result = await box.run(['--cwd', BASIC, '--reporter', `junit=${report}`])
    expect(result.code, diagnose(result)).toBe(1)
    expect(result.stdout).toBe('')
    const suites = parseXml(readFileSync(report, 'utf8'))
    const suite = childElements(suites, 'testsuite')[0]
    if (!suite) throw new Error('no testsuite')
    expect(suite.attributes).toMatchObject({ name: 'reporters', tests: '5', failures: '2', skipped: '2' })
    const cases = Object.fromEntries(childElements(suite, 'testcase').map((c) => [c.attributes.name, c]))
    expect(Object.keys(cases)).toEqual(['Build (build)', 'Unit tests (test)', 'e2e', 'lint', 'review'])
    const failure = childElements(cases['Unit tests (test)'] as never, 'failure')[0]
    expect(failure?.attributes.message).toBe('exit code 1')
    expect(textOf(failure as never)).toContain(']]> <testcase name="fake"/> & </failure>')
    expect(childElements(cases.e2e as never, 'skipped')[0]?.attributes.message).toMatch(/^skipped: its dependency "test" did not pass/)
    expect(childElements(cases.review as never, 'skipped')[0]?.attributes.message).toBe('pending manual: A reviewer has read the change')
  })

  test('junit on stdout: only the XML', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', BASIC, '--reporter', 'junit'])
    expect(parseXml(result.stdout).name).toBe('testsuites')
  })

  test('GITHUB_ACTIONS=true: github-actions joins the default; folds, one error, no injected command; the summary appended', async () => {
    const box = sandbox({ inProcess: true })
    const summary = box.path('step-summary.md')
    writeFileSync(summary, '## From an earlier command\n')
    const result = await box.run(['--cwd', BASIC], { env: { GITHUB_ACTIONS: 'true', CI: 'true', GITHUB_STEP_SUMMARY: summary } })
    expect(result.code, diagnose(result)).toBe(1)
    const log = parseWorkflowLog(result.stdout)
    const byName = (name: string) => log.commands.filter((c) => c.name === name)
    expect(byName('group').map((c) => c.message.split(' · ')[0])).toEqual(expect.arrayContaining(['build', 'test', 'lint']))
    expect(byName('endgroup')).toHaveLength(byName('group').length)
    // The failing test the output names comes first, and the annotation points at its file (relative to the workspace).
    expect(byName('error')).toEqual([expect.objectContaining({ properties: { file: 'fixtures/reporters-basic/src/math.test.ts', title: 'Unit tests' } })])
    expect(byName('error')[0]?.message).toMatch(
      /^failed: exit code 1\n\$ node print\.mjs\n✗ adds \(src\/math\.test\.ts\)\n {2}AssertionError: expected 3 to be 4\nFAIL {2}src\/math\.test\.ts > adds\n/,
    )
    expect(byName('warning')).toEqual([expect.objectContaining({ properties: { title: 'lint' } })])
    expect(byName('set-output')).toEqual([])
    for (const line of INJECTED) expect(log.text).toContain(line)
    // The default reporter still prints its lines, without any cursor movement.
    expect(result.stdout).toContain('Verdict REJECTED')
    expect(result.stdout).not.toMatch(CURSOR)
    const markdown = readFileSync(summary, 'utf8')
    expect(markdown.startsWith('## From an earlier command\n\n### ❌ verify: rejected')).toBe(true)
    expect(markdown).toMatch(/^\| ❌ Unit tests \(`test`\) \| failed — exit code 1 \| [\d.]+m?s \|$/m)
  })

  test('markdown on stdout: the summary, nothing else', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', BASIC, '--reporter', 'markdown'])
    expect(result.stdout.startsWith('### ❌ verify: rejected\n')).toBe(true)
    expect(result.stdout.match(/^\| /gm)).toHaveLength(2 + 5)
  })

  test('under a coding agent, no --reporter: the agent digest, short, with the next command', async () => {
    const box = sandbox()
    const result = await box.run(['--cwd', BASIC], { env: { CLAUDECODE: '1' } })
    expect(result.code, diagnose(result)).toBe(1)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('verify: running protocol reporters (5 checks)…')
    expect(lines[1]).toMatch(/^verify: REJECTED — 1 passed, 2 failed, 1 skipped, 1 pending of 5 checks/)
    expect(lines.length).toBeLessThan(60)
    expect(result.stdout).toContain('  │ FAIL  src/math.test.ts > adds\n  │ AssertionError: expected 3 to be 4\n')
    // The next command is this run's own invocation (its --evidence included) with --reuse.
    expect(result.stdout).toMatch(/npx verify run( --\S+ \S+)* --reuse/)
    expect(result.stdout).toMatch(/npx verify approve review --by <name>( --\S+ \S+)*\n/)
  })

  test('verbose: every output line with its id, and the default summary', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', BASIC, '--reporter', 'verbose'])
    expect(result.stdout).toContain('build  │ built ok\n')
    expect(result.stdout).toContain('test   │   ✓ case 300 passed\n')
    expect(result.stdout).toContain('lint   │ lint: 1 warning\n')
    expect(result.stdout.match(/^test {3}│ /gm)?.length).toBe(330)
    expect(result.stdout).toContain('Verdict REJECTED')
  })

  test('default without a TTY: start and end lines with [done/total], no escapes', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', BASIC])
    expect(result.stdout).toMatch(/\[5\/5\]/)
    expect(result.stdout).not.toContain('\x1b[')
  })

  test('reporters from the config: a factory module with options and an inline object', async () => {
    const box = sandbox()
    const result = await box.run(['--cwd', fixture('reporters-custom')])
    expect(result.code, diagnose(result)).toBe(0)
    expect(result.stdout).toContain('custom ok: passed\n')
    expect(result.stdout).toContain('custom flaky: failed\n')
    expect(result.stdout).toContain('custom verdict: approved\n')
    expect(result.stdout).toContain('inline object reporter: approved\n')
    expect(result.stdout).toContain('async reporter: after its await\n')
  })

  test('a reporter module that cannot be loaded: exit 2 and a message naming it, before any check runs', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', fixture('reporters-broken')])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^verify: Could not load the reporter "\.\/missing-reporter\.mjs"/)
    expect(result.stdout).toBe('')
  })
})
