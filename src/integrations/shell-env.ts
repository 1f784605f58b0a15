// The environment the user started the test runner with. Vitest sets TEST, VITEST, NODE_ENV, VITEST_*, MODE, DEV,
// PROD, SSR, BASE_URL and FORCE_TTY in its own process and its workers, Jest NODE_ENV and JEST_WORKER_ID; checks
// must not inherit them, nor the config be loaded under them, unless the shell had them.
import { readFileSync } from 'node:fs'
import { isMainThread } from 'node:worker_threads'

const SET_BY_RUNNERS = new Set(['TEST', 'VITEST', 'NODE_ENV', 'MODE', 'DEV', 'PROD', 'SSR', 'BASE_URL', 'FORCE_TTY', 'JEST_WORKER_ID'])

function setByRunner(name: string): boolean {
  return SET_BY_RUNNERS.has(name) || name.startsWith('VITEST_')
}

/** A process's environment as it was when it started (Linux: /proc/<pid>/environ); null where unreadable. */
function initialEnvironment(pid: number): Record<string, string> | null {
  try {
    const text = readFileSync(`/proc/${pid}/environ`, 'utf8')
    const env: Record<string, string> = {}
    for (const entry of text.split('\0')) {
      const at = entry.indexOf('=')
      if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1)
    }
    return env
  } catch {
    return null
  }
}

/**
 * `env` with what the test runner added taken back out: each variable it sets gets the value the shell gave the
 * runner's main process, or is removed when the shell had none. Where the starting environment cannot be read (not
 * Linux), the variables are removed, except a NODE_ENV other than the runners' "test".
 */
export function shellEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  // The runner's main process, seen from a Vitest fork worker (a child process), a thread worker or itself.
  const main = isMainThread && env.VITEST_POOL_ID !== undefined ? process.ppid : process.pid
  const initial = initialEnvironment(main)
  const out: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(env)) {
    if (!setByRunner(name)) out[name] = value
    else if (initial) {
      if (initial[name] !== undefined) out[name] = initial[name]
    } else if (name === 'NODE_ENV' && value !== 'test') out[name] = value
  }
  return out
}
