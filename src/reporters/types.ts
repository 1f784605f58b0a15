// The reporter interface: optional lifecycle hooks, as in Vitest. Reporters print; the engine never does.
import type { CheckResult, Checklist, EvidenceFile, ResolvedCheck, Summary } from '../types.js'

export interface RunOutcome {
  checklist: Checklist
  summary: Summary
  /** The evidence file as written. */
  file: EvidenceFile
  /** Where it was written (absolute). */
  evidencePath: string
  /** The signal that interrupted the run, if any. */
  interrupted: NodeJS.Signals | null
}

export interface Reporter {
  onRunStart?(checklist: Checklist): void | Promise<void>
  onCheckStart?(check: ResolvedCheck, result: CheckResult): void
  /** Decoded output as it arrives (ANSI kept, secrets masked). */
  onCheckOutput?(check: ResolvedCheck, chunk: string, stream: 'stdout' | 'stderr'): void
  /** The check is settled: `result.status` and `result.evidence` are final for this run. */
  onCheckEnd?(check: ResolvedCheck, result: CheckResult): void
  onRunEnd?(outcome: RunOutcome): void | Promise<void>
}

/** Fans every hook out to several reporters, in order. */
export function combineReporters(reporters: readonly Reporter[]): Required<Reporter> {
  const each =
    <K extends keyof Reporter>(hook: K) =>
    (...args: Parameters<NonNullable<Reporter[K]>>): void => {
      for (const reporter of reporters) {
        const fn = reporter[hook] as ((...a: unknown[]) => unknown) | undefined
        fn?.apply(reporter, args)
      }
    }
  const eachAsync =
    <K extends 'onRunStart' | 'onRunEnd'>(hook: K) =>
    async (arg: Parameters<NonNullable<Reporter[K]>>[0]): Promise<void> => {
      for (const reporter of reporters) {
        const fn = reporter[hook] as ((a: unknown) => unknown) | undefined
        await fn?.call(reporter, arg)
      }
    }
  return {
    onRunStart: eachAsync('onRunStart'),
    onCheckStart: each('onCheckStart'),
    onCheckOutput: each('onCheckOutput'),
    onCheckEnd: each('onCheckEnd'),
    onRunEnd: eachAsync('onRunEnd'),
  }
}
