// The terminal reporters: `default` (a live task list only where a person watches a terminal) and `verbose`
// (every output line prefixed with its check's id).
import { describe, expect, test, vi } from 'vitest'
import { stripAnsi } from '../../src/runner/ansi.js'
import { createDefaultReporter } from '../../src/reporters/default.js'
import { createVerboseReporter } from '../../src/reporters/verbose.js'
import type { ResolvedCheck } from '../../src/types.js'
import { outcome, recorder, replay, result } from './helpers.js'

const ESC = '\x1b'
// Cursor up / erase / hide / show: what a live redraw uses.
const CURSOR = new RegExp(`${ESC}\\[(?:\\d*[ABCDGHJK]|\\?25[lh])`)
const ANY_ESCAPE = new RegExp(ESC)
const SGR = new RegExp(`${ESC}\\[[\\d;]*m`)

const run = () => outcome([result('build', 'passed', { output: 'ok\n' }), result('unit-tests', 'failed', { output: 'boom\n', reason: 'exit code 1' }), result('review', 'pending_manual')])

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
