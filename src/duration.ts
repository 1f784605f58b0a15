// Durations in the config: milliseconds as a number, or a string such as '500ms', '10s', '5m', '1h', '1.5m'.

export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd'
export type Duration = number | `${number}${DurationUnit}` | `${number} ${DurationUnit}`

const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/

/** Parses a duration to milliseconds; undefined when it is not one. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined
  }
  if (typeof value !== 'string') return undefined
  const match = PATTERN.exec(value)
  if (!match) {
    // A bare number in a string ('3000') reads as milliseconds, as on the command line.
    return /^\s*\d+\s*$/.test(value) ? Number(value) : undefined
  }
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as DurationUnit])
}

/** The one rule for every duration setting (config and flags alike), as the words of its error message. */
export const DURATION_RULE = 'a duration from 1ms to 24d like "5m", "30s", "500ms" or milliseconds'

/**
 * Parses a duration that a setting can hold: at least 1 ms (a 0 timeout would fail every check at once)
 * and at most what a timer holds (longer ones would fire at once). Undefined when it breaks {@link DURATION_RULE}.
 */
export function parseDurationSetting(value: unknown): number | undefined {
  const ms = parseDuration(value)
  return ms !== undefined && ms >= 1 && ms <= MAX_TIMER_MS ? ms : undefined
}

/** Formats milliseconds for people: 850ms, 2.4s, 3m 05s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 59_950) return `${Number((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))}s`
  if (ms < 3_600_000) {
    const minutes = Math.floor(ms / 60_000)
    const seconds = Math.floor((ms % 60_000) / 1000)
    return `${minutes}m ${String(seconds).padStart(2, '0')}s`
  }
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.floor((ms % 3_600_000) / 60_000)
  return `${hours}h ${String(minutes).padStart(2, '0')}m`
}

/** Node's timers hold at most 2^31−1 ms (about 24.8 days); longer delays fire at once. */
export const MAX_TIMER_MS = 2_147_483_647

/** A delay that setTimeout honours: at least 1 ms, at most MAX_TIMER_MS. */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(1, Math.round(ms)), MAX_TIMER_MS)
}
