// Live output is a view, not a record: when the reader (a terminal, a pipe, a log collector) cannot keep up, what
// it cannot take is left out and said so, instead of piling up in verify's memory. The evidence and the logs keep
// everything; documents and summaries (every other hook) always go through whole.
import type { ResolvedCheck } from '../types.js'
import type { Reporter } from './types.js'

export interface LiveBudgetOptions {
  /** Bytes written but not yet taken by the reader. */
  backlog: () => number
  /** Where the check's full output is, as the note shows it. */
  logFile: (checkId: string) => string
  /** Above this backlog live output is left out (default 256 KiB: what waits in the queue also waits in the heap)… */
  highWater?: number
  /** …until it has fallen below this (default 64 KiB). */
  lowWater?: number
}

/** The reporter with its live output bounded by what the reader takes; every other hook is passed through. */
export function boundLiveOutput<R extends Reporter>(reporter: R, options: LiveBudgetOptions): R {
  const high = options.highWater ?? 256 * 1024
  const low = options.lowWater ?? 64 * 1024
  const dropped = new Map<string, { check: ResolvedCheck; bytes: number; stream: 'stdout' | 'stderr' }>()
  let dropping = false
  const note = (id: string): void => {
    const entry = dropped.get(id)
    if (!entry) return
    dropped.delete(id)
    const text = `[… ${formatBytes(entry.bytes)} of live output not shown: the terminal could not keep up; full log in ${options.logFile(id)} …]\n`
    reporter.onCheckOutput?.(entry.check, text, entry.stream)
  }
  return {
    ...reporter,
    onCheckOutput(check, chunk, stream) {
      const backlog = options.backlog()
      if (backlog > (dropping ? low : high)) {
        dropping = true
        const entry = dropped.get(check.id) ?? { check, bytes: 0, stream }
        entry.bytes += Buffer.byteLength(chunk, 'utf8')
        entry.stream = stream
        dropped.set(check.id, entry)
        return
      }
      dropping = false
      for (const id of dropped.keys()) note(id)
      reporter.onCheckOutput?.(check, chunk, stream)
    },
    onCheckEnd(check, result) {
      // The note is small and belongs before the check's end line, whatever the backlog.
      note(check.id)
      reporter.onCheckEnd?.(check, result)
    },
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`
}
