// workspaceFingerprint in a git repository (SPEC §7): what changes the fingerprint, what does not, and what git
// settings cannot hide.
import { chmodSync, existsSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { VerifyError } from '../../src/errors.js'
import { inputsFingerprint, workspaceFingerprint } from '../../src/evidence/fingerprint.js'
import { fingerprint, git, removeTemporaryDirs, repo, temporaryDir, write } from '../helpers/git-repo.js'

const posixOnly = process.platform === 'win32' ? it.skip : it

afterEach(removeTemporaryDirs)

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

  it("hashes an edit git's stat cache would miss: same size, same mtime, with ctime or stat checks turned down", async () => {
    const root = repo({ 'src/app.ts': 'good\n' })
    for (const [name, value] of [
      ['core.trustctime', 'false'],
      ['core.checkStat', 'minimal'],
      ['core.ignoreStat', 'true'],
    ] as const)
      git(root, 'config', name, value)
    // An old mtime in the index, so that git does not take the file for racily clean and hash it anyway.
    const file = join(root, 'src/app.ts')
    const past = new Date('2020-01-01T00:00:00Z')
    utimesSync(file, past, past)
    git(root, 'update-index', '--really-refresh')
    const before = await fingerprint(root)
    // git compares whole seconds of ctime: the rewrite comes in a later second than the index's record.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    writeFileSync(file, 'BAD!\n')
    utimesSync(file, past, past)
    expect(statSync(file).size).toBe('good\n'.length)
    expect(await fingerprint(root)).not.toBe(before)
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
