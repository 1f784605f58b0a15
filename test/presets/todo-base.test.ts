// What the `todo` check compares with, in the checkouts it meets: a full clone of a branch, CI's shallow clones
// (no base branch, `origin/HEAD` pointing at the branch itself, a detached HEAD), VERIFY_BASE, and file names git
// writes with a trailing tab.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { addedLines, scanNewMarkers, todoCheck } from '../../src/presets/todo.js'
import { context, folder, git, removeFolders, repository, run, write } from './helpers.js'

afterAll(removeFolders)

/** A remote whose `feature` branch committed a TODO (in a file whose name has a space) on top of `main`. */
function remote(): string {
  const dir = repository()
  git(dir, 'checkout', '-qb', 'feature')
  write(dir, 'src/my file.ts', '// TODO: committed on the branch\n')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'feature')
  git(dir, 'checkout', '-q', 'main')
  return dir
}

/** A clone of the remote's `feature` branch; depth 1 is what CI checkouts do by default. */
function clone(options: { depth?: number } = {}): string {
  const dir = join(folder(), 'clone')
  git(folder(), 'clone', '-q', ...(options.depth ? ['--depth', String(options.depth)] : []), '--branch', 'feature', `file://${remote()}`, dir)
  return dir
}

const CI = { CI: 'true' }

describe('the todo check in a full clone of a branch', () => {
  it("compares with the base branch's merge base, and reads a file name with a space without git's trailing tab", async () => {
    const scan = await scanNewMarkers(clone(), { env: CI })
    expect(scan.base).toMatch(/^origin\/HEAD \(merge base [0-9a-f]{7}\)$/)
    expect(scan.note).toBeUndefined()
    expect(scan.found).toEqual([{ file: 'src/my file.ts', line: 1, text: '// TODO: committed on the branch' }])
  })

  it('a new branch without commits of its own is compared with its base, without a note', async () => {
    const dir = repository()
    git(dir, 'checkout', '-qb', 'fresh')
    const scan = await scanNewMarkers(dir, { env: CI })
    expect(scan).toMatchObject({ base: 'HEAD', found: [] })
    expect(scan.note).toBeUndefined()
  })

  it('on the base branch itself with its history, the change is what is not committed yet', async () => {
    const dir = repository()
    write(dir, 'src/c.ts', '// FIXME: uncommitted\n')
    const scan = await scanNewMarkers(dir, { env: CI })
    expect(scan).toMatchObject({ base: 'HEAD', found: [{ file: 'src/c.ts', line: 1 }] })
    expect(scan.note).toBeUndefined()
  })
})

describe('the todo check without a base branch (shallow or detached CI checkouts)', () => {
  it('under CI, no base branch is an error that says how to give one', async () => {
    const dir = clone({ depth: 1 })
    await expect(scanNewMarkers(dir, { env: CI })).rejects.toThrow(/no base branch to compare with.*fetch-depth: 0.*VERIFY_BASE/s)
    await expect(run(todoCheck(), context(dir, CI))).rejects.toThrow(/VERIFY_BASE/)
  })

  it('under CI, an origin/HEAD that points at the branch being built is not a base (the merge base is HEAD)', async () => {
    const dir = clone({ depth: 1 })
    git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/feature')
    await expect(scanNewMarkers(dir, { env: CI })).rejects.toThrow(/no base branch/)
  })

  it('under CI, a detached HEAD at the tip of the base candidate is no base either', async () => {
    const dir = repository()
    git(dir, 'checkout', '-q', '--detach')
    await expect(scanNewMarkers(dir, { env: CI })).rejects.toThrow(/no base branch/)
  })

  it('outside CI it compares with HEAD and says so in the output', async () => {
    const dir = clone({ depth: 1 })
    write(dir, 'b.ts', '// nothing to see\n')
    const result = await run(todoCheck(), context(dir))
    expect(result.passed).toBe(true)
    expect(result.output).toMatch(
      /since HEAD\.\nNo base branch found \(tried origin\/HEAD, origin\/main, origin\/master, main, master\): only changes not committed yet were scanned\. Set VERIFY_BASE/,
    )
    expect(result.metadata).toMatchObject({ base: 'HEAD', baseFallback: true })
  })

  it('VERIFY_BASE names the ref to diff against', async () => {
    const dir = clone({ depth: 2 })
    const scan = await scanNewMarkers(dir, { env: { ...CI, VERIFY_BASE: 'HEAD~1' } })
    expect(scan.base).toBe('HEAD~1')
    expect(scan.found.map((l) => l.file)).toEqual(['src/my file.ts'])
  })
})

describe('addedLines', () => {
  it('strips the tab git ends a file name with when the name has a space', () => {
    const patch = ['diff --git a/my file.js b/my file.js', '--- a/my file.js\t', '+++ b/my file.js\t', '@@ -0,0 +1 @@', '+// TODO'].join('\n')
    expect(addedLines(patch)).toEqual([{ file: 'my file.js', line: 1, text: '// TODO' }])
  })
})
