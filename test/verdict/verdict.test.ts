import { describe, expect, it } from 'vitest'
import type { CheckStatus, Verdict } from '../../src/types.js'
import { isFailing } from '../../src/status.js'
import { computeVerdict, isBlocking } from '../../src/verdict/verdict.js'

type Row = { status: CheckStatus; required: boolean }
const req = (status: CheckStatus): Row => ({ status, required: true })
const opt = (status: CheckStatus): Row => ({ status, required: false })

describe('computeVerdict (SPEC §6.2)', () => {
  const table: [string, Row[], boolean, Verdict][] = [
    ['every check passed', [req('passed'), req('passed'), opt('passed')], false, 'approved'],
    ['a required check failed', [req('passed'), req('failed')], false, 'rejected'],
    ['a required check timed out', [req('passed'), req('timed_out')], false, 'rejected'],
    ['a required check errored', [req('passed'), req('error')], false, 'rejected'],
    ['an optional check failed, no strictMode', [req('passed'), opt('failed')], false, 'approved'],
    ['an optional check timed out, no strictMode', [req('passed'), opt('timed_out')], false, 'approved'],
    ['an optional check errored, no strictMode', [req('passed'), opt('error')], false, 'approved'],
    ['an optional check failed under strictMode', [req('passed'), opt('failed')], true, 'rejected'],
    ['an optional check timed out under strictMode', [req('passed'), opt('timed_out')], true, 'rejected'],
    ['an optional check errored under strictMode', [req('passed'), opt('error')], true, 'rejected'],
    ['an optional check skipped under strictMode', [req('passed'), opt('skipped')], true, 'approved'],
    ['an optional check skipped', [req('passed'), opt('skipped')], false, 'approved'],
    ['an optional check pending manual approval', [req('passed'), opt('pending_manual')], false, 'approved'],
    ['an optional check cancelled', [req('passed'), opt('cancelled')], false, 'approved'],
    ['a required check pending manual approval', [req('passed'), req('pending_manual')], false, 'incomplete'],
    ['a required check skipped', [req('passed'), req('skipped')], false, 'incomplete'],
    ['a required check cancelled', [req('passed'), req('cancelled')], false, 'incomplete'],
    ['a required check stale', [req('passed'), req('stale')], false, 'incomplete'],
    ['a required check still pending', [req('passed'), req('pending')], false, 'incomplete'],
    ['a required check still running', [req('passed'), req('running')], false, 'incomplete'],
    ['a required failure and a pending manual check', [req('failed'), req('pending_manual')], false, 'rejected'],
    ['a required failure and a cancelled check (fail-fast)', [req('failed'), req('cancelled'), req('cancelled')], false, 'rejected'],
    ['a required timeout and skipped dependents', [req('timed_out'), req('skipped')], false, 'rejected'],
    ['nothing ran: every check skipped', [req('skipped'), opt('skipped')], false, 'incomplete'],
    ['nothing ran: only optional checks, all skipped', [opt('skipped'), opt('skipped')], false, 'incomplete'],
    ['nothing ran: every check pending manual approval', [req('pending_manual')], false, 'incomplete'],
    ['no results at all', [], false, 'incomplete'],
    ['no results at all, strictMode', [], true, 'incomplete'],
    ['only optional checks, all passed', [opt('passed'), opt('passed')], false, 'approved'],
  ]

  it.each(table)('%s → %s', (_, rows, strictMode, verdict) => {
    expect(computeVerdict(rows, { strictMode })).toBe(verdict)
  })

  it('is incomplete when the run was interrupted, whatever the results', () => {
    expect(computeVerdict([req('passed'), req('passed')], { strictMode: false, interrupted: true })).toBe('incomplete')
    expect(computeVerdict([req('failed'), req('cancelled')], { strictMode: false, interrupted: true })).toBe('incomplete')
  })

  it('does not depend on the order of the results', () => {
    const rows = [req('pending_manual'), opt('failed'), req('failed'), req('passed')]
    expect(computeVerdict(rows, { strictMode: false })).toBe('rejected')
    expect(computeVerdict(rows.toReversed(), { strictMode: false })).toBe('rejected')
  })
})

describe('isFailing', () => {
  it.each<[CheckStatus, boolean]>([
    ['failed', true],
    ['timed_out', true],
    ['error', true],
    ['passed', false],
    ['skipped', false],
    ['cancelled', false],
    ['pending_manual', false],
    ['stale', false],
  ])('%s → %s', (status, failing) => {
    expect(isFailing(status)).toBe(failing)
  })
})

describe('isBlocking: an issue, not only a warning (the summary and every reporter ask it)', () => {
  it.each<[Row, boolean, boolean]>([
    [req('passed'), false, false],
    [req('failed'), false, true],
    [req('skipped'), false, true],
    [req('pending_manual'), false, true],
    [opt('failed'), false, false],
    [opt('failed'), true, true],
    [opt('timed_out'), true, true],
    [opt('skipped'), true, false],
    [opt('stale'), true, false],
    [opt('passed'), true, false],
  ])('%j, strictMode %s → %s', (row, strictMode, blocking) => {
    expect(isBlocking(row, strictMode)).toBe(blocking)
  })

  it('agrees with the verdict: a failure that blocks rejects, one that does not leaves it approved', () => {
    for (const strictMode of [false, true]) {
      for (const row of [req('failed'), opt('failed'), opt('error')]) {
        expect(computeVerdict([req('passed'), row], { strictMode })).toBe(isBlocking(row, strictMode) ? 'rejected' : 'approved')
      }
    }
  })
})
