// What a repository's settings cannot hide from the workspace fingerprint (SPEC §7: "the real content counts"): the
// attributes and config under which git would hash something other than a file's bytes, a case-insensitive or
// mode-blind view of the tree, a submodule's work tree moved elsewhere, and a cache-tree left stale in the index.
import { chmodSync, copyFileSync, existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { workspaceFingerprint } from '../../src/evidence/fingerprint.js'
import { fingerprint, git, removeTemporaryDirs, repo, temporaryDir, write } from '../helpers/git-repo.js'

afterEach(removeTemporaryDirs)

describe('the fingerprint hashes the real bytes whatever the repository configures', () => {
  it.each([
    ['a tracked `ident` attribute', (root: string) => write(root, '.gitattributes', '*.js ident\n'), 'a /*$Id$*/\n', 'a /*$Id:*/ + 1 /*$*/\n'],
    ['`text=auto` in .git/info/attributes', (root: string) => write(root, '.git/info/attributes', '* text=auto\n'), 'hello\n', 'hello\r\n'],
    ['an `eol=crlf` attribute', (root: string) => write(root, '.gitattributes', '*.js eol=crlf\n'), 'hello\n', 'hello\r\n'],
    ['`core.autocrlf=true`', (root: string) => git(root, 'config', 'core.autocrlf', 'true'), 'hello\n', 'hello\r\n'],
    ['`core.autocrlf=input`', (root: string) => git(root, 'config', 'core.autocrlf', 'input'), 'hello\n', 'hello\r\n'],
  ])('%s cannot make an edit look like the old file', async (_what, configure, before, after) => {
    const root = repo({ 'lib.js': before })
    // Quiet: git warns on stderr of every conversion it would make.
    git(root, 'config', 'core.safecrlf', 'false')
    configure(root)
    git(root, 'add', '-A')
    git(root, 'commit', '-q', '--allow-empty', '-m', 'settings')
    const recorded = await fingerprint(root)
    write(root, 'lib.js', after)
    expect(await fingerprint(root)).not.toBe(recorded)
  })

  it('`core.ignorecase=true` cannot hide a new file whose name differs from a tracked one only in case', async () => {
    const root = repo({ 'plugins/a.js': 'one\n' })
    const recorded = await fingerprint(root)
    git(root, 'config', 'core.ignorecase', 'true')
    write(root, 'plugins/A.js', 'two\n')
    expect(await fingerprint(root)).not.toBe(recorded)
  })

  it('`core.fileMode=false` cannot hide a chmod', async () => {
    const root = repo({ 'bin.sh': '#!/bin/sh\n' })
    chmodSync(join(root, 'bin.sh'), 0o755)
    git(root, 'add', '-A')
    git(root, 'commit', '-q', '-m', 'executable')
    const recorded = await fingerprint(root)
    git(root, 'config', 'core.fileMode', 'false')
    chmodSync(join(root, 'bin.sh'), 0o644)
    expect(await fingerprint(root)).not.toBe(recorded)
  })

  it("a submodule's `core.worktree` pointed elsewhere cannot take its folder out of the fingerprint", async () => {
    const lib = repo({ 'v.js': 'three\n' })
    const root = repo({ 'test.js': 'test\n' })
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'lib')
    git(root, 'commit', '-q', '-m', 'submodule')
    const recorded = await fingerprint(root)
    const decoy = temporaryDir()
    copyFileSync(join(root, 'lib/v.js'), join(decoy, 'v.js'))
    git(root, '--git-dir=.git/modules/lib', 'config', 'core.worktree', decoy)
    write(root, 'lib/v.js', 'four\n')
    expect(await fingerprint(root)).not.toBe(recorded)
  })

  it('a nested repository with `core.worktree` elsewhere is fingerprinted by the files in its folder', async () => {
    const root = repo({ 'test.js': 'test\n' })
    const nested = join(root, 'lib')
    git(root, 'init', '-q', 'lib')
    write(root, 'lib/v.js', 'three\n')
    git(nested, 'add', '-A')
    git(nested, 'commit', '-q', '-m', 'nested')
    const recorded = await fingerprint(root)
    const decoy = temporaryDir()
    copyFileSync(join(nested, 'v.js'), join(decoy, 'v.js'))
    git(nested, 'config', 'core.worktree', decoy)
    write(root, 'lib/v.js', 'four\n')
    expect(await fingerprint(root)).not.toBe(recorded)
  })

  it("an index whose cache-tree was put back by hand cannot stand for the old tree: git's cached trees are not trusted", async () => {
    const root = repo({ 'v.js': 'three\n', 'test.js': 'test\n' })
    git(root, 'write-tree')
    const index = join(root, '.git', 'index')
    const old = readFileSync(index)
    const recorded = await fingerprint(root)
    // A second between each step: no entry is racily clean, so git trusts the stat data it has.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    write(root, 'v.js', 'four!\n')
    await new Promise((resolve) => setTimeout(resolve, 1100))
    git(root, 'add', 'v.js')
    // The entry is the new file's (blob and stat), the cache-tree the old one: what write-tree would trust.
    writeFileSync(index, withExtension(readFileSync(index), 'TREE', extension(old, 'TREE')))
    expect(git(root, 'write-tree').trim()).toBe(git(root, 'rev-parse', 'HEAD^{tree}').trim())
    expect(await fingerprint(root)).not.toBe(recorded)
  })
})

/** The bytes of an index extension (signature, size, data), found by its signature. */
function extension(index: Buffer, signature: string): Buffer {
  const at = index.indexOf(signature, 12, 'latin1')
  if (at < 0) throw new Error(`no ${signature} extension`)
  return index.subarray(at, at + 8 + index.readUInt32BE(at + 4))
}

/** The index with its `signature` extension replaced by `replacement`, and its SHA-1 checksum made right again. */
function withExtension(index: Buffer, signature: string, replacement: Buffer): Buffer {
  const current = extension(index, signature)
  const at = index.indexOf(current)
  const body = Buffer.concat([index.subarray(0, at), replacement, index.subarray(at + current.length, index.length - 20)])
  return Buffer.concat([body, createHash('sha1').update(body).digest()])
}

describe('without git', () => {
  it('in a git repository: an error that says git could not be started, not a fingerprint of the files one by one', async () => {
    const root = repo({ 'src/a.ts': 'a\n' })
    vi.stubEnv('PATH', temporaryDir())
    await expect(workspaceFingerprint(root)).rejects.toThrow(/is in a git repository, but git could not be started/)
  })

  it('outside any repository: the files are fingerprinted as they are', async () => {
    const root = temporaryDir()
    write(root, 'src/a.ts', 'a\n')
    vi.stubEnv('PATH', temporaryDir())
    expect((await workspaceFingerprint(root)).git).toBeNull()
  })
})

describe('the settings a repository is read with', () => {
  it("a partial clone's blobs outside the sparse cone, never fetched, do not stop the fingerprint", async () => {
    const source = repo({ 'in/x.txt': '1\n', 'out/y.txt': '2\n' })
    git(source, 'config', 'uploadpack.allowFilter', 'true')
    const clone = join(temporaryDir(), 'clone')
    git(source, 'clone', '-q', '--filter=blob:none', '--no-checkout', `file://${source}`, clone)
    git(clone, 'sparse-checkout', 'set', '--no-cone', '/in/')
    git(clone, 'checkout', '-q', 'main')
    const info = await workspaceFingerprint(clone)
    expect(info.git?.tree).toBe(git(clone, 'rev-parse', 'HEAD^{tree}').trim())
    write(clone, 'in/x.txt', 'edited\n')
    expect(await fingerprint(clone)).not.toBe(info.fingerprint)
  })

  it("the repository's own core.excludesFile still ignores what it names", async () => {
    const root = repo({ 'src/a.ts': 'a\n' })
    write(root, '.git/ignore-local', 'dist/\n')
    git(root, 'config', 'core.excludesFile', '.git/ignore-local')
    const before = await fingerprint(root)
    write(root, 'dist/out.js', 'built\n')
    expect(await fingerprint(root)).toBe(before)
  })

  it('a shared repository keeps the folders of new objects group-writable', async () => {
    const root = repo({ 'a.txt': 'a\n' })
    git(root, 'config', 'core.sharedRepository', 'group')
    // Content whose object folder does not exist yet (the first commit's objects made theirs before the setting).
    let id = ''
    for (let n = 0; id === '' || existsSync(join(root, '.git', 'objects', id.slice(0, 2))); n++) {
      write(root, 'u.txt', `untracked ${n}\n`)
      id = git(root, 'hash-object', 'u.txt').trim()
    }
    const previous = process.umask(0o022)
    try {
      await fingerprint(root)
    } finally {
      process.umask(previous)
    }
    expect(statSync(join(root, '.git', 'objects', id.slice(0, 2))).mode & 0o020).toBe(0o020)
  })

  it("where git converts line endings, the tree is of the bytes whatever git's stat cache holds", async () => {
    const root = repo({ '.gitattributes': '*.txt eol=crlf\n', 'c.txt': 'l1\nl2\n' })
    // Checked out again: CRLF on disk, the LF blob in the index, the stat data matching.
    unlinkSync(join(root, 'c.txt'))
    git(root, 'checkout', '--', 'c.txt')
    // A second later, so that the index's record of it is not racily clean: git trusts it.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    git(root, 'update-index', '--refresh')
    const clean = await fingerprint(root)
    // The same bytes, rewritten: git hashes the file again.
    writeFileSync(join(root, 'c.txt'), readFileSync(join(root, 'c.txt')))
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(await fingerprint(root)).toBe(clean)
  })
})
