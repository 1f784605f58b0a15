// Where a report goes: the file named with `name=<file>`, else the run's output.
import { writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { makeFolderSync } from '../evidence/location.js'
import type { ReporterOptions } from './options.js'

export function writeReport(options: ReporterOptions, text: string): void {
  if (!options.file) return options.write(text)
  makeFolderSync(dirname(options.file))
  writeFileSync(options.file, text)
}
