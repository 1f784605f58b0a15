// The terminal reporters: `default` (a live task list only where a person watches a terminal) and `verbose`
// (every output line prefixed with its check's id).
import { describe, expect, test, vi } from 'vitest'
import type { CliIO } from '../../src/cli/io.js'
import { stripAnsi } from '../../src/runner/ansi.js'
import { createDefaultReporter } from '../../src/reporters/default.js'
import { combineReporters } from '../../src/reporters/index.js'
import { createReporters } from '../../src/reporters/select.js'
import { STATUS_EMOJI, statusGlyph, statusIcon, statusText } from '../../src/reporters/status.js'
import type { Reporter } from '../../src/reporters/types.js'
import { createVerboseReporter } from '../../src/reporters/verbose.js'
import { fitWidth } from '../../src/reporters/width.js'
import type { CheckStatus, ResolvedCheck } from '../../src/types.js'
import { outcome, recorder, replay, result } from '../helpers/outcome.js'
import pc from 'picocolors'

const ESC = '\x1b'
// Cursor up / erase / hide / show: what a live redraw uses.
const CURSOR = new RegExp(`${ESC}\\[(?:\\d*[ABCDGHJK]|\\?25[lh])`)
const ANY_ESCAPE = new RegExp(ESC)
const SGR = new RegExp(`${ESC}\\[[\\d;]*m`)

const run = () =>
  outcome([
    result('build', 'passed', { output: 'ok\n' }),
    result('unit-tests', 'failed', { output: 'boom\n', reason: 'exit code 1' }),
    result('review', 'pending_manual'),
  ])

describe('default reporter', () => {
  test('not a TTY: one line per start and end with [done/total], no escape of any kind', async () => {
    const { options, out } = recorder({ isTTY: false })
    await replay(createDefaultReporter(options), run())
    expect(out.text).not.toMatch(ANY_ESCAPE)
    expect(out.text).toContain('▶ build started\n')
    expect(out.text).toMatch(/^✓ build {6}\s+1\.23s passed \[1\/3\]$/m)
    expect(out.text).toMatch(/^✗ unit-tests\s+1\.23s failed \(exit code 1\) \[2\/3\]$/m)
    expect(out.text).toMatch(/\[3\/3\]\n/)
    expect(out.text).toContain('Verdict REJECTED')
  })

  test('a TTY in CI: no cursor movement, even with colours on', async () => {
    const { options, out } = recorder({ isTTY: true, ci: true, color: true })
    await replay(createDefaultReporter(options), run())
    expect(out.text).not.toMatch(CURSOR)
    expect(out.text).toMatch(SGR)
  })

  test('a dumb terminal: no cursor movement', async () => {
    const { options, out } = recorder({ isTTY: true, env: { TERM: 'dumb' } })
    await replay(createDefaultReporter(options), run())
    expect(out.text).not.toMatch(CURSOR)
  })

  test('an interactive terminal: the live list redraws, shows done/total and restores the cursor', async () => {
    vi.useFakeTimers()
    try {
      const { options, out } = recorder({ isTTY: true, rows: 40 })
      await replay(createDefaultReporter(options), run())
      expect(out.text).toMatch(CURSOR)
      expect(out.text).toContain('3/3 done')
      expect(out.text.endsWith('\n')).toBe(true)
      expect(out.text.lastIndexOf('\x1b[?25h')).toBeGreaterThan(out.text.lastIndexOf('\x1b[?25l'))
    } finally {
      vi.useRealTimers()
    }
  })

  test('--no-color: no colour in a live terminal either', async () => {
    vi.useFakeTimers()
    try {
      const { options, out } = recorder({ isTTY: true, color: false })
      await replay(createDefaultReporter(options), run())
      expect(out.text).not.toMatch(SGR)
    } finally {
      vi.useRealTimers()
    }
  })
})

const wide = () =>
  outcome([
    result('build', 'passed'),
    result('unit-tests', 'failed', { reason: `exit code 1: ${'a long reason that will not fit '.repeat(20)}` }),
    result('a-check-with-a-rather-long-identifier', 'timed_out', { reason: 'timed out after 10s' }),
  ])

// The physical lines the live list drew: every frame, without the cursor movement that starts a redraw.
const drawnLines = (text: string) =>
  text
    .split('\n')
    .map((line) =>
      line
        .replace(/^\x1b\[\d+A\x1b\[0J/, '')
        .replace('\x1b[?25l', '')
        .replace('\x1b[?25h', ''),
    )
    .filter((line) => line !== '' && !line.includes('Verdict'))

describe('default reporter: the live list', () => {
  test('each row is cut to the terminal width, colours whole: a redraw moves up exactly what it drew', async () => {
    vi.useFakeTimers()
    try {
      const { options, out } = recorder({ isTTY: true, color: true, columns: 40 })
      const o = wide()
      const reporter = createDefaultReporter(options)
      await reporter.onRunStart?.(o.checklist)
      for (const [i, r] of o.checklist.results.entries()) reporter.onCheckEnd?.(o.checklist.protocol.checks[i] as ResolvedCheck, r)
      const frames = out.text.split(/\x1b\[\?25l/)[1] as string
      for (const line of drawnLines(frames)) {
        expect([...stripAnsi(line)].length, JSON.stringify(line)).toBeLessThanOrEqual(39)
        // Only whole SGR sequences: none cut in half.
        expect(line.replace(/\x1b\[[0-9;]*m/g, '')).not.toContain('\x1b')
      }
      expect(frames).toContain('unit-tests')
      expect(frames).toMatch(/…/)
    } finally {
      vi.useRealTimers()
    }
  })

  test('without a known width, rows fit 80 columns', async () => {
    vi.useFakeTimers()
    try {
      const { options, out } = recorder({ isTTY: true })
      await replay(createDefaultReporter(options), wide())
      const lines = drawnLines(out.text.slice(out.text.indexOf('\x1b[?25l'), out.text.lastIndexOf('\x1b[?25h')))
      expect(Math.max(...lines.map((l) => [...l].length))).toBe(79)
    } finally {
      vi.useRealTimers()
    }
  })

  test('the CLI IO’s width reaches the live list', async () => {
    vi.useFakeTimers()
    try {
      let text = ''
      const io = { stdout: (t: string) => void (text += t), stderr: () => {}, env: {}, cwd: '/project', isTTY: true, columns: 30 } as CliIO
      await replay(combineReporters(await createReporters(['default'], io, false)), wide())
      const lines = drawnLines(text.slice(text.indexOf('\x1b[?25l'), text.lastIndexOf('\x1b[?25h')))
      expect(Math.max(...lines.map((l) => [...l].length))).toBe(29)
    } finally {
      vi.useRealTimers()
    }
  })

  test('once every check has ended the list stops redrawing, so a question asked then stays on screen', async () => {
    vi.useFakeTimers()
    try {
      const { options, out } = recorder({ isTTY: true })
      const o = run()
      const reporter: Reporter = createDefaultReporter(options)
      await reporter.onRunStart?.(o.checklist)
      for (const [i, r] of o.checklist.results.entries()) {
        const c = o.checklist.protocol.checks[i] as ResolvedCheck
        reporter.onCheckStart?.(c, r)
        reporter.onCheckEnd?.(c, r)
      }
      expect(out.text.endsWith('3/3 done\n\x1b[?25h')).toBe(true)
      const afterChecks = out.text
      vi.advanceTimersByTime(2000)
      expect(out.text).toBe(afterChecks)
      await reporter.onRunEnd?.(o)
      const end = out.text.slice(afterChecks.length)
      // The summary, no second last frame.
      expect(end).not.toMatch(CURSOR)
      expect(end).toContain('Verdict REJECTED')
    } finally {
      vi.useRealTimers()
    }
  })

  test('fitWidth never cuts an escape sequence or a wide character in half', () => {
    const red = `\x1b[31m${'x'.repeat(50)}\x1b[39m`
    expect(fitWidth(red, 10)).toBe(`\x1b[31m${'x'.repeat(9)}…\x1b[0m`)
    expect(fitWidth('日本語のテキスト', 5)).toBe('日本…')
    expect(fitWidth('short', 10)).toBe('short')
  })
})

describe('statuses read the same in every reporter', () => {
  const all: CheckStatus[] = ['pending', 'running', 'passed', 'failed', 'timed_out', 'error', 'skipped', 'cancelled', 'pending_manual', 'stale']
  test('words without underscores, a glyph and an emoji for each; colour only when on', () => {
    expect(all.map(statusText)).toEqual(['pending', 'running', 'passed', 'failed', 'timed out', 'error', 'skipped', 'cancelled', 'pending manual', 'stale'])
    for (const status of all) {
      expect(statusGlyph(status)).toHaveLength(1)
      expect(STATUS_EMOJI[status]).toBeTruthy()
      expect(statusIcon(status, pc.createColors(false))).toBe(statusGlyph(status))
    }
    expect(statusIcon('failed', pc.createColors(true))).toBe('\x1b[31m✗\x1b[39m')
  })
})

const check = (id: string) => ({ id }) as ResolvedCheck

async function start() {
  const { options, out } = recorder()
  const reporter = createVerboseReporter(options)
  const o = outcome([result('a', 'passed'), result('long-id', 'passed')])
  await reporter.onRunStart?.(o.checklist)
  return { reporter, out, o }
}

describe('verbose reporter', () => {
  test('each line prefixed with its padded id; partial lines wait for their end; the rest flushes at check end', async () => {
    const { reporter, out, o } = await start()
    const [a, b] = o.checklist.results
    reporter.onCheckOutput?.(check('a'), 'first li', 'stdout')
    reporter.onCheckOutput?.(check('long-id'), 'other\nhalf', 'stdout')
    reporter.onCheckOutput?.(check('a'), 'ne\nsecond\r\nthird', 'stdout')
    reporter.onCheckOutput?.(check('a'), 'on stderr\n', 'stderr')
    reporter.onCheckEnd?.(check('a'), a as never)
    reporter.onCheckOutput?.(check('long-id'), ' done', 'stdout')
    reporter.onCheckEnd?.(check('long-id'), b as never)
    const printed = out.text.split('\n').filter((l) => l.includes('│'))
    expect(printed).toEqual(['long-id │ other', 'a       │ first line', 'a       │ second', 'a       │ on stderr', 'a       │ third', 'long-id │ half done'])
  })

  test('without colour, escapes in the output are stripped; a carriage return shows what the terminal would', async () => {
    const { reporter, out } = await start()
    reporter.onCheckOutput?.(check('a'), '\x1b[31mred\x1b[0m\n10%\r50%\r100%\n', 'stdout')
    expect(out.text).toContain('a       │ red\n')
    expect(out.text).toContain('a       │ 100%\n')
    expect(out.text).not.toMatch(ANY_ESCAPE)
  })

  test('plain lines in one piece print as line by line would; a line the runner could read as a command is still defused', async () => {
    const { reporter, out } = await start()
    reporter.onCheckOutput?.(check('a'), 'one\ntwo\n\nthr', 'stdout')
    reporter.onCheckOutput?.(check('a'), 'ee\n  ::error::x\n', 'stdout')
    reporter.onCheckOutput?.(check('a'), 'é first\nplain # hash\n', 'stdout')
    const printed = out.text.split('\n').filter((l) => l.includes('│'))
    expect(printed).toEqual([
      'a       │ one',
      'a       │ two',
      'a       │ ',
      'a       │ three',
      'a       │   : :error::x',
      'a       │ é first',
      'a       │ plain # hash',
    ])
  })

  test('a huge line without a newline is printed in pieces, not held whole', async () => {
    const { reporter, out } = await start()
    reporter.onCheckOutput?.(check('a'), 'x'.repeat(100 * 1024), 'stdout')
    expect(out.text.length).toBeGreaterThan(64 * 1024)
  })

  test('composes the default reporter: start and end lines, the summary, never a live redraw', async () => {
    const { options, out } = recorder({ isTTY: true, color: true })
    await replay(createVerboseReporter(options), run())
    const plain = stripAnsi(out.text)
    expect(plain).toContain('build      │ ok')
    expect(plain).toContain('unit-tests │ boom')
    expect(plain).toContain('[3/3]')
    expect(plain).toContain('Verdict')
    expect(out.text).not.toMatch(CURSOR)
  })
})

const flakyRun = () => {
  const flaky = result('e2e', 'passed', { output: 'ok\n' })
  if (flaky.evidence) Object.assign(flaky.evidence, { attempts: 3, flaky: true })
  return outcome([result('build', 'passed', { output: 'ok\n' }), flaky])
}

const printed = async (name: string) => {
  let text = ''
  const io: CliIO = { stdout: (t) => void (text += t), stderr: () => {}, env: {}, cwd: '/project', isTTY: false }
  await replay(combineReporters(await createReporters([name], io, false)), flakyRun())
  return text
}

describe('a pass that took retries', () => {
  test('default: the line and the summary say it is flaky, and which attempt passed', async () => {
    const { options, out } = recorder({ isTTY: false })
    await replay(createDefaultReporter(options), flakyRun())
    expect(out.text).toMatch(/^✓ e2e\s+1\.23s passed \(flaky: passed on attempt 3\) \[2\/2\]$/m)
    expect(out.text).toMatch(/^✓ build\s+1\.23s passed \[1\/2\]$/m)
    expect(out.text).toMatch(/^ Flaky {3}e2e passed only on a retry$/m)
    expect(out.text).toContain('Verdict APPROVED')
  })

  test('agent and junit say so too', async () => {
    expect(await printed('agent')).toContain('Flaky (passed only on a retry): e2e, attempt 3')
    expect(await printed('junit')).toMatch(/<testcase classname="[^"]*" name="e2e" time="1.234">\n {6}<system-out>flaky: passed on attempt 3<\/system-out>/)
  })
})
