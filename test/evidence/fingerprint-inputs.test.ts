// The fingerprint outside git, of a check's inputs, and the files changed between two trees.
import { chmodSync, symlinkSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { changedFiles, inputsFingerprint, workspaceFingerprint } from '../../src/evidence/fingerprint.js'
import { fingerprint, removeTemporaryDirs, repo, temporaryDir, write } from '../helpers/git-repo.js'

const posixOnly = process.platform === 'win32' ? it.skip : it

afterEach(removeTemporaryDirs)

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

  posixOnly('in git, a symbolic link the globs match binds what it points to, in the project or outside it', async () => {
    const root = repo({ 'shared/data.txt': 'ok\n', 'docs/check.js': 'check\n' })
    const outside = temporaryDir()
    write(outside, 'far.txt', 'far\n')
    symlinkSync('../shared/data.txt', join(root, 'docs/data.txt'))
    symlinkSync('../shared', join(root, 'docs/all'))
    symlinkSync(join(outside, 'far.txt'), join(root, 'docs/far.txt'))
    const docs = async (): Promise<string> => inputsFingerprint(root, ['docs/**'], await workspaceFingerprint(root))
    const seen = new Set([await docs()])
    write(root, 'shared/data.txt', 'bad\n')
    seen.add(await docs())
    write(root, 'shared/more.txt', 'more\n')
    seen.add(await docs())
    write(outside, 'far.txt', 'changed far away\n')
    seen.add(await docs())
    expect(seen.size).toBe(4)
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
