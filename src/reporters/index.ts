// Built-in reporters by name. `--reporter <name>[=<file>]` and the config's `reporters` pick from this map.
import type { ReporterOptions } from './options.js'
import type { Reporter } from './types.js'

export type ReporterFactory = (options: ReporterOptions) => Reporter

// Each loaded when a run uses it: most runs use one or two, and loading all seven costs every command.
export const REPORTERS = {
  default: () => import('./default.js').then((m) => m.createDefaultReporter),
  verbose: () => import('./verbose.js').then((m) => m.createVerboseReporter),
  json: () => import('./json.js').then((m) => m.createJsonReporter),
  junit: () => import('./junit.js').then((m) => m.createJUnitReporter),
  markdown: () => import('./markdown.js').then((m) => m.createMarkdownReporter),
  'github-actions': () => import('./github-actions.js').then((m) => m.createGitHubActionsReporter),
  agent: () => import('./agent.js').then((m) => m.createAgentReporter),
} satisfies Record<string, () => Promise<ReporterFactory>>

export type ReporterName = keyof typeof REPORTERS

export function isReporterName(name: string): name is ReporterName {
  return Object.hasOwn(REPORTERS, name)
}

export type { Reporter, RunOutcome } from './types.js'
export { combineReporters } from './types.js'
export type { ReporterOptions } from './options.js'
export type { CustomReporterFactory } from './custom.js'
