// Built-in reporters by name. `--reporter <name>[=<file>]` picks from this map.
import { createDefaultReporter } from './default.js'
import { createJsonReporter } from './json.js'
import type { ReporterOptions } from './options.js'
import type { Reporter } from './types.js'

export type ReporterFactory = (options: ReporterOptions) => Reporter

export const REPORTERS = {
  default: createDefaultReporter,
  json: createJsonReporter,
} satisfies Record<string, ReporterFactory>

export type ReporterName = keyof typeof REPORTERS

export function isReporterName(name: string): name is ReporterName {
  return Object.hasOwn(REPORTERS, name)
}

export type { Reporter, RunOutcome } from './types.js'
export { combineReporters } from './types.js'
export type { ReporterOptions } from './options.js'
