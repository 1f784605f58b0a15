import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { VerifyError } from '../../src/errors.js'
import { changedFiles, inputsFingerprint, workspaceFingerprint } from '../../src/evidence/fingerprint.js'
import { indexTree, readIndex } from '../../src/evidence/git-index.js'

const posixOnly = process.platform === 'win32' ? it.skip : it
const temporaryDirs: string[] = []

afterEach(() => {
  for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'verify-fingerprint-'))
  temporaryDirs.push(dir)
  return dir
}

// Identity and config isolation come from the environment, never the user's global config.
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: process.platform === 'win32' ? 'NUL' : '/dev/null',
  GIT_OPTIONAL_LOCKS: '0',
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' })
}

function write(root: string, file: string, content: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true })
  writeFileSync(join(root, file), content)
}

/** A repo with one commit of `files`. */
function repo(files: Record<string, string> = { 'src/a.ts': 'export const a = 1\n', 'docs/x.md': '# x\n' }): string {
  const root = temporaryDir()
  git(root, 'init', '-q', '-b', 'main')
  for (const [file, content] of Object.entries(files)) write(root, file, content)
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'initial')
  return root
}

async function fingerprint(root: string): Promise<string> {
  return (await workspaceFingerprint(root)).fingerprint
}

describe('workspaceFingerprint in git', () => {
  it('is stable when nothing changes and reports HEAD, tree and a clean state', async () => {
    const root = repo()
    const first = await workspaceFingerprint(root)
    const second = await workspaceFingerprint(root)
    expect(second).toEqual(first)
    expect(first.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(first.git).toEqual({
      head: git(root, 'rev-parse', 'HEAD').trim(),
      tree: git(root, 'rev-parse', 'HEAD^{tree}').trim(),
      dirty: false,
    })
  })

  it('changes on an edit and marks the workspace dirty', async () => {
    const root = repo()
    const before = await fingerprint(root)
    write(root, 'src/a.ts', 'export const a = 2\n')
    const after = await workspaceFingerprint(root)
    expect(after.fingerprint).not.toBe(before)
    expect(after.git?.dirty).toBe(true)
  })

  it('changes on a new untracked file', async () => {
    const root = repo()
    const before = await fingerprint(root)
    write(root, 'src/new.ts', 'new\n')
    expect(await fingerprint(root)).not.toBe(before)
  })

  it('changes on a delete', async () => {
    const root = repo()
    const before = await fingerprint(root)
    unlinkSync(join(root, 'docs/x.md'))
    expect(await fingerprint(root)).not.toBe(before)
  })

  it('changes on a rename', async () => {
    const root = repo()
    const before = await fingerprint(root)
    renameSync(join(root, 'src/a.ts'), join(root, 'src/b.ts'))
    expect(await fingerprint(root)).not.toBe(before)
  })

  posixOnly('changes on chmod +x', async () => {
    const root = repo()
    const before = await fingerprint(root)
    chmodSync(join(root, 'src/a.ts'), 0o755)
    expect(await fingerprint(root)).not.toBe(before)
  })

  it('is bound to the code, not the commit: committing exactly the fingerprinted tree keeps it (HEAD recorded)', async () => {
    const root = repo()
    write(root, 'src/a.ts', 'export const a = 2\n')
    write(root, 'src/new.ts', 'new\n')
    const before = await workspaceFingerprint(root)
    expect(before.git?.dirty).toBe(true)
    git(root, 'add', '-A')
    git(root, 'commit', '-q', '-m', 'the verified tree')
    git(root, 'commit', '-q', '--allow-empty', '-m', 'empty')
    const after = await workspaceFingerprint(root)
    expect(after.fingerprint).toBe(before.fingerprint)
    expect(after.git).toEqual({ head: git(root, 'rev-parse', 'HEAD').trim(), tree: before.git?.tree, dirty: false })
    expect(after.git?.head).not.toBe(before.git?.head)
  })

  it('does not change when an ignored file is touched', async () => {
    const root = repo({ '.gitignore': 'dist/\n*.log\n', 'src/a.ts': 'a\n' })
    write(root, 'dist/out.js', 'one')
    const before = await fingerprint(root)
    write(root, 'dist/out.js', 'two')
    write(root, 'debug.log', 'noise')
    expect(await fingerprint(root)).toBe(before)
  })

  it('leaves the real index untouched', async () => {
    const root = repo()
    write(root, 'src/a.ts', 'edited\n')
    write(root, 'untracked.txt', 'u\n')
    const index = readFileSync(join(root, '.git/index'))
    const status = git(root, 'status', '--porcelain')
    expect(status).toContain('?? untracked.txt')

    await workspaceFingerprint(root)

    expect(readFileSync(join(root, '.git/index')).equals(index)).toBe(true)
    expect(git(root, 'status', '--porcelain')).toBe(status)
    expect(git(root, 'ls-files', '--', 'untracked.txt')).toBe('')
  })

  it('fingerprints the whole repo from a subfolder, and the subfolder is part of it', async () => {
    const root = repo()
    const fromSubfolder = await workspaceFingerprint(join(root, 'src'))
    const fromTop = await workspaceFingerprint(root)
    expect(fromSubfolder.git).toEqual(fromTop.git)
    expect(fromSubfolder.fingerprint).not.toBe(fromTop.fingerprint)
    write(root, 'docs/x.md', 'changed outside the subfolder\n')
    expect(await fingerprint(join(root, 'src'))).not.toBe(fromSubfolder.fingerprint)
  })

  it('binds to the project folder: two packages with identical content differ', async () => {
    const same = { 'package.json': '{}\n', 'src/index.ts': 'export {}\n' }
    const root = repo(Object.fromEntries(['a', 'b'].flatMap((pkg) => Object.entries(same).map(([f, c]) => [`packages/${pkg}/${f}`, c]))))
    const a = await workspaceFingerprint(join(root, 'packages/a'))
    const b = await workspaceFingerprint(join(root, 'packages/b'))
    expect(a.git?.tree).toBe(b.git?.tree)
    expect(a.fingerprint).not.toBe(b.fingerprint)
    const docs = async (pkg: string) => inputsFingerprint(join(root, 'packages', pkg), ['src/**'], await workspaceFingerprint(join(root, 'packages', pkg)))
    expect(await docs('a')).not.toBe(await docs('b'))
  })

  it('hashes the real bytes whatever the repository configures: a clean filter or an fsmonitor cannot hide an edit', async () => {
    const root = repo({ 'src/app.ts': 'good\n', 'src/lib.ts': 'lib\n' })
    // A clean filter that reports every file as what it was, set in the repository's own config and attributes.
    writeFileSync(join(root, '.git', 'info', 'attributes'), 'src/app.ts filter=hide\n')
    git(root, 'config', 'filter.hide.clean', 'printf "good\\n"')
    const before = await fingerprint(root)
    write(root, 'src/app.ts', 'BAD\n')
    expect(await fingerprint(root)).not.toBe(before)
    // An fsmonitor that reports nothing changed.
    const hook = join(temporaryDir(), 'fsmonitor.sh')
    writeFileSync(hook, '#!/bin/sh\nprintf "token\\0"\n', { mode: 0o755 })
    git(root, 'config', 'core.fsmonitor', hook)
    git(root, 'status', '--porcelain')
    const watched = await fingerprint(root)
    write(root, 'src/lib.ts', 'lib edited while watched\n')
    expect(await fingerprint(root)).not.toBe(watched)
  })

  it('reads files flagged assume-unchanged or skip-worktree by their real content', async () => {
    const root = repo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'src/c.ts': 'c\n' })
    git(root, 'update-index', '--assume-unchanged', 'src/a.ts')
    git(root, 'update-index', '--skip-worktree', 'src/b.ts')
    const before = await fingerprint(root)
    write(root, 'src/a.ts', 'a edited while flagged\n')
    const afterA = await fingerprint(root)
    expect(afterA).not.toBe(before)
    write(root, 'src/b.ts', 'b edited while flagged\n')
    const afterB = await fingerprint(root)
    expect(afterB).not.toBe(afterA)
    unlinkSync(join(root, 'src/b.ts'))
    expect(await fingerprint(root)).not.toBe(afterB)
    // The flags in the real index are left as they were.
    expect(git(root, 'ls-files', '-v', 'src/a.ts', 'src/b.ts')).toBe('h src/a.ts\nS src/b.ts\n')
  })

  it('keeps working in a sparse checkout: files outside the cone are not read as deleted', async () => {
    const root = repo({ 'in/a.ts': 'a\n', 'out/b.ts': 'b\n', 'top.txt': 't\n' })
    const full = await workspaceFingerprint(root)
    git(root, 'sparse-checkout', 'set', 'in')
    expect(existsSync(join(root, 'out/b.ts'))).toBe(false)
    const sparse = await workspaceFingerprint(root)
    expect(sparse.fingerprint).toBe(full.fingerprint)
    expect(sparse.git?.dirty).toBe(false)
    write(root, 'in/a.ts', 'edited\n')
    expect(await fingerprint(root)).not.toBe(full.fingerprint)
  })

  it("leaves out only the project's own .verify/, not every folder named .verify", async () => {
    const root = repo({ 'pkg/src/a.ts': 'a\n' })
    const pkg = join(root, 'pkg')
    const before = await fingerprint(pkg)
    write(root, 'pkg/.verify/evidence.json', '{}')
    expect(await fingerprint(pkg)).toBe(before)
    write(root, 'pkg/src/.verify/hidden.ts', 'export const hidden = 1\n')
    const nested = await fingerprint(pkg)
    expect(nested).not.toBe(before)
    write(root, '.verify/elsewhere.ts', 'x\n')
    expect(await fingerprint(pkg)).not.toBe(nested)
  })

  it("counts a submodule's working tree: its HEAD, uncommitted edits and untracked files, not its ignored ones", async () => {
    const lib = repo({ 'lib.ts': 'export const lib = 1\n', '.gitignore': 'out/\n' })
    const root = repo({ 'src/a.ts': 'a\n' })
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib')
    git(root, 'commit', '-q', '-m', 'submodule')
    const seen = new Set([await fingerprint(root)])
    write(root, 'vendor/lib/lib.ts', 'export const lib = 2\n')
    seen.add(await fingerprint(root))
    write(root, 'vendor/lib/extra.ts', 'untracked\n')
    seen.add(await fingerprint(root))
    const sub = join(root, 'vendor/lib')
    git(sub, 'add', '-A')
    git(sub, 'commit', '-q', '-m', 'in the submodule')
    seen.add(await fingerprint(root))
    expect(seen.size).toBe(4)
    write(root, 'vendor/lib/out/build.js', 'ignored\n')
    expect(seen.has(await fingerprint(root))).toBe(true)
  })

  it('says clearly that a nested repository without commits cannot be fingerprinted', async () => {
    const root = repo()
    git(join(root, 'src'), 'init', '-q', 'nested')
    write(root, 'src/nested/file.ts', 'x\n')
    const failure = await workspaceFingerprint(root).then(
      () => null,
      (error: unknown) => error as Error,
    )
    expect(failure).toBeInstanceOf(VerifyError)
    expect(failure?.message).toMatch(/src\/nested.* git repository without commits/)
    expect(failure?.message).toMatch(/\.gitignore/)
  })

  it('never leaves out a tracked file, even under .verify/ or when named as verify output', async () => {
    const root = repo({ 'src/a.ts': 'a\n', '.verify/tracked.txt': 'one\n', 'reports/junit.xml': '<x/>\n' })
    const leaveOut = [
      join(root, 'reports/junit.xml'),
      join(root, 'reports/new.xml'),
      join(root, 'src/../reports/x'),
      join(tmpdir(), 'outside.json'),
      root,
      join(root, '.git/index'),
    ]
    const before = await fingerprint(root)
    write(root, '.verify/tracked.txt', 'two\n')
    const edited = await fingerprint(root)
    expect(edited).not.toBe(before)
    const named = (await workspaceFingerprint(root, { leaveOut })).fingerprint
    write(root, 'reports/junit.xml', '<y/>\n')
    write(root, 'reports/new.xml', 'untracked, left out\n')
    expect((await workspaceFingerprint(root, { leaveOut })).fingerprint).not.toBe(named)
    git(root, 'checkout', '--', 'reports/junit.xml')
    expect((await workspaceFingerprint(root, { leaveOut })).fingerprint).toBe(named)
  })

  it('works in a repo without commits (and without an index yet)', async () => {
    const root = temporaryDir()
    git(root, 'init', '-q', '-b', 'main')
    write(root, 'a.txt', 'a\n')
    const first = await workspaceFingerprint(root)
    expect(first.git).toMatchObject({ head: null, dirty: true })
    expect(first.git?.tree).toMatch(/^[0-9a-f]{40,64}$/)
    expect(await fingerprint(root)).toBe(first.fingerprint)
    write(root, 'a.txt', 'b\n')
    expect(await fingerprint(root)).not.toBe(first.fingerprint)
  })

  it('falls back to the files when the project folder is ignored by an enclosing repo', async () => {
    const home = temporaryDir()
    git(home, 'init', '-q', '-b', 'main')
    write(home, '.gitignore', '*\n')
    write(home, 'project/a.txt', 'a\n')
    const project = join(home, 'project')
    const before = await workspaceFingerprint(project)
    expect(before.git).toBeNull()
    write(home, 'project/a.txt', 'b\n')
    expect(await fingerprint(project)).not.toBe(before.fingerprint)
  })
})

function folder(): string {
  const root = temporaryDir()
  write(root, 'src/a.ts', 'a\n')
  write(root, 'README.md', 'readme\n')
  return root
}

describe('workspaceFingerprint outside git', () => {
  it('reports no git and is stable', async () => {
    const root = folder()
    const first = await workspaceFingerprint(root)
    expect(first.git).toBeNull()
    expect(await fingerprint(root)).toBe(first.fingerprint)
  })

  it('changes on an edit, a new file and a delete', async () => {
    const root = folder()
    const seen = new Set([await fingerprint(root)])
    write(root, 'src/a.ts', 'b\n')
    seen.add(await fingerprint(root))
    write(root, '.env.example', 'X=1\n')
    seen.add(await fingerprint(root))
    unlinkSync(join(root, 'README.md'))
    seen.add(await fingerprint(root))
    expect(seen.size).toBe(4)
  })

  posixOnly('changes on chmod +x and on a symlink retarget, without following links', async () => {
    const root = folder()
    symlinkSync('src/a.ts', join(root, 'link'))
    symlinkSync('/nonexistent/target', join(root, 'dangling'))
    const before = await fingerprint(root)
    chmodSync(join(root, 'src/a.ts'), 0o755)
    const afterChmod = await fingerprint(root)
    expect(afterChmod).not.toBe(before)
    unlinkSync(join(root, 'link'))
    symlinkSync('README.md', join(root, 'link'))
    expect(await fingerprint(root)).not.toBe(afterChmod)
  })

  it("leaves out only the folder's own .verify/ and the paths named as verify's output", async () => {
    const root = folder()
    const before = await fingerprint(root)
    write(root, 'reports/junit.xml', '<x/>')
    expect((await workspaceFingerprint(root, { leaveOut: [join(root, 'reports/junit.xml')] })).fingerprint).toBe(before)
    write(root, 'src/.verify/hidden.ts', 'hidden\n')
    expect((await workspaceFingerprint(root, { leaveOut: [join(root, 'reports/junit.xml')] })).fingerprint).not.toBe(before)
  })

  it('ignores node_modules, .git and .verify', async () => {
    const root = folder()
    write(root, 'node_modules/dep/index.js', 'one')
    write(root, '.verify/evidence.json', '{}')
    const before = await fingerprint(root)
    write(root, 'node_modules/dep/index.js', 'two')
    write(root, 'packages/x/node_modules/dep/index.js', 'nested')
    write(root, '.verify/evidence.json', '{"changed":true}')
    expect(await fingerprint(root)).toBe(before)
  })
})

describe('inputsFingerprint', () => {
  it('in git, is bound only to the files matching the globs', async () => {
    const root = repo()
    const docs = async (): Promise<string> => inputsFingerprint(root, ['docs/**'], await workspaceFingerprint(root))
    const before = await docs()
    write(root, 'src/a.ts', 'export const a = 2\n')
    expect(await docs()).toBe(before)
    write(root, 'docs/x.md', '# changed\n')
    expect(await docs()).not.toBe(before)
  })

  it('in git, sees untracked files and takes globs relative to a subfolder rootDir', async () => {
    const root = repo({ 'pkg/docs/x.md': 'x\n', 'docs/x.md': 'top\n' })
    const pkg = join(root, 'pkg')
    const docs = async (): Promise<string> => inputsFingerprint(pkg, ['docs/**'], await workspaceFingerprint(pkg))
    const before = await docs()
    write(root, 'docs/x.md', 'top changed\n')
    expect(await docs()).toBe(before)
    write(root, 'pkg/docs/new.md', 'untracked\n')
    expect(await docs()).not.toBe(before)
  })

  it('outside git, is bound only to the files matching the globs', async () => {
    const root = temporaryDir()
    write(root, 'src/a.ts', 'a\n')
    write(root, 'docs/x.md', 'x\n')
    const docs = async (): Promise<string> => inputsFingerprint(root, ['docs/**'], await workspaceFingerprint(root))
    const before = await docs()
    write(root, 'src/a.ts', 'b\n')
    expect(await docs()).toBe(before)
    write(root, 'docs/x.md', 'y\n')
    expect(await docs()).not.toBe(before)
  })

  it('honours negated globs and allows an empty match that still depends on the globs', async () => {
    const root = repo({ 'docs/x.md': 'x\n', 'docs/generated/y.md': 'y\n' })
    const workspace = await workspaceFingerprint(root)
    const globs = ['docs/**', '!docs/generated/**']
    const before = await inputsFingerprint(root, globs, workspace)
    write(root, 'docs/generated/y.md', 'regenerated\n')
    expect(await inputsFingerprint(root, globs, await workspaceFingerprint(root))).toBe(before)

    const none = await inputsFingerprint(root, ['nothing/**'], workspace)
    expect(none).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(await inputsFingerprint(root, ['other/**'], workspace)).not.toBe(none)
  })
})

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
  ])('reads the tree of index version %s (%s) from its cache-tree only while git keeps it whole', async (version, format) => {
    const root = temporaryDir()
    const bytes = format === 'sha256' ? 32 : 20
    const index = join(root, '.git/index')
    git(root, 'init', '-q', `--object-format=${format}`, '-b', 'main')
    for (const file of ['a.txt', 'dir/b.txt', 'dir/sub/ç long name é.txt', `dir/${'n'.repeat(200)}.txt`]) write(root, file, `${file}\n`)
    git(root, 'add', '-A')
    git(root, 'update-index', '--index-version', version)
    // Added, never written as a tree: no cache-tree yet.
    expect(await indexTree(index, bytes)).toBeNull()
    git(root, 'commit', '-q', '-m', 'first')
    expect(await indexTree(index, bytes)).toBe(git(root, 'rev-parse', 'HEAD^{tree}').trim())
    // An added edit invalidates the trees above it; write-tree makes them whole again.
    write(root, 'dir/sub/ç long name é.txt', 'edited\n')
    git(root, 'add', '-A')
    expect(await indexTree(index, bytes)).toBeNull()
    const written = git(root, 'write-tree').trim()
    expect(written).not.toBe(git(root, 'rev-parse', 'HEAD^{tree}').trim())
    expect(await indexTree(index, bytes)).toBe(written)
    git(root, 'rm', '-q', '--cached', 'a.txt')
    expect(await indexTree(index, bytes)).toBeNull()
  })

  it('gives no tree for an index it cannot read: none, split, truncated', async () => {
    const root = repo()
    const index = join(root, '.git/index')
    expect(await indexTree(index, 20)).toBe(git(root, 'rev-parse', 'HEAD^{tree}').trim())
    writeFileSync(join(root, 'truncated'), readFileSync(index).subarray(0, readFileSync(index).length - 30))
    expect(await indexTree(join(root, 'truncated'), 20)).toBeNull()
    expect(await indexTree(join(root, '.git/none'), 20)).toBeNull()
    git(root, 'update-index', '--split-index')
    expect(await indexTree(index, 20)).toBeNull()
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

describe('changedFiles', () => {
  it('lists files that differ between two trees, relative to rootDir', async () => {
    const root = repo()
    const before = await workspaceFingerprint(root)
    write(root, 'src/a.ts', 'export const a = 2\n')
    write(root, 'src/new.ts', 'new\n')
    unlinkSync(join(root, 'docs/x.md'))
    const after = await workspaceFingerprint(root)
    const from = before.git?.tree ?? ''
    const to = after.git?.tree ?? ''
    expect((await changedFiles(root, from, to))?.toSorted()).toEqual(['docs/x.md', 'src/a.ts', 'src/new.ts'])
    expect((await changedFiles(join(root, 'src'), from, to))?.toSorted()).toEqual(['../docs/x.md', 'a.ts', 'new.ts'])
    expect(await changedFiles(root, from, from)).toEqual([])
  })

  it('returns null when git cannot tell', async () => {
    const root = repo()
    const { git: info } = await workspaceFingerprint(root)
    const tree = info?.tree ?? ''
    expect(await changedFiles(root, '--output=/tmp/x', tree)).toBeNull()
    expect(await changedFiles(root, 'f'.repeat(40), tree)).toBeNull()
    expect(await changedFiles(temporaryDir(), tree, tree)).toBeNull()
  })
})
