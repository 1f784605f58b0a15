// readIndex and withoutCaches: git's index file read (and its caches dropped) by verify itself, checked against what git says of the same index.
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { VerifyError } from '../../src/errors.js'
import { readIndex, withoutCaches } from '../../src/evidence/git-index.js'
import { fingerprint, git, gitEnv, removeTemporaryDirs, repo, temporaryDir, write } from '../helpers/git-repo.js'

afterEach(removeTemporaryDirs)

/** What `git ls-files -v -s` says of the index, in readIndex's shape. */
function listed(root: string) {
  return git(root, 'ls-files', '-v', '-s', '-z')
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [tag = '', mode = ''] = line.slice(0, line.indexOf('\t')).split(' ')
      return { path: line.slice(line.indexOf('\t') + 1), mode, assumeUnchanged: tag !== tag.toUpperCase(), skipWorktree: tag.toUpperCase() === 'S' }
    })
}

describe('readIndex', () => {
  it.each([
    ['2', 'sha1'],
    ['3', 'sha1'],
    ['4', 'sha1'],
    ['4', 'sha256'],
  ])('reads index version %s (%s) as git lists it: paths, modes and flags', async (version, format) => {
    const root = temporaryDir()
    git(root, 'init', '-q', `--object-format=${format}`, '-b', 'main')
    const files = ['a.txt', 'dir/b.txt', 'dir/sub/c.txt', 'dir/sub/ç long name é.txt', 'z.sh']
    for (const file of files) write(root, file, `${file}\n`)
    chmodSync(join(root, 'z.sh'), 0o755)
    git(root, 'add', '-A')
    git(root, 'update-index', '--assume-unchanged', 'a.txt')
    if (version !== '2') git(root, 'update-index', '--skip-worktree', 'dir/sub/c.txt')
    git(root, 'update-index', '--index-version', version)
    const entries = await readIndex(join(root, '.git/index'), format === 'sha256' ? 32 : 20)
    expect(entries).toEqual(listed(root))
    expect(entries?.filter((e) => e.assumeUnchanged).map((e) => e.path)).toEqual(['a.txt'])
  })

  it.each([
    ['2', 'sha1'],
    ['3', 'sha1'],
    ['4', 'sha1'],
    ['4', 'sha256'],
  ])('drops the cached trees of index version %s (%s) and keeps a file git reads as the same entries', async (version, format) => {
    const root = temporaryDir()
    const bytes = format === 'sha256' ? 32 : 20
    git(root, 'init', '-q', `--object-format=${format}`, '-b', 'main')
    for (const file of ['a.txt', 'dir/b.txt', 'dir/sub/ç long name é.txt', `dir/${'n'.repeat(200)}.txt`]) write(root, file, `${file}\n`)
    git(root, 'add', '-A')
    git(root, 'update-index', '--index-version', version)
    git(root, 'commit', '-q', '-m', 'first')
    const copy = join(root, 'copy')
    copyFileSync(join(root, '.git/index'), copy)
    expect(readFileSync(copy).includes('TREE')).toBe(true)
    expect(await withoutCaches(copy, bytes)).toBe(true)
    expect(readFileSync(copy).includes('TREE')).toBe(false)
    // git checks the file's checksum as it reads it.
    const withCopy = { ...gitEnv, GIT_INDEX_FILE: copy }
    const ls = (env: NodeJS.ProcessEnv) => execFileSync('git', ['ls-files', '-s', '--debug'], { cwd: root, env, encoding: 'utf8' })
    expect(ls(withCopy)).toBe(ls(gitEnv))
    expect(execFileSync('git', ['write-tree'], { cwd: root, env: withCopy, encoding: 'utf8' }).trim()).toBe(git(root, 'rev-parse', 'HEAD^{tree}').trim())
  })

  it('says which index it cannot strip: split, truncated; none is nothing to strip', async () => {
    const root = repo()
    const index = join(root, '.git/index')
    writeFileSync(join(root, 'truncated'), readFileSync(index).subarray(0, readFileSync(index).length - 30))
    expect(await withoutCaches(join(root, 'truncated'), 20)).toBe(false)
    expect(await withoutCaches(join(root, '.git/none'), 20)).toBe(true)
    git(root, 'update-index', '--split-index')
    expect(await withoutCaches(index, 20)).toBe('split')
  })

  it('gives null for what it does not read (a split index) and [] for no index', async () => {
    const root = repo()
    git(root, 'update-index', '--split-index')
    expect(await readIndex(join(root, '.git/index'), 20)).toBeNull()
    expect(await readIndex(join(root, '.git/none'), 20)).toEqual([])
    // The fingerprint asks git instead, and sees the same.
    const before = await fingerprint(root)
    git(root, 'update-index', '--assume-unchanged', 'src/a.ts')
    write(root, 'src/a.ts', 'edited\n')
    expect(await fingerprint(root)).not.toBe(before)
  })
})

describe('a repository git refuses', () => {
  // Only root can give a folder to another user.
  it.runIf(process.getuid?.() === 0)('another user owns it ("dubious ownership"): a clear error with the fix, not a fingerprint of every file', async () => {
    const root = repo({ 'src/a.ts': 'a\n' })
    chownSync(root, 12345, 12345)
    const error = await fingerprint(root).then(
      () => null,
      (thrown: unknown) => thrown,
    )
    expect(error).toBeInstanceOf(VerifyError)
    expect((error as VerifyError).message).toBe(
      `Cannot fingerprint the workspace: git refuses to work in ${root}, which another user owns ("dubious ownership"). If you trust it, run \`git config --global --add safe.directory ${root}\` and run verify again.`,
    )
  })
})

describe('a submodule that is not checked out', () => {
  it('an empty folder is the commit the superproject records; files put into it are a clear error, never left unbound', async () => {
    const lib = repo({ 'lib.ts': 'export const lib = 1\n' })
    const root = repo({ 'src/a.ts': 'a\n' })
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib')
    git(root, 'commit', '-q', '-m', 'submodule')
    const sub = join(root, 'vendor/lib')
    rmSync(sub, { recursive: true, force: true })
    mkdirSync(sub)
    await fingerprint(root)
    write(root, 'vendor/lib/lib.ts', 'export const lib = 2\n')
    await expect(fingerprint(root)).rejects.toThrow(
      'Cannot fingerprint the workspace: the submodule vendor/lib is not checked out, but its folder holds files, which no evidence could be bound to. Check it out (`git submodule update --init vendor/lib`) or empty its folder.',
    )
  })
})
