// The `json` reporter: the evidence file itself, to stdout or to a file.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { ReporterOptions } from './options.js'
import type { Reporter } from './types.js'

export function createJsonReporter(options: ReporterOptions): Reporter {
  return {
    onRunEnd(outcome) {
      const text = `${JSON.stringify(outcome.file, null, 2)}\n`
      if (!options.file) return options.write(text)
      mkdirSync(dirname(options.file), { recursive: true })
      writeFileSync(options.file, text)
    },
  }
}
