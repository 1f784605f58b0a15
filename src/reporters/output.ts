// Where a report goes: the file named with `name=<file>`, else the run's output.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { ReporterOptions } from './options.js'

export function writeReport(options: ReporterOptions, text: string): void {
  if (!options.file) return options.write(text)
  mkdirSync(dirname(options.file), { recursive: true })
  writeFileSync(options.file, text)
}
