/// <reference types="vitest/config" />
// `verifyPlugin()`: adds the verify reporter through Vitest's `configureVitest` hook, next to whatever reporters the
// config or the command line chose (`--reporter` replaces the config's list; this does not).
import type { Vite, VitestPluginContext } from 'vitest/node'
import VerifyReporter, { VERIFY_REPORTER, type VerifyReporterOptions } from './reporter.js'

function isVerifyReporter(entry: unknown): boolean {
  if (Array.isArray(entry)) return typeof entry[0] === 'string' && entry[0].endsWith('verify-protocol/vitest/reporter')
  return typeof entry === 'object' && entry !== null && VERIFY_REPORTER in entry
}

/** A Vite plugin that records the test check's evidence from every Vitest run (see docs/test-runners.md). */
export function verifyPlugin(options: VerifyReporterOptions = {}): Vite.Plugin {
  return {
    name: 'verify-protocol',
    configureVitest({ vitest }: VitestPluginContext) {
      // Called once per project: one reporter for the whole run.
      const reporters = vitest.config.reporters
      if (reporters.some(isVerifyReporter)) return
      reporters.push(new VerifyReporter(options))
    },
  }
}
