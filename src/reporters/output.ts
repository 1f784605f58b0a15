// Where a report goes: the file named with `name=<file>`, else the run's output.
import { writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { isStreamPath, makeFolderSync } from '../evidence/location.js'
import type { ReporterOptions } from './options.js'

export function writeReport(options: ReporterOptions, text: string): void {
  if (!options.file) return options.write(text)
  // `junit=/dev/stdout` with standard output redirected to a log: appended to it, never truncating what it held.
  if (isStreamPath(options.file)) return writeFileSync(options.file, text, { flag: 'a' })
  makeFolderSync(dirname(options.file))
  writeFileSync(options.file, text)
}
