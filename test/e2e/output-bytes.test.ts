// Awkward bytes (SPEC §4): invalid UTF-8, characters split across chunks, ANSI escapes and every control byte.
// The count and SHA-256 are of the raw bytes; the text in the evidence and the log is valid, ANSI-free UTF-8.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, sha256Hex } from '../helpers/cli.js'
import { scenario } from '../helpers/scenario.js'

afterAll(cleanup)

// The bytes fixtures/bin/control-bytes.mjs writes, in order.
function controlBytes(): Buffer {
  const c0 = Buffer.from(Array.from({ length: 32 }, (_, i) => i).filter((b) => b !== 0x1b && b !== 0x0a))
  return Buffer.concat([
    Buffer.from('c0:'),
    c0,
    Buffer.from(' del:\x7f c1:\u0085\u009b end\n'),
    Buffer.from('\x1b[31mred\x1b[0m \x1b]0;title\x07titled lone:\x1b done\n'),
    Buffer.from('split: € and 😀 done\n'),
  ])
}

const smile = Buffer.from('😀', 'utf8')
const badUtf8 = Buffer.concat([
  Buffer.from([0x62, 0x61, 0x64, 0x3a, 0x20, 0xff, 0xfe, 0x20, 0x65, 0x6e, 0x64, 0x0a]),
  Buffer.from('split: '),
  smile,
  Buffer.from(' done\n'),
])

describe('awkward bytes', { timeout: 30_000 }, () => {
  it('keeps exact counts and hashes, joins split characters, replaces invalid UTF-8 and strips escapes', async () => {
    const box = scenario()
    const result = await box.verify(['bytes'])
    expect(result.code, diagnose(result)).toBe(0)
    const raw = readFileSync(box.evidencePath, 'utf8')
    // The file itself: valid JSON whatever the checks printed, with no escape sequence left in it (ESC, C1 CSI).
    expect(() => JSON.parse(raw)).not.toThrow()
    expect(raw).not.toMatch(/[\x1b\u009b]/)

    const bad = box.check('bad-utf8').evidence?.output
    expect(bad).toMatchObject({ bytes: badUtf8.length, sha256: sha256Hex(badUtf8), text: 'bad: \uFFFD\uFFFD end\nsplit: 😀 done\n' })

    const control = box.check('control').evidence?.output
    const bytes = controlBytes()
    expect(control).toMatchObject({ bytes: bytes.length, sha256: sha256Hex(bytes) })
    expect(control?.text).toContain('split: € and 😀 done\n')
    expect(control?.text).toContain('red titled')
    expect(control?.text).not.toMatch(/[\x1b\u009b]/)
    // Other control bytes are text, kept (and escaped by JSON): the evidence hides nothing the check printed.
    expect(control?.text).toContain('c0:\x00\x01\x02')

    const ansi = box.check('ansi').evidence?.output
    expect(ansi?.text).toBe('cleared line\nred plain bold\ntitled\nbefore green after\n')
    for (const id of ['bad-utf8', 'control', 'ansi']) {
      const log = readFileSync(join(box.logDir, `${id}.log`), 'utf8')
      expect(log, id).not.toMatch(/\x1b/)
      expect(log, id).toBe(box.check(id).evidence?.output.text)
    }
  })
})
