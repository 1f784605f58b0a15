// A git directory of verify's own through which the working tree is read: git then takes none of the repository's
// settings (its filters, line-ending and case rules, a `core.worktree` that points elsewhere) and every attribute that
// converts content is unset above all of the repository's .gitattributes. Objects are read from and written to the
// repository's own object store; the ignore rules of .git/info/exclude still apply.
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import * as path from 'node:path'

/** $GIT_DIR/info/attributes comes before every .gitattributes: for every path, no attribute that changes its bytes. */
const RAW_ATTRIBUTES = '* -text -eol -crlf -ident -filter -working-tree-encoding\n'

export interface GitView {
  /** Absolute top of the work tree read. */
  top: string
  /** The repository's object store (`git rev-parse --git-path objects`). */
  objects: string
  /** Its .git/info/exclude. */
  exclude: string
  /** 32 for a SHA-256 repository. */
  objectBytes: number
}

/** Makes the git directory in `dir` and returns the environment that points git at it, the work tree and `index`. */
export interface GitViewEnv extends Record<string, string> {
  GIT_DIR: string
  GIT_WORK_TREE: string
  GIT_OBJECT_DIRECTORY: string
  GIT_INDEX_FILE: string
}

export async function gitView(view: GitView, dir: string, index: string): Promise<GitViewEnv> {
  const gitDir = path.join(dir, 'git')
  await mkdir(path.join(gitDir, 'refs'), { recursive: true })
  await mkdir(path.join(gitDir, 'info'))
  const format =
    view.objectBytes === 32 ? '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n' : '[core]\n\trepositoryformatversion = 0\n'
  await Promise.all([
    writeFile(path.join(gitDir, 'HEAD'), 'ref: refs/heads/verify\n'),
    writeFile(path.join(gitDir, 'config'), format),
    writeFile(path.join(gitDir, 'info', 'attributes'), RAW_ATTRIBUTES),
    copyFile(view.exclude, path.join(gitDir, 'info', 'exclude')).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    }),
  ])
  return { GIT_DIR: gitDir, GIT_WORK_TREE: view.top, GIT_OBJECT_DIRECTORY: view.objects, GIT_INDEX_FILE: index }
}
