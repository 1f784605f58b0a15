// What judges a check reads what it printed, not what the secret mask left of it: a variable that looks secret (set
// by whoever runs verify, bound to nothing) must not hide what `expect.notOutput` forbids or what the strict preset's
// error-free check looks for in the logs. The mask still keeps the value out of the evidence and the logs.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { project, removeProjects, verifyInProcess } from '../helpers/project.js'

afterAll(removeProjects)

const CONFIG = `import { defineProtocol } from 'verify-protocol'
import { errorFreeCheck } from 'verify-protocol/presets/strict'
export default defineProtocol({
  timeout: '20s',
  protocols: {
    smoke: { checks: { smoke: { command: 'echo "check 1 ok"; echo "check 2 FAILED"', expect: { notOutput: /FAILED/ } } } },
    strict: {
      checks: {
        test: 'echo "Unhandled Rejection at: boom" >&2',
        'error-free': errorFreeCheck(),
      },
    },
    // A secret given to one check through its own env, which error-free's environment does not have.
    own: {
      checks: {
        build: { command: 'echo "$A: boom"', env: { BUILD_TOKEN: 'Unhandled Rejection', A: 'Unhandled Rejection' } },
        'error-free': errorFreeCheck(),
      },
    },
  },
})
`

describe('a mask cannot decide a check', { timeout: 60_000 }, () => {
  it('expect.notOutput sees the word a secret-named variable masks; the evidence keeps it masked', async () => {
    const p = project('smoke', { git: true })
    p.write('verify.config.ts', CONFIG)
    const run = await verifyInProcess(p, ['smoke'], { DUMMY_TOKEN: 'FAILED' })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    // The reason names the pattern, masked like everything verify prints.
    expect(run.stdout).toContain('failed (its output matches the forbidden /***/)')
    expect(p.check('smoke').evidence?.output.text).toBe('check 1 ok\ncheck 2 ***\n')
  })

  it('error-free reads a masked log line with the secret in its mask, and shows it masked', async () => {
    const p = project('smoke', { git: true })
    p.write('verify.config.ts', CONFIG)
    const run = await verifyInProcess(p, ['strict'], { SOME_TOKEN: 'Unhandled' })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    const errorFree = p.check('error-free')
    expect(errorFree.status).toBe('failed')
    expect(errorFree.evidence?.output.text).toContain('[unhandled rejection] *** Rejection at: boom')
    expect(readFileSync(join(p.dir, '.verify', 'logs', 'test.log'), 'utf8')).toBe('*** Rejection at: boom\n')
  })

  it("error-free reads masks of a secret another check's own env holds, and never prints it", async () => {
    const p = project('smoke', { git: true })
    p.write('verify.config.ts', CONFIG)
    const run = await verifyInProcess(p, ['own'])
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(p.check('error-free').evidence?.output.text).toContain('[unhandled rejection] ***: boom')
    expect(run.stdout + run.stderr).not.toContain('Unhandled Rejection')
  })
})
