// Reporters from the config: objects with hooks, or modules whose default export is one (or a factory).
import { createRequire } from 'node:module'
import { isAbsolute, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { VerifyUsageError } from '../errors.js'
import type { ReporterOptions } from './options.js'
import type { Reporter } from './types.js'

export const HOOKS = ['onRunStart', 'onCheckStart', 'onCheckOutput', 'onCheckEnd', 'onRunEnd'] as const

/** A factory a reporter module may export: it gets the options of `[path, options]` and the run's context. */
export type CustomReporterFactory = (options: Record<string, unknown>, context: ReporterOptions) => Reporter | Promise<Reporter>

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).join(', ') || '(none)'}`
  return `a ${typeof value}`
}

/** Checks that `value` is a reporter: an object whose hooks, if present, are functions, with at least one. */
export function asReporter(value: unknown, what: string): Reporter {
  const hooks = value !== null && typeof value === 'object' ? HOOKS.filter((hook) => hook in value) : []
  const bad = hooks.filter((hook) => typeof (value as Record<string, unknown>)[hook] !== 'function')
  if (hooks.length === 0 || bad.length > 0) {
    const why = bad.length ? `${bad.join(', ')} must be functions` : `got ${describeValue(value)}`
    throw new VerifyUsageError(`${what} is not a reporter: expected an object with one or more of the hooks ${HOOKS.join(', ')}; ${why}.`)
  }
  return value as Reporter
}

/** Where a module specifier points: a path relative to the config's folder, an absolute path, or a package. */
function resolveModule(specifier: string, rootDir: string): string {
  if (specifier.startsWith('.') || isAbsolute(specifier)) return pathToFileURL(resolve(rootDir, specifier)).href
  return pathToFileURL(createRequire(join(rootDir, 'package.json')).resolve(specifier)).href
}

/** Imports a reporter module and builds its reporter. Any failure is a usage error that names the module. */
export async function loadReporterModule(
  specifier: string,
  rootDir: string,
  userOptions: Record<string, unknown>,
  context: ReporterOptions,
): Promise<Reporter> {
  const what = `The reporter module "${specifier}"`
  let url: string
  let module: { default?: unknown }
  try {
    url = resolveModule(specifier, rootDir)
    module = (await import(url)) as { default?: unknown }
  } catch (error) {
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error)
    throw new VerifyUsageError(
      `Could not load the reporter "${specifier}" (looked in ${rootDir}): ${message}. A reporter is a built-in name or a JavaScript module path relative to the config's folder.`,
    )
  }
  const exported = module.default
  if (typeof exported === 'function') {
    let built: unknown
    try {
      built = await (exported as CustomReporterFactory)(userOptions, context)
    } catch (error) {
      throw new VerifyUsageError(`${what} failed to create its reporter: ${error instanceof Error ? error.message : String(error)}`)
    }
    return asReporter(built, `What the factory exported by "${specifier}" returned`)
  }
  if (exported === undefined) throw new VerifyUsageError(`${what} has no default export: export a reporter object or a factory \`(options) => reporter\`.`)
  return asReporter(exported, `The default export of "${specifier}"`)
}
