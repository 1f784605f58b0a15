import { describe, expect, it } from 'vitest'
import { formatDuration, parseDuration, parseDurationSetting } from '../src/duration.js'

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['5m', 300_000],
    ['1.5m', 90_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['5 m', 300_000],
    [' 30s ', 30_000],
    [3000, 3000],
    [0, 0],
    ['3000', 3000],
    ['0', 0],
  ])('reads %j as %d ms', (input, expected) => {
    expect(parseDuration(input)).toBe(expected)
  })

  it('rounds fractional milliseconds to whole ones', () => {
    expect(parseDuration(1.4)).toBe(1)
    expect(parseDuration('0.5s')).toBe(500)
    expect(parseDuration('1.0001s')).toBe(1000)
  })

  it.each([
    ['soon'],
    [-1],
    ['-1s'],
    ['5 minutes'],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [''],
    ['ms'],
    ['5mm'],
    ['1e3'],
    ['10 s and more'],
    [null],
    [undefined],
    [{}],
    [['5m']],
    [true],
  ])('rejects %j (undefined)', (input) => {
    expect(parseDuration(input)).toBeUndefined()
  })
})

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [850, '850ms'],
    [999, '999ms'],
    [12_500, '12.5s'],
    [60_000, '1m 00s'],
    [185_000, '3m 05s'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })

  it('shows seconds under a minute with a decimal', () => {
    expect(formatDuration(2400)).toMatch(/^2\.40?s$/)
  })

  it('round-trips with parseDuration for whole minutes', () => {
    expect(formatDuration(parseDuration('5m') as number)).toBe('5m 00s')
  })
})

describe('parseDurationSetting: the one rule of every duration setting', () => {
  it.each([0, '0', '0s', '0ms', 0.4, -1, '-1s', '25d', 2_147_483_648, 'soon'])('refuses %j', (value) => {
    expect(parseDurationSetting(value)).toBeUndefined()
  })

  it.each([
    [1, 1],
    ['1ms', 1],
    ['24d', 2_073_600_000],
    [2_147_483_647, 2_147_483_647],
    ['1.5m', 90_000],
  ])('accepts %j as %d ms', (value, ms) => {
    expect(parseDurationSetting(value)).toBe(ms)
  })
})
