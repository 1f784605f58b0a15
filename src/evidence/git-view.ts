// A git directory of verify's own through which the working tree is read: git then takes none of the repository's
// settings but those it needs to read the repository at all (its format, a partial clone's promisor remote, shared
// permissions, its own excludes file), and every attribute that converts content is unset above all of the
// repository's .gitattributes. Objects are read from and written to the repository's own object store (a temporary
// one beside it when that cannot be written: a read-only checkout); the ignore rules of .git/info/exclude still apply.
import { constants } from 'node:fs'
import { access, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import * as path from 'node:path'
import type { IndexEntry } from './git-index.js'

/** $GIT_DIR/info/attributes comes before every .gitattributes: for every path, no attribute that changes its bytes. */
const RAW_ATTRIBUTES = '* -text -eol -crlf -ident -filter -working-tree-encoding\n'

/** A `.gitattributes` line that converts content. */
const CONVERTING = /(?:^|\s)(?:-|!)?(?:text|eol|crlf|ident|filter|working-tree-encoding)(?:[=\s]|$)/m

export interface GitView {
  /** Absolute top of the work tree read. */
  top: string
  /** The repository's object store (`git rev-parse --git-path objects`). */
  objects: string
  /** Its .git/info/exclude. */
  exclude: string
  /** 32 for a SHA-256 repository. */
  objectBytes: number
  /** The repository's settings it is read with (repoSettings). */
  settings: readonly [string, string][]
}

export interface GitViewEnv extends Record<string, string> {
  GIT_DIR: string
  GIT_WORK_TREE: string
  GIT_OBJECT_DIRECTORY: string
  GIT_INDEX_FILE: string
}

/** Makes the git directory in `dir` and returns the environment that points git at it, the work tree and `index`. */
export async function gitView(view: GitView, dir: string, index: string): Promise<GitViewEnv> {
  const gitDir = path.join(dir, 'git')
  await mkdir(path.join(gitDir, 'refs'), { recursive: true })
  await mkdir(path.join(gitDir, 'info'))
  const writable = await access(view.objects, constants.W_OK).then(
    () => true,
    () => false,
  )
  const objects = writable ? view.objects : path.join(dir, 'objects')
  if (!writable) await mkdir(objects)
  await Promise.all([
    writeFile(path.join(gitDir, 'HEAD'), 'ref: refs/heads/verify\n'),
    writeFile(path.join(gitDir, 'config'), config(view)),
    writeFile(path.join(gitDir, 'info', 'attributes'), RAW_ATTRIBUTES),
    copyFile(view.exclude, path.join(gitDir, 'info', 'exclude')).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    }),
  ])
  return {
    GIT_DIR: gitDir,
    GIT_WORK_TREE: view.top,
    GIT_OBJECT_DIRECTORY: objects,
    GIT_INDEX_FILE: index,
    // Read-only: what git writes goes to the temporary store, what it reads comes from the repository's as well.
    ...(writable ? {} : { GIT_ALTERNATE_OBJECT_DIRECTORIES: view.objects }),
  }
}

function config(view: GitView): string {
  const kept = view.settings.filter(([key]) => !/^core\.(?:autocrlf|eol|attributesfile)$/.test(key))
  const sha256 = view.objectBytes === 32
  const extensions = sha256 || kept.some(([key]) => key.startsWith('extensions.'))
  const lines = [`[core]\n\trepositoryformatversion = ${extensions ? 1 : 0}\n`]
  if (sha256 && !kept.some(([key]) => key === 'extensions.objectformat')) lines.push('[extensions]\n\tobjectformat = sha256\n')
  for (const [key, value] of kept) {
    const first = key.indexOf('.')
    const last = key.lastIndexOf('.')
    const section = key.slice(0, first)
    const sub = first === last ? '' : ` "${key.slice(first + 1, last).replace(/["\\]/g, '\\$&')}"`
    lines.push(`[${section}${sub}]\n\t${key.slice(last + 1)} = "${value.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\n')}"\n`)
  }
  return lines.join('')
}

/**
 * Does git convert some files' bytes in this repository (`core.autocrlf`, `core.eol`, an attributes file, or a
 * `.gitattributes` that sets text, eol, ident, a filter or an encoding)? Then the index may hold converted blobs.
 */
export async function converts(
  view: Pick<GitView, 'top' | 'exclude'>,
  settings: readonly [string, string][],
  entries: readonly IndexEntry[],
): Promise<boolean> {
  if (settings.some(([key, value]) => (key === 'core.autocrlf' && value !== 'false') || key === 'core.eol' || key === 'core.attributesfile')) return true
  const files = [path.join(path.dirname(view.exclude), 'attributes'), path.join(view.top, '.gitattributes')]
  for (const entry of entries) if (entry.path === '.gitattributes' || entry.path.endsWith('/.gitattributes')) files.push(path.join(view.top, entry.path))
  for (const file of new Set(files)) {
    const text = await readFile(file, 'utf8').catch(() => '')
    if (CONVERTING.test(text)) return true
  }
  return false
}
