// Step 2 (load), helper: loading a config runs its code and its presets' code: it must neither end the process nor hang
// it (SPEC §3.1). While a config loads, process.exit is trapped, what its timers throw fails the load, and the load has
// a time limit.
import { DEFAULTS } from '../defaults.js'
import { formatDuration, parseDuration } from '../duration.js'
import { VerifyConfigError } from '../errors.js'
import { errorSummary } from './messages.js'

/** The environment variable that sets the time limit of loading the config. */
export const CONFIG_TIMEOUT_ENV = 'VERIFY_CONFIG_TIMEOUT'
/** Time limit of loading the config (every layer): generous for large presets on a busy CI machine. */
export const DEFAULT_CONFIG_TIMEOUT_MS = DEFAULTS.configTimeoutMs

/** What the trapped `process.exit` throws: code of the config must not end the process that loads it. */
export class ConfigExitError extends Error {
  constructor(readonly exitCode: unknown) {
    super(
      `it called process.exit(${exitCode === undefined ? '' : String(exitCode)}) while loading: a config or preset must export its protocol, not end the process`,
    )
    this.name = 'ConfigExitError'
  }
}

/** The load time limit from the environment, or the default. Throws VerifyConfigError when the value is not a duration. */
export function configTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const value = env[CONFIG_TIMEOUT_ENV]
  if (value === undefined || value === '') return DEFAULT_CONFIG_TIMEOUT_MS
  const ms = parseDuration(value)
  if (ms === undefined || ms <= 0) {
    throw new VerifyConfigError('E_CONFIG_INVALID', `${CONFIG_TIMEOUT_ENV} must be a duration such as "30s" or "2m" (or milliseconds), got "${value}"`)
  }
  return ms
}

interface Watcher {
  exit: ConfigExitError | null
  fail(error: unknown): void
}

const watchers = new Set<Watcher>()
type Exit = (code?: unknown) => never
let saved: { exit: typeof process.exit; reallyExit: Exit } | null = null

const internals = process as unknown as { reallyExit: Exit }

function trappedExit(code?: unknown): never {
  const error = new ConfigExitError(code)
  for (const watcher of watchers) watcher.exit ??= error
  throw error
}

// Thrown from a timer or left unhandled while a config loads: that load failed (loads cannot tell whose it was).
function onStray(error: unknown): void {
  for (const watcher of watchers) watcher.fail(error)
}

function install(): void {
  saved = { exit: process.exit, reallyExit: internals.reallyExit }
  process.exit = trappedExit
  internals.reallyExit = trappedExit
  process.on('uncaughtException', onStray)
  process.on('unhandledRejection', onStray)
}

function uninstall(): void {
  if (!saved) return
  process.exit = saved.exit
  internals.reallyExit = saved.reallyExit
  saved = null
  process.off('uncaughtException', onStray)
  process.off('unhandledRejection', onStray)
}

export interface GuardOptions {
  timeoutMs: number
  /** The file being loaded right now, as messages name it. */
  current: () => string
}

/**
 * Runs `load` with process.exit trapped and a time limit. An exit attempt (even one the config caught), an error thrown
 * from a timer, or the time limit makes it a VerifyConfigError naming the file. Library callers: while it runs, the
 * process's uncaught exceptions are taken to be the config's.
 */
export function guardLoading<T>(options: GuardOptions, load: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    const settle = (finish: () => void) => {
      if (!watchers.delete(watcher)) return
      clearTimeout(timer)
      if (watchers.size === 0) uninstall()
      finish()
    }
    const watcher: Watcher = {
      exit: null,
      fail: (error) => settle(() => reject(asConfigError(error, options.current()))),
    }
    if (watchers.size === 0) install()
    watchers.add(watcher)
    timer = setTimeout(() => {
      const limit = formatDuration(options.timeoutMs)
      watcher.fail(
        new VerifyConfigError(
          'E_CONFIG_LOAD',
          `${options.current()} did not finish loading within ${limit}: does it await something that never settles? Set ${CONFIG_TIMEOUT_ENV} (e.g. 2m) if it needs longer.`,
        ),
      )
    }, options.timeoutMs)
    Promise.resolve()
      .then(load)
      .then(
        (value) => (watcher.exit ? watcher.fail(watcher.exit) : settle(() => resolve(value))),
        // The loader's own error names the layer and its chain; a bare exit attempt is named here.
        (error: unknown) => watcher.fail(error instanceof VerifyConfigError ? error : (watcher.exit ?? error)),
      )
  })
}

function asConfigError(error: unknown, where: string): VerifyConfigError {
  if (error instanceof VerifyConfigError) return error
  return new VerifyConfigError('E_CONFIG_LOAD', `Could not load ${where}: ${errorSummary(error)}`, [], { cause: error })
}
