// A symbolic link among a check's inputs (`inputs: ['docs/**']` matching `docs/data.txt -> ../shared/data.txt`): git
// records only the path it points to, so the link alone would bind the check to a name. It binds what it points to
// as well: the files of the project there (one file, or a folder's files), or the bytes of a file outside it.
import { readFileSync, realpathSync, statSync } from 'node:fs'
import * as path from 'node:path'
import { sha256 } from './canonical.js'

interface Entry {
  path: string
  id: string
}

const SYMLINK = '120000\0'

/** `files` with each link's id extended by what it points to; `all` lists the whole tree (paths relative to rootDir). */
export function withLinkTargets(rootDir: string, files: readonly Entry[], all: readonly Entry[]): Entry[] {
  if (!files.some((file) => file.id.startsWith(SYMLINK))) return [...files]
  const root = realpathSync(rootDir)
  return files.map((file) => (file.id.startsWith(SYMLINK) ? { path: file.path, id: `${file.id}\0${target(root, rootDir, file.path, all)}` } : file))
}

function target(root: string, rootDir: string, link: string, all: readonly Entry[]): string {
  let real: string
  try {
    real = realpathSync(path.join(rootDir, link))
  } catch {
    return 'dangling'
  }
  const inside = path.relative(root, real).split(path.sep).join('/')
  if (inside !== '..' && !inside.startsWith('../') && !path.isAbsolute(inside)) {
    const there = all.filter((entry) => entry.path === inside || entry.path.startsWith(`${inside}/`))
    return sha256(there.map((entry) => `${entry.path}\0${entry.id}`).join('\n'))
  }
  try {
    return statSync(real).isFile() ? `file\0${sha256(readFileSync(real))}` : `outside\0${real}`
  } catch {
    return 'unreadable'
  }
}
