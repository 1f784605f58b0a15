// A checkout mounted read-only (a CI gate's `:ro` volume): `verify check` only reads, so it gives the verdict. git
// writes the objects of the fingerprint into a temporary store beside the repository's (SPEC §7).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { diagnose } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'
import { PACKAGE } from '../helpers/project.js'
import { git } from '../helpers/git-repo.js'

const work = mkdtempSync(join(tmpdir(), 'verify-readonly-'))
const project = join(work, 'project')
const view = join(work, 'view')

// A read-only bind mount of the project, where this process may mount (root, no sandbox refusing it).
const mounted = ((): boolean => {
  mkdirSync(join(project, 'node_modules'), { recursive: true })
  mkdirSync(view)
  execFileSync('ln', ['-s', PACKAGE, join(project, 'node_modules', 'verify-protocol')])
  writeFileSync(join(project, 'verify.config.mjs'), "export default { checks: { a: 'true' } }\n")
  writeFileSync(join(project, '.gitignore'), '.verify\nnode_modules\n')
  git(project, 'init', '-q', '-b', 'main')
  git(project, 'add', '-A')
  git(project, 'commit', '-q', '-m', 'initial')
  try {
    execFileSync('mount', ['--bind', project, view], { stdio: 'pipe' })
    execFileSync('mount', ['-o', 'remount,ro,bind', view], { stdio: 'pipe' })
    return true
  } catch (error) {
    const why = String((error as { stderr?: unknown }).stderr ?? error)
      .trim()
      .split('\n')[0]
    console.warn(`read-only-checkout: cannot mount the checkout read-only here (${why}); not tested on this machine`)
    return false
  }
})()
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', view])
  rmSync(work, { recursive: true, force: true })
})

describe('a read-only checkout', () => {
  it.skipIf(!mounted)('`verify check` of evidence recorded before gives the verdict (exit 0), and a change still makes it stale', async () => {
    const recorded = await runCliInProcess(['run'], { cwd: project })
    expect(recorded.code, diagnose(recorded)).toBe(0)
    const check = await runCliInProcess(['check'], { cwd: view })
    expect(check.code, diagnose(check)).toBe(0)
    writeFileSync(join(project, 'new.txt'), 'a file the evidence has not seen\n')
    const stale = await runCliInProcess(['check'], { cwd: view })
    expect(stale.code, diagnose(stale)).toBe(3)
  })
})
