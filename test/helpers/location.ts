// Shared by the tests of where verify writes (test/e2e/evidence-location.test.ts, report-location.test.ts): a work
// folder of the file's own, the reliability project run with an evidence path there, and the refusal every
// unwritable location gets before anything runs.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect } from 'vitest'
import { cleanup, diagnose, runCli, STACK_LINE, type CliResult } from './cli.js'
import { runCliInProcess } from './in-process.js'
import { PROJECT } from './scenario.js'

export interface LocationSandbox {
  work: string
  /**
   * Runs the reliability project with the given evidence path; the marker check proves whether anything ran. In
   * process unless `spawned`: what would spin or hang (a special file system) needs a process the test can kill.
   */
  verify(protocol: string, evidence: string, options?: { spawned?: boolean; args?: string[]; env?: Record<string, string> }): Promise<CliResult>
  expectRefusedBeforeRunning(result: CliResult, path: string, advice: RegExp): void
}

/** A work folder removed (with every process the file's runs left) after the file's tests. */
export function locationSandbox(): LocationSandbox {
  const work = mkdtempSync(join(tmpdir(), 'verify-location-'))
  afterAll(async () => {
    await cleanup()
    rmSync(work, { recursive: true, force: true })
  })
  return {
    work,
    verify: (protocol, evidence, { spawned = false, args = [], env = {} } = {}) =>
      (spawned ? runCli : runCliInProcess)([protocol, '--evidence', evidence, '--no-color', ...args], {
        cwd: PROJECT,
        env: { E2E_TMP: work, ...env },
        timeoutMs: 20_000,
      }),
    expectRefusedBeforeRunning(result, path, advice) {
      expect(result.code, diagnose(result)).toBe(2)
      expect(result.killedByTest).toBe(false)
      expect(result.stderr).toContain(path)
      expect(result.stderr).toMatch(advice)
      expect(result.stderr).toMatch(/Nothing was run/)
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(`${result.stdout}${result.stderr}`).not.toMatch(STACK_LINE)
      expect(existsSync(join(work, 'marker.ran'))).toBe(false)
    },
  }
}
