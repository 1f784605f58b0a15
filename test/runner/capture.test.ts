import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { incompleteEscapeStart, stripAnsi } from '../../src/runner/ansi.js'
import { OutputCapture, tailLines } from '../../src/runner/capture.js'
import type { OutputStream } from '../../src/runner/capture.js'

const dirs: string[] = []
async function tempLog(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'verify-capture-'))
  dirs.push(dir)
  return join(dir, 'nested', 'logs', 'check.log')
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

function feed(capture: OutputCapture, data: Buffer, sizes: number[], stream: OutputStream = 'stdout'): void {
  let offset = 0
  for (let i = 0; offset < data.length; i++) {
    const size = sizes[i % sizes.length] ?? 1
    capture.write(data.subarray(offset, offset + size), stream)
    offset += size
  }
}

describe('stripAnsi', () => {
  it('removes CSI sequences, private parameters included', () => {
    expect(stripAnsi('\x1b[1;31mred\x1b[0m \x1b[?25lhidden\x1b[?25h \x1b[2K\x1b[1G')).toBe('red hidden ')
  })
  it('removes OSC strings ended by BEL or by ST', () => {
    expect(stripAnsi('a\x1b]0;title\x07b\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\c')).toBe('ablinkc')
  })
  it('removes single-character and nF escapes and the C1 CSI', () => {
    expect(stripAnsi('\x1b7x\x1b8\x1bMy\x1b(Bz\x9b32mw')).toBe('xyzw')
  })
  it('drops a stray ESC without eating the text after it', () => {
    expect(stripAnsi('a\x1b\nb')).toBe('a\nb')
  })
  it('leaves plain text, including other non-ASCII characters, alone', () => {
    const text = 'déjà vu € 😀 [not an escape]'
    expect(stripAnsi(text)).toBe(text)
  })
  it('finds an unterminated sequence at the end of a chunk', () => {
    expect(incompleteEscapeStart('abc\x1b[3')).toBe(3)
    expect(incompleteEscapeStart('abc\x1b')).toBe(3)
    expect(incompleteEscapeStart('ab\x1b]0;ti\x1b')).toBe(2)
    expect(incompleteEscapeStart('abc\x1b[31mdef')).toBe(-1)
  })
})

describe('OutputCapture', () => {
  it('counts and hashes multi-MiB random input exactly, whatever the chunk sizes', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17)
    const capture = new OutputCapture()
    feed(capture, data, [1, 7, 4093, 65536, 3, 1000])
    const record = await capture.finish()
    expect(record.bytes).toBe(data.length)
    expect(record.sha256).toBe(createHash('sha256').update(data).digest('hex'))
    expect(record.truncated).toBe(true)
  })

  it('hashes stdout and stderr bytes in arrival order', async () => {
    const capture = new OutputCapture()
    capture.write(Buffer.from('one\n'), 'stdout')
    capture.write(Buffer.from('two\n'), 'stderr')
    capture.write(Buffer.from('three\n'), 'stdout')
    const record = await capture.finish()
    expect(record.sha256).toBe(createHash('sha256').update('one\ntwo\nthree\n').digest('hex'))
    expect(record.text).toBe('one\ntwo\nthree\n')
  })

  it('keeps head and tail with the omitted byte count', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`).join('')
    const capture = new OutputCapture({ headBytes: 100, tailBytes: 200 })
    feed(capture, Buffer.from(lines), [37, 500, 1])
    const record = await capture.finish()
    expect(record.truncated).toBe(true)
    expect(record.bytes).toBe(lines.length)
    const omitted = lines.length - 300
    expect(record.text).toBe(`${lines.slice(0, 100)}\n[… ${omitted} bytes omitted …]\n${lines.slice(-200)}`)
  })

  it('keeps everything when the output fits, and reports no truncation', async () => {
    const capture = new OutputCapture({ headBytes: 10, tailBytes: 10 })
    capture.write(Buffer.from('0123456789abcdefghij'), 'stdout')
    const record = await capture.finish()
    expect(record).toMatchObject({ text: '0123456789abcdefghij', truncated: false, bytes: 20 })
  })

  it('never cuts head or tail inside a character', async () => {
    const capture = new OutputCapture({ headBytes: 4, tailBytes: 4 })
    capture.write(Buffer.from('€€€€€€'), 'stdout')
    const record = await capture.finish()
    expect(record.text).toBe('€\n[… 12 bytes omitted …]\n€')
    expect(record.text).not.toContain('\ufffd')
  })

  it('joins a UTF-8 character split across chunks', async () => {
    const euro = Buffer.from('€')
    const capture = new OutputCapture()
    capture.write(Buffer.concat([Buffer.from('price: '), euro.subarray(0, 1)]), 'stdout')
    capture.write(euro.subarray(1), 'stdout')
    const record = await capture.finish()
    expect(record.text).toBe('price: €')
  })

  it('keeps one decoder per stream, so interleaved partial characters survive', async () => {
    const euro = Buffer.from('€')
    const smile = Buffer.from('😀')
    const seen: string[] = []
    const capture = new OutputCapture({ onText: (text, stream) => seen.push(`${stream}:${text}`) })
    capture.write(euro.subarray(0, 1), 'stdout')
    capture.write(smile.subarray(0, 2), 'stderr')
    capture.write(euro.subarray(1), 'stdout')
    capture.write(smile.subarray(2), 'stderr')
    const record = await capture.finish()
    expect(record.text).toBe('€😀')
    expect(seen).toEqual(['stdout:€', 'stderr:😀'])
  })

  it('replaces invalid UTF-8 with U+FFFD', async () => {
    const capture = new OutputCapture()
    capture.write(Buffer.from([0x6f, 0x6b, 0xff, 0x20, 0xc3]), 'stdout')
    const record = await capture.finish()
    expect(record.text).toBe('ok\ufffd \ufffd')
    expect(record.bytes).toBe(5)
  })

  it('strips ANSI in the record and the log but keeps it in the live view', async () => {
    const logFile = await tempLog()
    let live = ''
    const capture = new OutputCapture({ logFile, onText: (text) => (live += text) })
    capture.write(Buffer.from('\x1b[32mPASS\x1b[0m ok\n\x1b[?25l'), 'stdout')
    capture.write(Buffer.from('\x1b[3'), 'stdout')
    capture.write(Buffer.from('1mFAIL\x1b[0m\n'), 'stdout')
    const record = await capture.finish()
    expect(record.text).toBe('PASS ok\nFAIL\n')
    expect(await readFile(logFile, 'utf8')).toBe('PASS ok\nFAIL\n')
    expect(live).toBe('\x1b[32mPASS\x1b[0m ok\n\x1b[?25l\x1b[31mFAIL\x1b[0m\n')
  })

  it('keeps both streams when they interleave', async () => {
    const capture = new OutputCapture()
    for (let i = 0; i < 5; i++) {
      capture.write(Buffer.from(`out ${i}\n`), 'stdout')
      capture.write(Buffer.from(`err ${i}\n`), 'stderr')
    }
    const record = await capture.finish()
    const expected = [0, 1, 2, 3, 4].map((i) => `out ${i}\nerr ${i}\n`).join('')
    expect(record.text).toBe(expected)
  })

  it('writes the full output to the log and caps it with a final note', async () => {
    const logFile = await tempLog()
    const capture = new OutputCapture({ logFile, logLimitBytes: 1000, headBytes: 10, tailBytes: 10 })
    const line = 'x'.repeat(99) + '\n'
    for (let i = 0; i < 50; i++) capture.write(Buffer.from(line), 'stdout')
    const record = await capture.finish()
    expect(record.bytes).toBe(5000)
    const log = await readFile(logFile, 'utf8')
    expect(log).toBe(`${line.repeat(10)}\n[… log truncated at 1000 bytes …]\n`)
  })

  it('logs everything under the cap, ANSI stripped', async () => {
    const logFile = await tempLog()
    const capture = new OutputCapture({ logFile, headBytes: 8, tailBytes: 8 })
    const body = Array.from({ length: 200 }, (_, i) => `\x1b[1mrow ${i}\x1b[0m\n`).join('')
    feed(capture, Buffer.from(body), [13, 2, 255])
    await capture.finish()
    expect(await readFile(logFile, 'utf8')).toBe(stripAnsi(body))
  })

  it('applies the transform to the record, the log and the live view, also across chunks', async () => {
    const logFile = await tempLog()
    let live = ''
    const capture = new OutputCapture({
      logFile,
      transform: (text) => text.replaceAll('hunter2', '***'),
      onText: (text) => (live += text),
    })
    capture.write(Buffer.from('password=hun'), 'stdout')
    capture.write(Buffer.from('ter2\nagain \x1b[1mhunter2\x1b[0m'), 'stdout')
    const record = await capture.finish()
    expect(record.text).toBe('password=***\nagain ***')
    expect(await readFile(logFile, 'utf8')).toBe('password=***\nagain ***')
    expect(live).not.toContain('hunter2')
    expect(record.sha256).toBe(createHash('sha256').update('password=hunter2\nagain \x1b[1mhunter2\x1b[0m').digest('hex'))
  })

  it('asks the producer to pause while the log lags, and keeps the log whole when it does', async () => {
    const logFile = await tempLog()
    const capture = new OutputCapture({ logFile })
    const big = Buffer.alloc(2 * 1024 * 1024, 'a')
    // The stream cannot flush synchronously, so 2 MiB queued at once is over the high-water mark.
    expect(capture.write(big, 'stdout')).toBe(false)
    await capture.drained()
    expect(capture.write(Buffer.from('b'), 'stdout')).toBe(true)
    await capture.finish()
    expect((await readFile(logFile)).length).toBe(big.length + 1)
  })

  it('drops the rest of the log, with a note, when the producer ignores the backlog', async () => {
    const logFile = await tempLog()
    const capture = new OutputCapture({ logFile })
    const block = Buffer.alloc(3 * 1024 * 1024, 'z')
    for (let i = 0; i < 5; i++) capture.write(block, 'stdout')
    const record = await capture.finish()
    expect(record.bytes).toBe(5 * block.length)
    const log = await readFile(logFile, 'utf8')
    const match = /^(z+)\n\[… log truncated at (\d+) bytes: the disk could not keep up …\]\n$/.exec(log)
    expect(match?.[1]?.length).toBe(Number(match?.[2]))
    expect(match?.[1]?.length).toBeLessThan(record.bytes)
  })

  it('reports a log it cannot write without failing the capture', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'verify-capture-'))
    dirs.push(dir)
    // A folder where the file should be makes the open fail.
    const capture = new OutputCapture({ logFile: dir })
    capture.write(Buffer.from('still captured\n'), 'stdout')
    const record = await capture.finish()
    expect(record.text).toBe('still captured\n')
    expect(capture.logError).toBeInstanceOf(Error)
  })

  it('returns the same record when finish is called twice', async () => {
    const capture = new OutputCapture()
    capture.write(Buffer.from('x'), 'stdout')
    const [a, b] = await Promise.all([capture.finish(), capture.finish()])
    expect(a).toBe(b)
  })
})

describe('tailLines', () => {
  it('returns the last n lines without the empty one after a final newline', () => {
    expect(tailLines('a\nb\r\nc\nd\n', 2)).toEqual(['c', 'd'])
    expect(tailLines('a\nb', 5)).toEqual(['a', 'b'])
    expect(tailLines('a\nb', 0)).toEqual([])
    expect(tailLines('', 3)).toEqual([])
  })
})
