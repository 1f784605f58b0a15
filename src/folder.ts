// Creating folders safely on any file system.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/** `mkdir -p`, level by level: a recursive mkdir spins for ever on some special file systems (/proc). */
export function makeFolder(dir: string): void {
  if (existsSync(dir)) return
  const parent = dirname(dir)
  if (parent !== dir) makeFolder(parent)
  try {
    mkdirSync(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}
