// Reporters are plug-ins: a failing one must not take the run, its evidence or the other reporters down.
import { HOOKS } from './custom.js'
import { untrusted } from './safe-text.js'
import type { Reporter } from './types.js'

/**
 * A reporter whose failures cannot stop the run: a hook that throws (or rejects) is reported once on stderr and
 * the reporter is left out from then on, so the checks still settle and the evidence is still written.
 */
export function guardReporter(reporter: Reporter, label: string, io: { stderr: (text: string) => void }): Reporter {
  let failed = false
  const fail = (hook: string, error: unknown) => {
    if (failed) return
    failed = true
    io.stderr(
      `verify: reporter ${untrusted(label)} failed in ${hook} and is left out for the rest of the run: ${untrusted(error instanceof Error ? error.message : String(error))}\n`,
    )
  }
  const guarded: Record<string, (...args: unknown[]) => unknown> = {}
  for (const hook of HOOKS) {
    const fn = reporter[hook] as ((...args: unknown[]) => unknown) | undefined
    if (typeof fn !== 'function') continue
    guarded[hook] = (...args) => {
      if (failed) return undefined
      try {
        const result = fn.apply(reporter, args)
        return result instanceof Promise ? result.catch((error: unknown) => fail(hook, error)) : result
      } catch (error) {
        fail(hook, error)
        return undefined
      }
    }
  }
  return guarded as Reporter
}
