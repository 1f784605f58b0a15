// `expect.output` / `notOutput` patterns are judged against the whole output (docs/configuration.md), though verify
// keeps only a window of it as it streams: an anchor never matches where a window starts or ends inside a line.
import { describe, expect, it } from 'vitest'
import { OutputCapture } from '../../src/runner/capture.js'

async function seen(pattern: RegExp | string, chunks: string[]): Promise<boolean> {
  const capture = new OutputCapture({ watch: [pattern] })
  for (const chunk of chunks) capture.write(Buffer.from(chunk), 'stdout')
  await capture.finish()
  return capture.seen()[0] as boolean
}

const LONG = 'B'.repeat(4092)

describe('watched patterns over the whole output', () => {
  it.each([
    ['`^` with m: a line that only ends like the pattern, cut by the window', /^ok$/m, ['not ok\n', `${LONG}\n`, 'done\n']],
    ['`^` with m: the same in one chunk', /^ok$/m, [`not ok\n${LONG}\n`, 'done\n']],
    ['`$` without m: the end of a chunk is not the end of the output', /ok$/, ['all ok', ' until now\n']],
    ['`$` with m: the end of a chunk is not the end of a line', /ok$/m, ['all ok', ' until now\n']],
    ['`^` without m: the start of a later window is not the start of the output', /^B/, ['start\n', LONG, LONG, 'end\n']],
    ['a character after the end of the output', /PASS./, ['tests: PASS']],
    ['a character after the end of a chunk', /PASS./, ['tests: PASS', '']],
    ['a negated class after the last word', /error[^s]/, ['build finished with error']],
  ])('no match: %s', async (_what, pattern, chunks) => {
    expect(await seen(pattern, chunks)).toBe(false)
  })

  it.each([
    ['`^…$` with m, a line split across chunks', /^all ok$/m, ['x\nall', ' ok\ny\n']],
    ['`^…$` with m, after more than a window of output', /^ok$/m, [`${LONG}\n`, `${LONG}\n`, 'ok\n', 'more\n']],
    ['`$` without m, at the very end of the output', /ok$/, ['first\n', 'all ok']],
    ['`^` without m, at the very start', /^start/, ['start\n', LONG, 'end\n']],
    ['a string across chunks', 'tests passed', ['12 tests pa', 'ssed\n']],
    ['a character after a word, in the next chunk', /PASS./, ['tests: PASS', '!\n']],
    ['a pattern inside a line longer than the window', /needle/, ['x'.repeat(40_000), 'needle', 'y'.repeat(40_000)]],
    ['`^` without m, a first line longer than the overlap, with no newline', /^start/, [`start ${'x'.repeat(5000)}`]],
    ['`^` with m, the same in two chunks', /^error/m, [`error ${'x'.repeat(5000)}`, 'y'.repeat(100)]],
  ])('a match: %s', async (_what, pattern, chunks) => {
    expect(await seen(pattern, chunks)).toBe(true)
  })
})

const masked = async (watch: RegExp | string, text: string) => {
  const capture = new OutputCapture({ watch: [watch], transform: (t) => t.replaceAll('FAILED', '***') })
  capture.write(Buffer.from(text), 'stdout')
  const record = await capture.finish()
  return { seen: capture.seen()[0], stored: record.text }
}

describe('watched patterns judge what the check printed, not what masking left of it', () => {
  it('a masked word is still seen, and still masked in what is kept', async () => {
    expect(await masked(/FAILED/, 'check 2 FAILED\n')).toEqual({ seen: true, stored: 'check 2 ***\n' })
  })

  it('the mask itself is not output the check printed', async () => {
    expect((await masked('***', 'check 2 FAILED\n')).seen).toBe(false)
  })
})
