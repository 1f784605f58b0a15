// The reporter interface (declared in types.ts, where the runner and the config meet it too) and how several
// reporters are combined. Reporters print; the engine never does.
import type { Reporter } from '../types.js'

export type { Reporter, RunOutcome } from '../types.js'

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
