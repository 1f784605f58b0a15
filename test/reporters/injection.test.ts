// Untrusted text in verify's own lines (issue 8 §6), in process: names, reasons, commands and protocol names of a run in
// every reporter, thrown messages, and the output layer every command prints through. Nothing reaches a terminal or a
// CI log as an escape sequence, a control character or a workflow command; what it says is still shown.
import { describe, expect, test } from 'vitest'
import type { CliIO } from '../../src/cli/io.js'
import { formatError } from '../../src/cli/main.js'
import { safeIO } from '../../src/cli/output.js'
import { VerifyConfigError } from '../../src/errors.js'
import { createRedactor } from '../../src/evidence/redact.js'
import { createAgentReporter } from '../../src/reporters/agent.js'
import { createDefaultReporter } from '../../src/reporters/default.js'
import { createGitHubActionsReporter } from '../../src/reporters/github-actions.js'
import { guardReporter } from '../../src/reporters/guard.js'
import { combineReporters } from '../../src/reporters/index.js'
import { createJsonReporter } from '../../src/reporters/json.js'
import { createJUnitReporter } from '../../src/reporters/junit.js'
import { createMarkdownReporter } from '../../src/reporters/markdown.js'
import type { ReporterOptions } from '../../src/reporters/options.js'
import { untrusted } from '../../src/reporters/safe-text.js'
import { createReporters } from '../../src/reporters/select.js'
import type { Reporter } from '../../src/reporters/types.js'
import { createVerboseReporter } from '../../src/reporters/verbose.js'
import { stripAnsi } from '../../src/runner/ansi.js'
import { outcome, recorder, replay, result } from '../helpers/outcome.js'
import { parseWorkflowLog, unsafeOutput } from './workflow.js'
import { parseXml } from './xml.js'

const HOSTILE =
  'ok\n::error file=x.ts::forged annotation\r::warning::behind a CR \u001b]0;title\u0007\u001b[2J\u001b[1A ##[group]grouped \u009b2J \u202Eesrever'

const hostileRun = () =>
  outcome(
    [
      result('build', 'failed', { name: `Build ${HOSTILE}`, reason: HOSTILE, command: `make ${HOSTILE}`, output: 'error: it broke\n' }),
      result('review', 'pending_manual', { name: `Review ${HOSTILE}`, reason: `Read it ${HOSTILE}` }),
    ],
    { name: `default ${HOSTILE}` },
  )

const REPORTERS: [string, (options: ReporterOptions) => Reporter][] = [
  ['default', createDefaultReporter],
  ['verbose', createVerboseReporter],
  ['agent', createAgentReporter],
  ['markdown', createMarkdownReporter],
  ['junit', createJUnitReporter],
  ['json', createJsonReporter],
]

describe('every reporter prints untrusted names, reasons and commands defused', () => {
  test.each(REPORTERS)('%s, colour off and on', async (_name, create) => {
    for (const color of [false, true]) {
      const { options, out } = recorder({ ci: true, color })
      await replay(create(options), hostileRun())
      expect(unsafeOutput(out.text)).toEqual([])
      expect(out.text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/)
      expect(out.text).toContain('forged annotation')
    }
  })

  test('json and junit: the document still holds the exact text', async () => {
    const run = hostileRun()
    const json = recorder()
    await replay(createJsonReporter(json.options), run)
    expect(JSON.parse(json.out.text).checks[0].name).toBe(`Build ${HOSTILE}`)
    const junit = recorder()
    await replay(createJUnitReporter(junit.options), run)
    expect(parseXml(junit.out.text).name).toBe('testsuites')
  })

  test('github-actions: only its own commands; titles and messages without escape sequences or control characters', async () => {
    const { options, out } = recorder({ ci: true })
    await replay(createGitHubActionsReporter(options), hostileRun())
    const { commands } = parseWorkflowLog(out.text)
    expect(unsafeOutput(out.text, ['group', 'endgroup', 'stop-commands', 'error'])).toEqual([])
    const annotation = commands.find((c) => c.name === 'error')
    expect(annotation?.properties.title).toContain('forged annotation')
    expect(`${annotation?.message}${annotation?.properties.title}`).not.toMatch(/[\u001b\u0007\u009b]/)
  })

  test('in GitHub Actions, through the output layer: verify’s folds and annotation, nothing else', async () => {
    let log = ''
    const raw: CliIO = { stdout: (t) => void (log += t), stderr: (t) => void (log += t), env: { GITHUB_ACTIONS: 'true' }, cwd: '/project', isTTY: false }
    const io = safeIO(raw)
    await replay(combineReporters(await createReporters(['default'], io, true)), hostileRun())
    expect(unsafeOutput(log, ['group', 'endgroup', 'stop-commands', 'error'])).toEqual([])
    expect(parseWorkflowLog(log).commands.filter((c) => c.name === 'error')).toHaveLength(1)
  })

  test('a reporter that throws an untrusted message', () => {
    let err = ''
    const reporter = guardReporter(
      {
        onRunStart: () => {
          throw new Error(HOSTILE)
        },
      },
      '"custom"',
      { stderr: (t) => void (err += t) },
    )
    reporter.onRunStart?.(hostileRun().checklist)
    expect(unsafeOutput(err)).toEqual([])
    expect(err).toContain('forged annotation')
  })
})

describe('thrown messages', () => {
  test.each([
    ['a config error with problems', new VerifyConfigError('E_CONFIG_INVALID', `bad config ${HOSTILE}`, [`checks.build: ${HOSTILE}`])],
    ['an unexpected error', new Error(HOSTILE)],
    ['a thrown string', HOSTILE],
  ])('%s', (_name, error) => {
    const text = formatError(error)
    expect(unsafeOutput(text)).toEqual([])
    expect(text).toContain('forged annotation')
  })
})

describe('untrusted()', () => {
  test('inline: one line, no escape sequence, control character or override; commands defused', () => {
    expect(untrusted('a\nb\r\nc\rd')).toBe('a b c d')
    expect(untrusted('\u001b]0;title\u0007\u001b[31mred\u001b[0m \u009b2Jx\u0000\u202E')).toBe('red x')
    expect(untrusted('::error::x')).toBe(': :error::x')
    expect(untrusted('see ##[error]x')).toBe('see ## [error]x')
    expect(untrusted('plain text: a::b, tab\tkept')).toBe('plain text: a::b, tab\tkept')
  })

  test('lines: each line on its own', () => {
    expect(untrusted('ok\n::error::x\r::warning::y', 'lines')).toBe('ok\n: :error::x\n: :warning::y')
  })
})

/** The output layer over an IO that records both streams in `out.text`. */
function layered(env: NodeJS.ProcessEnv = {}) {
  const out = { text: '' }
  const io = safeIO({ stdout: (t) => void (out.text += t), stderr: (t) => void (out.text += t), env, cwd: '/', isTTY: true })
  return { io, out }
}

describe('the output layer', () => {
  test('lines that would be workflow commands, also written in pieces', () => {
    const { io, out } = layered()
    io.stdout('first\n::error::one\n')
    io.stdout(':')
    io.stdout(':error::two\n')
    io.stdout('x ##')
    io.stdout('[error]three\n')
    io.stdout('#')
    io.stdout('#[error]four\n')
    io.stderr('   \u200B:')
    io.stderr(':warning::five\n')
    expect(parseWorkflowLog(out.text).commands).toEqual([])
    expect(out.text).toContain('first\n')
  })

  test('cursor movement, titles, carriage returns and controls go; colours stay', () => {
    const { io, out } = layered()
    io.stdout('\x1b[31mred\x1b[0m \x1b[2A\x1b]0;t\x07up\u0007\n50%\r100%\n')
    expect(out.text).toBe('\x1b[31mred\x1b[0m up\n100%\n')
  })

  test('verify’s own control takes the unguarded way, masked', () => {
    const { io, out } = layered({ API_TOKEN: 'tok-s3cr3t-v4lue' })
    io.unguarded?.stdout('\x1b[2A\x1b[0Jtok-s3cr3t-v4lue')
    expect(out.text).toBe('\x1b[2A\x1b[0J***')
  })

  test('secrets of the environment from the start, the config’s once it is loaded, also split by colours', () => {
    const { io, out } = layered({ API_TOKEN: 'tok-s3cr3t-v4lue' })
    io.stderr('verify: cannot load: tok-s3cr3t-v4lue\n')
    expect(out.text).toBe('verify: cannot load: ***\n')
    const widened = safeIO(io, createRedactor(['tok-s3cr3t-v4lue'], [/^password=.*$/m]))
    expect(widened).toBe(io)
    io.stdout('password=hunter2\ntok-s3\x1b[1mcr3t-v4lue\x1b[0m\n')
    expect(stripAnsi(out.text)).toBe('verify: cannot load: ***\n***\n***\n')
  })
})
