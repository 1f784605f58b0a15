// A check's output is untrusted: whatever it prints, no reporter that writes to stdout lets the GitHub Actions runner
// read a workflow command from it, and no terminal gets control characters or cursor movement from it.
import { describe, expect, test } from 'vitest'
import type { CliIO } from '../../src/cli/io.js'
import { createAgentReporter } from '../../src/reporters/agent.js'
import { createDefaultReporter } from '../../src/reporters/default.js'
import { combineReporters } from '../../src/reporters/index.js'
import { createJsonReporter } from '../../src/reporters/json.js'
import { createJUnitReporter } from '../../src/reporters/junit.js'
import { createMarkdownReporter } from '../../src/reporters/markdown.js'
import { guardCommand, plainLine } from '../../src/reporters/safe-text.js'
import { createReporters } from '../../src/reporters/select.js'
import type { Reporter } from '../../src/reporters/types.js'
import { createVerboseReporter } from '../../src/reporters/verbose.js'
import { stripAnsi } from '../../src/runner/ansi.js'
import { outcome, recorder, replay, result } from '../helpers/outcome.js'
import { parseWorkflowLog } from './workflow.js'
import { parseXml, textOf, type XmlElement } from './xml.js'

// Each line smuggles a command past a naive guard: behind a carriage return (the runner splits lines at CR), in the
// `##[` syntax the runner finds anywhere in a line, or with invisible characters the runner's comparison skips.
const HOSTILE = [
  'compiling…',
  'x\r::stop-commands::zzz',
  'y\r::error title=Fake::planted annotation',
  'progress 10%\r\r::warning::behind two CRs',
  'see ##[error]the old syntax, mid-line',
  'ok ##[stop-commands]yyy',
  '\u200B::error::behind a zero-width space',
  '#\u200B#[error]split by a zero-width space',
  '\u00A0\u2003::notice::behind Unicode spaces',
  '::set-output name=verdict::approved',
  'FAIL src/a.test.ts',
].join('\n')

const hostileRun = () =>
  outcome([result('build', 'passed', { output: 'built\n' }), result('unit-tests', 'failed', { output: `${HOSTILE}\n`, reason: 'exit code 1' })])

/** Every reporter that can print on stdout, as the CLI builds it in GitHub Actions (github-actions joins it). */
async function inGitHubActions(spec: string): Promise<string> {
  let log = ''
  const io: CliIO = { stdout: (t) => void (log += t), stderr: (t) => void (log += t), env: { GITHUB_ACTIONS: 'true' }, cwd: '/project', isTTY: false }
  const reporters = await createReporters([spec], io, false)
  await replay(combineReporters(reporters), hostileRun())
  return log
}

describe('no workflow command from check output, whatever the reporter on stdout', () => {
  test.each(['default', 'verbose', 'agent', 'json', 'junit', 'markdown'])('%s in GitHub Actions: only verify’s own commands', async (spec) => {
    const { commands } = parseWorkflowLog(await inGitHubActions(spec))
    // verify's own: a fold per check that ran (each with its stop-commands and resume token) and one annotation.
    const own = new Set(['group', 'endgroup', 'stop-commands', 'error'])
    const foreign = commands.filter((c) => !own.has(c.name) && !/^[0-9a-f]{32}$/.test(c.name))
    expect(foreign).toEqual([])
    expect(commands.filter((c) => c.name === 'stop-commands').map((c) => c.message)).toEqual([
      expect.stringMatching(/^[0-9a-f]{32}$/),
      expect.stringMatching(/^[0-9a-f]{32}$/),
    ])
    // The point of a planted stop-commands: verify's own annotation still gets through.
    expect(commands.filter((c) => c.name === 'error').map((c) => c.properties.title)).toEqual(['unit-tests'])
  })

  const standalone: [string, (o: ReturnType<typeof recorder>['options']) => Reporter][] = [
    ['default', createDefaultReporter],
    ['verbose', createVerboseReporter],
    ['agent', createAgentReporter],
    ['json', createJsonReporter],
    ['junit', createJUnitReporter],
    ['markdown', createMarkdownReporter],
  ]
  test.each(standalone)('%s on its own: no command at all', async (_name, create) => {
    const { options, out } = recorder({ ci: true })
    await replay(create(options), hostileRun())
    expect(parseWorkflowLog(out.text).commands).toEqual([])
  })

  test('default and agent show what a terminal would: the text after the last carriage return, commands defused', async () => {
    const { options, out } = recorder({ ci: true })
    await replay(createDefaultReporter(options), hostileRun())
    expect(out.text).toContain('  │ ::stop-commands::zzz\n')
    expect(out.text).toContain('  │ ::warning::behind two CRs\n')
    expect(out.text).toContain('  │ see ## [error]the old syntax, mid-line\n')
    expect(out.text).toContain('  │ ## [error]split by a zero-width space\n')
    expect(out.text).not.toContain('\r')
  })

  test('json and junit on stdout: the same document once parsed', async () => {
    const run = hostileRun()
    const json = recorder()
    await replay(createJsonReporter(json.options), run)
    expect(JSON.parse(json.out.text)).toEqual(JSON.parse(JSON.stringify(run.file)))

    const junit = recorder()
    await replay(createJUnitReporter(junit.options), run)
    const find = (el: XmlElement, name: string): XmlElement | undefined =>
      el.name === name ? el : el.children.flatMap((c) => (typeof c === 'string' ? [] : [find(c, name)])).find(Boolean)
    const body = textOf(find(parseXml(junit.out.text), 'failure') as XmlElement)
    expect(body).toContain('\n::set-output name=verdict::approved\n')
    expect(body).toContain('\nsee ##[error]the old syntax, mid-line\n')
    expect(body).toContain('\n\u200B::error::behind a zero-width space\n')
  })

  test('guardCommand leaves ordinary lines alone, colours included', () => {
    for (const line of ['plain', '\x1b[31mred\x1b[0m', 'a::b::c', '# heading [x]', '  │ ::error::prefixed']) expect(guardCommand(line)).toBe(line)
    expect(guardCommand('::error::x')).toBe(': :error::x')
    expect(guardCommand('\x1b[31m##[error]\x1b[0m')).toBe('## [error]')
  })
})

const noisy = () =>
  outcome([result('noisy', 'failed', { output: 'bell\u0007 nul\u0000 soh\u0001 del\u007F csi\u009B2J\nmove\x1b[1A\x1b[2Kdone\ntab\tkept\n' })])

describe('no control characters or cursor movement from check output', () => {
  test('default and agent tails: no control character but tab and newline', async () => {
    for (const create of [createDefaultReporter, createAgentReporter]) {
      const { options, out } = recorder({ color: true, ci: true })
      await replay(create(options), noisy())
      expect(stripAnsi(out.text)).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/)
      expect(out.text).not.toMatch(/\x1b\[\d*[ABCDHJK]/)
      expect(stripAnsi(out.text)).toContain('│ movedone')
      expect(stripAnsi(out.text)).toContain('│ tab\tkept')
    }
  })

  test('verbose with colour: SGR colours stay; cursor movement, erasing, titles and controls go', async () => {
    const { options, out } = recorder({ color: true })
    const reporter = createVerboseReporter(options)
    const run = outcome([result('a', 'passed')])
    await reporter.onRunStart?.(run.checklist)
    const check = run.checklist.protocol.checks[0] as never
    reporter.onCheckOutput?.(check, 'up\x1b[1A\x1b[2Kover \x1b[31mred\x1b[0m \x1b]0;title\x07\x1b[?25l\x1b[Hhome\u0007\n', 'stdout')
    const line = out.text.split('\n').find((l) => l.includes('over')) as string
    expect(line).toContain('\x1b[31mred\x1b[0m')
    // Only SGR sequences are left.
    expect(line.replace(/\x1b\[[0-9;]*m/g, '')).toBe('a │ upover red home')
  })

  test('plainLine: the text after the last carriage return that something follows', () => {
    expect(plainLine('10%\r50%\r100%')).toBe('100%')
    expect(plainLine('done\r')).toBe('done')
    expect(plainLine('a\u0000b\tc')).toBe('ab\tc')
  })
})
