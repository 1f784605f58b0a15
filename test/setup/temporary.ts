// One temporary folder for the whole run, removed when the run ends: every process the suite starts (the workers, the
// CLI, real Vitest and Jest runs and what they start in turn) finds it as its TMPDIR, so nothing is left in the
// system's temporary folder: Jest's cache (jest_<uid>), Vite's folders, the fixtures' reports, the temporary indexes
// of a verify a test kills. The fixture templates of test/helpers/project.ts go in a folder of their own inside it.
// A worker that Vitest ends never gets to clean up after itself: this does, in Vitest's main process.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const TEMPLATES = 'VERIFY_TEST_TEMPLATES'

export default function setup(): () => void {
  // Vitest calls a global setup once more for each project that extends the root config: one folder for them all.
  if (process.env[TEMPLATES] !== undefined) return () => {}
  const system = process.env.TMPDIR
  const root = mkdtempSync(join(tmpdir(), 'verify-suite-'))
  // As open as the system's folder (sticky, anyone may create): the tests that run a check as another user need it.
  chmodSync(root, 0o1777)
  process.env.TMPDIR = root
  process.env[TEMPLATES] = join(root, 'templates')
  mkdirSync(process.env[TEMPLATES])
  return () => {
    // The main process still writes after this (the plugin records the suite's evidence): the system's folder again.
    if (system === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = system
    rmSync(root, { recursive: true, force: true })
    delete process.env[TEMPLATES]
  }
}
