// End to end: what a check printed, as the evidence and the log keep it (SPEC §4, §5) — stderr kept,
// invalid UTF-8 replaced, split characters joined, ANSI stripped, big output bounded with exact count and hash.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, noisyBytes, sandbox, sha256Hex } from '../helpers/cli.js'

afterAll(cleanup)

/** Escape introducers (ESC, C1 CSI) and BEL, which must not survive in stored text. */
const hasEscapes = (text: string) => ['\x1b', '\x9b', '\x07'].some((c) => text.includes(c))

describe('captured output', () => {
  test('stderr is kept, invalid UTF-8 becomes U+FFFD, a split character survives, ANSI escapes are stripped', async () => {
    const box = sandbox()
    const result = await box.run(['--cwd', fixture('output')])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(0)
    const log = (id: string) => readFileSync(join(box.logDir, `${id}.log`), 'utf8')

    const stderrOnly = box.check('stderr-only')
    expect(stderrOnly.status).toBe('passed')
    expect(stderrOnly.evidence?.output.text).toBe('first line on stderr\nsecond line on stderr\n')
    expect(stderrOnly.evidence?.output.bytes).toBe(43)
    expect(log('stderr-only')).toBe('first line on stderr\nsecond line on stderr\n')

    const both = box.check('both').evidence?.output.text
    expect(both).toContain('to stdout\n')
    expect(both).toContain('to stderr\n')

    const bad = box.check('bad-utf8')
    expect(bad.status).toBe('passed')
    const smile = Buffer.from('😀')
    const raw = Buffer.concat([
      Buffer.from([0x62, 0x61, 0x64, 0x3a, 0x20, 0xff, 0xfe, 0x20, 0x65, 0x6e, 0x64, 0x0a]),
      Buffer.from('split: '),
      smile,
      Buffer.from(' done\n'),
    ])
    expect(bad.evidence?.output).toEqual({ text: 'bad: \uFFFD\uFFFD end\nsplit: 😀 done\n', bytes: raw.length, truncated: false, sha256: sha256Hex(raw) })
    expect(log('bad-utf8')).toBe('bad: \uFFFD\uFFFD end\nsplit: 😀 done\n')

    const ansi = box.check('ansi')
    expect(ansi.status).toBe('passed')
    const text = ansi.evidence?.output.text ?? ''
    expect(hasEscapes(text)).toBe(false)
    expect(text).toContain('red plain bold\n')
    expect(text).toContain('titled\n')
    expect(text).toContain('cleared line\n')
    expect(text).toContain('before green after\n')
    // The byte count is of what the check printed, escapes included.
    const printed = [
      '\x1b[31mred\x1b[0m plain \x1b[1mbold\x1b[22m\n',
      '\x1b]0;window title\x07titled\n',
      '\x1b[2K\x1b[1Gcleared line\n',
      'before \x1b[3',
      '2mgreen\x1b[39m after\n',
    ]
    expect(ansi.evidence?.output.bytes).toBe(Buffer.byteLength(printed.join('')))
    const logged = log('ansi')
    expect(hasEscapes(logged)).toBe(false)
    expect(logged).toContain('before green after\n')
    expect(logged).toContain('red plain bold\n')
  })

  test('a check printing 5 MiB passes; the evidence keeps head and tail with an exact byte count and SHA-256', async () => {
    const box = sandbox()
    const total = 5 * 1024 * 1024
    const result = await box.run(['--cwd', fixture('output-size')], { timeoutMs: 30_000 })
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(0)
    const noisy = box.check('noisy')
    expect(noisy.status).toBe('passed')
    const output = noisy.evidence?.output
    if (!output) throw new Error('no output record')
    const expected = noisyBytes(total)
    expect(output.bytes).toBe(total)
    expect(output.truncated).toBe(true)
    expect(output.sha256).toBe(sha256Hex(expected))

    const marker = /\n\[… (\d+) bytes omitted …\]\n/.exec(output.text)
    expect(marker).not.toBeNull()
    const head = output.text.slice(0, marker?.index)
    const tail = output.text.slice((marker?.index ?? 0) + (marker?.[0].length ?? 0))
    const whole = expected.toString('utf8')
    expect(head.length).toBeGreaterThan(0)
    expect(tail.length).toBeGreaterThan(0)
    expect(whole.startsWith(head)).toBe(true)
    expect(whole.endsWith(tail)).toBe(true)
    // Head, omitted part and tail add up to exactly what was printed.
    expect(Buffer.byteLength(head) + Number(marker?.[1]) + Buffer.byteLength(tail)).toBe(total)
    // The evidence stays small; the log has everything (under its 50 MiB cap).
    expect(statSync(box.evidencePath).size).toBeLessThan(512 * 1024)
    expect(statSync(join(box.logDir, 'noisy.log')).size).toBe(total)
  })
})
