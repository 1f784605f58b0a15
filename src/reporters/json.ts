// The `json` reporter: the evidence file itself, to stdout or to a file.
import type { ReporterOptions } from './options.js'
import { writeReport } from './output.js'
import { guardJson } from './safe-text.js'
import type { Reporter } from './types.js'

export function createJsonReporter(options: ReporterOptions): Reporter {
  return {
    onRunEnd(outcome) {
      const json = `${JSON.stringify(outcome.file, null, 2)}\n`
      // On stdout it may land in a CI log: the same JSON, with nothing the runner could take for a command.
      writeReport(options, options.file ? json : guardJson(json))
    },
  }
}
