// Built-in reporters by name. `--reporter <name>[=<file>]` and the config's `reporters` pick from this map.
import { createAgentReporter } from './agent.js'
import { createDefaultReporter } from './default.js'
import { createGitHubActionsReporter } from './github-actions.js'
import { createJsonReporter } from './json.js'
import { createJUnitReporter } from './junit.js'
import { createMarkdownReporter } from './markdown.js'
import type { ReporterOptions } from './options.js'
import type { Reporter } from './types.js'
import { createVerboseReporter } from './verbose.js'

export type ReporterFactory = (options: ReporterOptions) => Reporter

export const REPORTERS = {
  default: createDefaultReporter,
  verbose: createVerboseReporter,
  json: createJsonReporter,
  junit: createJUnitReporter,
  markdown: createMarkdownReporter,
  'github-actions': createGitHubActionsReporter,
  agent: createAgentReporter,
} satisfies Record<string, ReporterFactory>

export type ReporterName = keyof typeof REPORTERS

export function isReporterName(name: string): name is ReporterName {
  return Object.hasOwn(REPORTERS, name)
}

export type { Reporter, RunOutcome } from './types.js'
export { combineReporters } from './types.js'
export type { ReporterOptions } from './options.js'
export type { CustomReporterFactory } from './custom.js'
