// The folder of the fixture templates test/helpers/project.ts makes (one per fixture, per worker), made before the
// workers start and removed when the run ends: a worker that Vitest ends never gets to clean up after itself.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const TEMPLATES = 'VERIFY_TEST_TEMPLATES'

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'verify-templates-'))
  process.env[TEMPLATES] = root
  return () => rmSync(root, { recursive: true, force: true })
}
