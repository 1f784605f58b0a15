// The `json` reporter: the evidence file itself, to stdout or to a file.
import type { ReporterOptions } from './options.js'
import { writeReport } from './output.js'
import type { Reporter } from './types.js'

export function createJsonReporter(options: ReporterOptions): Reporter {
  return {
    onRunEnd(outcome) {
      writeReport(options, `${JSON.stringify(outcome.file, null, 2)}\n`)
    },
  }
}
