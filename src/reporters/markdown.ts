// The `markdown` reporter: the same summary as the GitHub step summary, to a file or stdout (e.g. a PR comment).
import { renderMarkdownSummary } from './markdown-summary.js'
import type { ReporterOptions } from './options.js'
import { writeReport } from './output.js'
import type { Reporter } from './types.js'

/** GitHub refuses comments over 65,536 characters; a UTF-8 byte never holds more than one. */
export const MARKDOWN_MAX_BYTES = 64 * 1024

export function createMarkdownReporter(options: ReporterOptions): Reporter {
  return {
    onRunEnd(outcome) {
      // On stdout it may land in a CI log: no line of the checks' output may read as a workflow command there.
      writeReport(options, renderMarkdownSummary(outcome, { maxBytes: MARKDOWN_MAX_BYTES, cwd: options.cwd, guardCommands: !options.file }))
    },
  }
}
