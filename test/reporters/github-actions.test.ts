// The github-actions reporter as the runner reads it: folds, annotations within GitHub's limits, no command
// injection from check output, and a step summary appended under 1 MiB.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { createGitHubActionsReporter, foldOutput, renderAnnotations } from '../../src/reporters/github-actions.js'
import { ANNOTATIONS_PER_STEP, escapeData, escapeProperty, STEP_SUMMARY_LIMIT, workflowCommand } from '../../src/reporters/workflow-commands.js'
import type { CheckResult } from '../../src/types.js'
import { lines, outcome, recorder, replay, result } from '../helpers/outcome.js'
import { parseWorkflowLog } from './workflow.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-gha-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
let n = 0
const summaryFile = () => join(tmp, `summary-${n++}.md`)

async function run(results: CheckResult[], env: Record<string, string> = {}, strictMode = false) {
  const { options, out } = recorder({ env, ci: true })
  await replay(createGitHubActionsReporter(options), outcome(results, { strictMode }))
  return { log: out.text, parsed: parseWorkflowLog(out.text) }
}

const INJECTION = [
  '::error::injected error',
  '::warning file=x.ts,line=1::injected warning',
  '   ::notice::leading spaces do not help',
  '::set-output name=verdict::approved',
  '::add-mask::hunter2',
  '::endgroup::',
  '::stop-commands::guess',
  '::guess::',
  '##[error]the old syntax',
  '::group::fake group',
].join('\n')

describe('github-actions: workflow command escaping', () => {
  test('data escapes %, CR and LF; properties also : and ,', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext')
    expect(escapeProperty('a: b, c%\n')).toBe('a%3A b%2C c%25%0A')
  })

  test('a title and message with every special character round-trip through the runner', () => {
    const line = workflowCommand('error', 'multi\nline: 50%, done\r', { title: 'Build: api, web (100%)' })
    expect(line.endsWith('\n')).toBe(true)
    expect(line.slice(0, -1)).not.toMatch(/[\r\n]/)
    const [command] = parseWorkflowLog(line).commands
    expect(command).toMatchObject({ name: 'error', properties: { title: 'Build: api, web (100%)' }, message: 'multi\nline: 50%, done\r' })
  })
})

const token = (s: string) => /::stop-commands::([0-9a-f]{32})\n/.exec(s)?.[1]

describe('github-actions: folds', () => {
  test('each check that ran gets one group with its output; checks that never ran get none', async () => {
    const { parsed } = await run([
      result('build', 'passed', { output: 'built\n' }),
      result('test', 'failed', { output: 'FAIL one\nFAIL two' }),
      result('lint', 'skipped'),
      result('review', 'pending_manual'),
    ])
    const groups = parsed.commands.filter((c) => c.name === 'group')
    expect(groups.map((g) => g.message)).toEqual(['build · passed · 1.23s', 'test · failed · 1.23s'])
    expect(parsed.commands.filter((c) => c.name === 'endgroup')).toHaveLength(2)
    expect(parsed.text).toEqual(expect.arrayContaining(['built', 'FAIL one', 'FAIL two']))
  })

  test('output that looks like workflow commands is shown as text and never runs as a command', async () => {
    const { parsed } = await run([result('evil', 'failed', { name: 'Evil', output: `${INJECTION}\n` }), result('after', 'passed', { output: INJECTION })])
    const names = parsed.commands.map((c) => c.name)
    // Only verify's own commands: folds, stop/resume, and the one annotation for the failed check.
    expect(new Set(names)).toEqual(new Set(['group', 'stop-commands', 'endgroup', 'error']))
    expect(parsed.commands.filter((c) => c.name === 'error')).toHaveLength(1)
    expect(parsed.commands.filter((c) => c.name === 'group').map((c) => c.message)).toEqual(['evil · failed · 1.23s', 'after · passed · 1.23s'])
    expect(parsed.commands.filter((c) => c.name === 'endgroup')).toHaveLength(2)
    for (const line of INJECTION.split('\n')) expect(parsed.text.filter((t) => t === line)).toHaveLength(2)
  })

  test('control characters in the output do not reach the job log', async () => {
    const { log } = await run([result('bin', 'passed', { output: 'nul\u0000 bell\u0007 vt\u000b tab\tend\n' })])
    expect(log).toContain('nul bell vt tab\tend\n')
  })

  test('the resume token is random and never one the output contains', () => {
    const a = foldOutput('x', 'text')
    const b = foldOutput('x', 'text')
    expect(token(a)).toBeDefined()
    expect(token(a)).not.toBe(token(b))
    const fold = foldOutput('x', `::${token(a)}::\nmore`)
    expect(token(fold)).not.toBe(token(a))
    expect(parseWorkflowLog(fold).text).toEqual([`::${token(a)}::`, 'more'])
  })
})

const optionalFailure = () => [result('lint', 'failed', { required: false })]

describe('github-actions: annotations', () => {
  test('a failing required check is an ::error titled with its name, saying how it failed and the lines that matter', async () => {
    const output = `${lines(50, (i) => `compiling ${i}`)}src/a.ts(3,1): error TS2304: Cannot find name 'foo'.\n${lines(5, (i) => `after ${i}`)}`
    const { parsed } = await run([result('build', 'failed', { name: 'Build: all, packages', reason: 'exit code 2', output, command: 'npm run build' })])
    const errors = parsed.commands.filter((c) => c.name === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]?.properties.title).toBe('Build: all, packages')
    const message = errors[0]?.message.split('\n') ?? []
    expect(message[0]).toBe('failed: exit code 2')
    expect(message[1]).toBe('$ npm run build')
    expect(message[2]).toBe("src/a.ts(3,1): error TS2304: Cannot find name 'foo'.")
    // The error lines, a gap, then the last lines: ten lines of output at most.
    expect(message[3]).toBe('…')
    expect(message.slice(2).filter((l) => l !== '…')).toHaveLength(10)
    expect(message.at(-1)).toBe('after 5')
  })

  test('optional failing checks are warnings; with strictMode they are errors', async () => {
    const results = optionalFailure
    expect((await run(results())).parsed.commands.filter((c) => c.name === 'warning')).toHaveLength(1)
    const strict = await run(results(), {}, true)
    expect(strict.parsed.commands.filter((c) => c.name === 'error')).toHaveLength(1)
    expect(strict.parsed.commands.filter((c) => c.name === 'warning')).toHaveLength(0)
  })

  test(`at most ${ANNOTATIONS_PER_STEP} errors and ${ANNOTATIONS_PER_STEP} warnings, then one notice that counts the rest`, async () => {
    const results = [
      ...Array.from({ length: 25 }, (_, i) => result(`req-${i}`, 'failed', { output: `boom ${i}` })),
      ...Array.from({ length: 13 }, (_, i) => result(`opt-${i}`, 'timed_out', { required: false })),
      result('fine', 'passed'),
    ]
    const { parsed } = await run(results)
    const by = (name: string) => parsed.commands.filter((c) => c.name === name)
    expect(by('error')).toHaveLength(ANNOTATIONS_PER_STEP)
    expect(by('error').map((c) => c.properties.title)).toEqual(Array.from({ length: 10 }, (_, i) => `req-${i}`))
    expect(by('warning')).toHaveLength(ANNOTATIONS_PER_STEP)
    expect(by('notice')).toHaveLength(1)
    expect(by('notice')[0]?.message).toMatch(/^15 failing checks and 3 optional failing checks are not annotated/)
  })

  test('exactly the limit: no notice', () => {
    const text = renderAnnotations(outcome(Array.from({ length: ANNOTATIONS_PER_STEP }, (_, i) => result(`c${i}`, 'error'))))
    const commands = parseWorkflowLog(text).commands
    expect(commands.filter((c) => c.name === 'error')).toHaveLength(ANNOTATIONS_PER_STEP)
    expect(commands.filter((c) => c.name === 'notice')).toHaveLength(0)
  })

  test('an incomplete verdict without failures gets one error that says why', async () => {
    const { parsed } = await run([result('ok', 'passed'), result('review', 'pending_manual', { name: 'Review' })])
    const errors = parsed.commands.filter((c) => c.name === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]?.properties.title).toBe('verify: incomplete')
    expect(errors[0]?.message).toContain('Waiting for approval: Review')
  })

  test('an approved run has no annotation', async () => {
    const { parsed } = await run([result('ok', 'passed')])
    expect(parsed.commands.filter((c) => ['error', 'warning', 'notice'].includes(c.name))).toEqual([])
  })
})

describe('github-actions: step summary', () => {
  test('appended to $GITHUB_STEP_SUMMARY, never overwriting what earlier commands of the step wrote', async () => {
    const file = summaryFile()
    writeFileSync(file, '# Earlier content\n')
    await run([result('ok', 'passed'), result('bad', 'failed', { output: 'it broke\n' })], { GITHUB_STEP_SUMMARY: file })
    const text = readFileSync(file, 'utf8')
    expect(text.startsWith('# Earlier content\n')).toBe(true)
    expect(text).toContain('### ❌ verify: rejected')
    expect(text).toContain('it broke')
  })

  test('two runs in one step: two summaries, one after the other', async () => {
    const file = summaryFile()
    await run([result('ok', 'passed')], { GITHUB_STEP_SUMMARY: file })
    await run([result('ok', 'passed')], { GITHUB_STEP_SUMMARY: file })
    expect(readFileSync(file, 'utf8').match(/### ✅ verify: approved/g)).toHaveLength(2)
  })

  test('a $GITHUB_STEP_SUMMARY that is a FIFO is not opened (that would block): a warning says so', async () => {
    const file = summaryFile()
    execFileSync('mkfifo', [file])
    const { parsed } = await run([result('ok', 'passed')], { GITHUB_STEP_SUMMARY: file })
    expect(parsed.commands.filter((c) => c.name === 'warning').map((c) => c.message)).toEqual([
      `The step summary ${file} is not a regular file: verify's summary was not written.`,
    ])
  })

  test('without $GITHUB_STEP_SUMMARY nothing is written and nothing fails', async () => {
    const { parsed } = await run([result('ok', 'passed')])
    expect(parsed.commands.filter((c) => c.name === 'warning')).toEqual([])
  })

  test('200 failing checks with huge outputs: the summary stays under 1 MiB, keeps every row and says it shortened the tails', async () => {
    const file = summaryFile()
    const big = lines(2000, (i) => `${i} ${'y'.repeat(200)}`)
    const results = Array.from({ length: 200 }, (_, i) => result(`check-${String(i).padStart(3, '0')}`, 'failed', { output: big }))
    await run(results, { GITHUB_STEP_SUMMARY: file })
    const size = statSync(file).size
    expect(size).toBeLessThan(STEP_SUMMARY_LIMIT)
    expect(size).toBeGreaterThan(STEP_SUMMARY_LIMIT * 0.8)
    const text = readFileSync(file, 'utf8')
    expect(text.match(/^\| ❌ `check-\d{3}` \|/gm)).toHaveLength(200)
    expect(text).toMatch(/Output tails were shortened to keep this summary under GitHub's 1 MiB limit/)
    expect(text.match(/<details>/g)).toHaveLength(200)
    // Tails are whole lines: every code block closes.
    expect((text.match(/^````?text$/gm) ?? []).length).toBe((text.match(/<\/details>/g) ?? []).length)
  })

  test('a step summary already near the limit: what verify adds keeps the file under 1 MiB', async () => {
    const file = summaryFile()
    const earlier = 'e'.repeat(STEP_SUMMARY_LIMIT - 40 * 1024)
    writeFileSync(file, earlier)
    const results = Array.from({ length: 50 }, (_, i) => result(`c${i}`, 'failed', { output: lines(500, (k) => `${k} ${'z'.repeat(100)}`) }))
    await run(results, { GITHUB_STEP_SUMMARY: file })
    const text = readFileSync(file, 'utf8')
    expect(Buffer.byteLength(text)).toBeLessThan(STEP_SUMMARY_LIMIT)
    expect(text.startsWith(earlier)).toBe(true)
    expect(text).toContain('verify: rejected')
  })

  test('a full step summary: no summary, and a warning that says so', async () => {
    const file = summaryFile()
    writeFileSync(file, 'f'.repeat(STEP_SUMMARY_LIMIT - 100))
    const { parsed } = await run([result('bad', 'failed')], { GITHUB_STEP_SUMMARY: file })
    expect(statSync(file).size).toBe(STEP_SUMMARY_LIMIT - 100)
    const warnings = parsed.commands.filter((c) => c.name === 'warning')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toMatch(/no room for verify's summary/)
  })

  test('an unwritable summary path is a warning, not a crash', async () => {
    const file = join(tmp, 'missing-dir', 'deeper', 'summary.md')
    const { parsed } = await run([result('ok', 'passed')], { GITHUB_STEP_SUMMARY: file })
    expect(existsSync(file)).toBe(false)
    expect(parsed.commands.filter((c) => c.name === 'warning')[0]?.message).toMatch(/^Could not write the step summary/)
  })

  test('github-actions=<file> writes the summary to that file instead', async () => {
    const file = summaryFile()
    const { options } = recorder({ file, env: {} })
    await replay(createGitHubActionsReporter(options), outcome([result('ok', 'passed')]))
    expect(readFileSync(file, 'utf8')).toContain('verify: approved')
  })
})
