// How check statuses and verdicts read in every reporter: the words, the glyphs, the emoji and the colours.
import type pc from 'picocolors'
import { formatDuration } from '../duration.js'
import type { CheckResult, CheckStatus, Verdict } from '../types.js'

type Colors = ReturnType<typeof pc.createColors>

import { FAILING as FAILING_STATUSES } from '../status.js'

export { FAILING } from '../status.js'

/** The status in words: `timed out`, `pending manual`, …. */
export function statusText(status: CheckStatus): string {
  return status.replaceAll('_', ' ')
}

const GLYPH: Record<CheckStatus, string> = {
  passed: '✓',
  failed: '✗',
  error: '✗',
  timed_out: '⏱',
  pending_manual: '?',
  stale: '?',
  skipped: '↓',
  cancelled: '↓',
  pending: '·',
  running: '·',
}

const TONE: Record<CheckStatus, 'green' | 'red' | 'yellow' | 'dim'> = {
  passed: 'green',
  failed: 'red',
  error: 'red',
  timed_out: 'red',
  pending_manual: 'yellow',
  stale: 'yellow',
  skipped: 'dim',
  cancelled: 'dim',
  pending: 'dim',
  running: 'dim',
}

/** One character for the status, for plain text. */
export function statusGlyph(status: CheckStatus): string {
  return GLYPH[status]
}

/** The status's glyph in its colour, for a terminal. */
export function statusIcon(status: CheckStatus, colors: Colors): string {
  return colors[TONE[status]](GLYPH[status])
}

/** The status as an emoji, for markdown. */
export const STATUS_EMOJI: Record<CheckStatus, string> = {
  passed: '✅',
  failed: '❌',
  timed_out: '⏱️',
  error: '💥',
  cancelled: '⏹️',
  skipped: '⏭️',
  pending_manual: '✋',
  stale: '🕰️',
  pending: '⏳',
  running: '⏳',
}

/** The verdict as an emoji, for markdown. */
export const VERDICT_EMOJI: Record<Verdict, string> = { approved: '✅', rejected: '❌', incomplete: '⚠️' }

const VERDICT_TONE: Record<Verdict, 'green' | 'red' | 'yellow'> = { approved: 'green', rejected: 'red', incomplete: 'yellow' }

/** The verdict in capitals, bold, green when approved, red when rejected, yellow when incomplete. */
export function verdictLine(verdict: Verdict, colors: Colors): string {
  return colors.bold(colors[VERDICT_TONE[verdict]](verdict.toUpperCase()))
}

/** Evidence carried over from an earlier run (`--reuse`): `reused (recorded 3m ago)`; null for anything that ran now. */
export function reusedNote(result: Pick<CheckResult, 'evidence' | 'status'>, now = Date.now()): string | null {
  if (!result.evidence?.reused || FAILING_STATUSES.has(result.status)) return null
  const at = Date.parse(result.evidence.timestamp)
  return Number.isNaN(at) ? 'reused' : `reused (recorded ${formatDuration(Math.max(0, now - at))} ago)`
}

/**
 * A failure of an earlier run carried over for a check this run left out (`--only`, `--skip`): `failed (recorded 3m
 * ago, not run now)`; null for anything else.
 */
export function carriedFailureNote(result: Pick<CheckResult, 'evidence' | 'status'>, now = Date.now()): string | null {
  const when = carriedWhen(result, now)
  return when ? `${statusText(result.status)} (${when})` : null
}

/** When a carried-over failure was recorded: `recorded 3m ago, not run now`; null for anything else. */
export function carriedWhen(result: Pick<CheckResult, 'evidence' | 'status'>, now = Date.now()): string | null {
  if (!result.evidence?.reused || !FAILING_STATUSES.has(result.status)) return null
  const at = Date.parse(result.evidence.timestamp)
  return `${Number.isNaN(at) ? 'recorded earlier' : `recorded ${formatDuration(Math.max(0, now - at))} ago`}, not run now`
}

/** A pass that took retries (`retries` in the config): `flaky: passed on attempt 2`; null for anything else. */
export function flakyNote(result: Pick<CheckResult, 'evidence' | 'status'>): string | null {
  if (result.status !== 'passed' || !result.evidence?.flaky) return null
  return `flaky: passed on attempt ${result.evidence.attempts ?? 2}`
}

/** How many of the results ran in this run and how many were reused: `1 ran, 3 reused`; null when none was reused. */
export function ranAndReused(results: readonly Pick<CheckResult, 'evidence' | 'status'>[]): string | null {
  const reused = results.filter((r) => r.evidence?.reused && !FAILING_STATUSES.has(r.status)).length
  if (reused === 0) return null
  const ran = results.filter((r) => r.evidence && !r.evidence.reused && r.evidence.command !== null).length
  return `${ran} ran, ${reused} reused`
}
