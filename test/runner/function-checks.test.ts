// Function checks loaded from a config run in a process of their own, supervised like commands (SPEC §4): whatever
// a `run` does — exit, print secrets, spin the CPU, start processes, throw late — is that check's result, and verify
// goes on and writes its evidence. The built CLI on fixtures/function-checks: in process (the checks' own processes are
// what is tested), but for one spawned run, which starts the bundle's function-check child.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, noisyBytes, readPids, sandbox, sha256Hex, STACK_LINE, survivors, type Sandbox, processesWithEnv } from '../helpers/cli.js'
import { project, removeProjects } from '../helpers/project.js'

afterAll(cleanup)

const FUNCTIONS = fixture('function-checks')
/** Nothing a function started outlives the run: no process carries the sandbox's tag in its environment. */
async function expectNothingLeft(box: Sandbox): Promise<void> {
  expect(await survivors(processesWithEnv('E2E_TMP', box.dir))).toEqual([])
}

const only = (...ids: string[]) => ['--cwd', FUNCTIONS, '--sequential', ...ids.flatMap((id) => ['--only', id])]

describe('a function check cannot end verify', () => {
  test('process.exit in `run`, in a module it imports, or in a timer it set, is that check’s error; the run goes on', async () => {
    const box = sandbox()
    const result = await box.run(only('exit-zero', 'exit-in-module', 'exit-later', 'after'))
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(1)
    expect(result.stderr).not.toMatch(STACK_LINE)
    const file = box.evidence()
    expect(file.summary.verdict).toBe('rejected')
    for (const id of ['exit-zero', 'exit-in-module', 'exit-later']) {
      const check = box.check(id)
      expect(check.status, id).toBe('error')
      expect(check.reason, id).toMatch(/process\.exit\(0\)/)
      expect(check.evidence?.passed, id).toBe(false)
    }
    // What it printed before exiting is kept.
    expect(box.check('exit-zero').evidence?.output.text).toContain('about to exit')
    expect(box.check('exit-in-module').evidence?.output.text).toContain('helper is done, exiting')
    // exit-later exits 20 ms in, long before its 3 s sleep would end.
    expect(box.check('exit-later').evidence?.durationMs).toBeLessThan(2500)
    expect(box.check('after')).toMatchObject({ status: 'passed' })
    await expectNothingLeft(box)
  })
})

describe('loading the config again in the check’s process', () => {
  test('is guarded like verify’s own load: process.exit there is that check’s error, not a result', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(only('prints', 'after'), { env: { FN_EXIT_WHILE_LOADING: '1' } })
    expect(result.code, diagnose(result)).toBe(1)
    expect(box.check('prints')).toMatchObject({ status: 'error', reason: expect.stringMatching(/could not be loaded again.*process\.exit\(0\) while loading/) })
    expect(box.check('after').status).toBe('passed')
    await expectNothingLeft(box)
  })
})

describe('output of a function check', () => {
  test('console and stdout/stderr writes are captured, masked and logged like a command’s, in a process of its own', async () => {
    const box = sandbox({ inProcess: true })
    const secret = 'fn-secret-value-8842'
    const cli = box.start(only('prints'), { env: { FN_API_TOKEN: secret, VERIFY_SIGNING_KEY: 'fn-signing-key-5521' } })
    const result = await cli.done
    // 3: incomplete, the fixture's other checks are left out.
    expect(result.code, diagnose(result)).toBe(3)
    const check = box.check('prints')
    expect(check.status).toBe('passed')
    const text = check.evidence?.output.text ?? ''
    for (const line of ['console.log sees token ***', 'console.error line', 'raw stdout write', 'raw stderr write ***', 'returned output']) {
      expect(text).toContain(line)
    }
    expect(text).not.toContain(secret)
    const log = readFileSync(join(box.logDir, 'prints.log'), 'utf8')
    expect(log).toContain('console.log sees token ***')
    expect(log).not.toContain(secret)
    expect(result.stdout + result.stderr).not.toContain(secret)
    expect(readFileSync(box.evidencePath, 'utf8')).not.toContain(secret)
    // It ran in a child process, not in verify's.
    expect(check.evidence?.metadata.pid).toEqual(expect.any(Number))
    expect(check.evidence?.metadata.pid).not.toBe(cli.child.pid)
    // Its environment is a command's: the check's id, no signing key, nothing of verify's own plumbing; cwd its folder.
    expect(check.evidence?.metadata).toMatchObject({ cwd: FUNCTIONS, request: false, signingKey: null, checkId: 'prints' })
    await expectNothingLeft(box)
  })

  test('output written just before `run` returns is all there: byte count and SHA-256 of what it printed', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(only('floods'))
    expect(result.code, diagnose(result)).toBe(3)
    const check = box.check('floods')
    expect(check.status).toBe('passed')
    expect(check.evidence?.output).toMatchObject({ bytes: 3_000_000, truncated: true, sha256: sha256Hex(noisyBytes(3_000_000)) })
    await expectNothingLeft(box)
  })
})

describe('timeouts of function checks', () => {
  test('a CPU-bound function is timed out at its timeout and stalls no other check', async () => {
    const box = sandbox({ inProcess: true })
    // Not sequential: `beside` runs while `cpu-bound` spins.
    const result = await box.run(['--cwd', FUNCTIONS, '--only', 'cpu-bound', '--only', 'beside'])
    expect(result.code, diagnose(result)).toBe(1)
    const cpu = box.check('cpu-bound')
    expect(cpu.status).toBe('timed_out')
    expect(cpu.evidence?.timedOut).toBe(true)
    // 1 s timeout + 500 ms grace, far below the 3 s it would spin.
    expect(cpu.evidence?.durationMs).toBeGreaterThanOrEqual(950)
    expect(cpu.evidence?.durationMs).toBeLessThan(2900)
    const beside = box.check('beside')
    expect(beside.status).toBe('passed')
    expect(beside.evidence?.durationMs).toBeLessThan(1500)
    await expectNothingLeft(box)
  })

  test('a timeout ends every process the function started', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(only('tree', 'after'))
    expect(result.code, diagnose(result)).toBe(1)
    expect(box.check('tree')).toMatchObject({ status: 'timed_out', evidence: { timedOut: true } })
    expect(box.check('after').status).toBe('passed')
    const pids = readPids(box.path('tree.pids'))
    expect(pids).toHaveLength(3)
    expect(await survivors(pids, 500)).toEqual([])
    await expectNothingLeft(box)
  })
})

describe('function checks that would crash verify', () => {
  test('an unhandled rejection, a throw from a timer, an aborted spawn without an error listener: error or timed_out, the run goes on', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(only('rejection', 'late-throw', 'spawn-signal', 'after'))
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(1)
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(box.check('rejection')).toMatchObject({ status: 'error', reason: expect.stringContaining('a rejection nobody handles') })
    expect(box.check('late-throw')).toMatchObject({ status: 'error', reason: expect.stringContaining('thrown from a timer') })
    expect(box.check('spawn-signal')).toMatchObject({ status: 'timed_out', evidence: { timedOut: true } })
    expect(box.check('after').status).toBe('passed')
    await expectNothingLeft(box)
  })
})

describe('a function check whose definition changes at every load', () => {
  test('is an error that names the cause (a value computed as the config loads), not a config that changed', async () => {
    const p = project('validity-manual')
    p.write('verify.config.ts', `export default { checks: { smoke: { env: { STAMP: String(Math.random()) }, run: async () => true } } }\n`)
    const result = await p.verify('run')
    expect(result.code).toBe(1)
    expect(p.check('smoke').reason).toMatch(/came out different when its process loaded the config again, though the config files did not change/)
    expect(p.check('smoke').reason).toMatch(/compute such values inside `run`/)
    removeProjects()
  })
})

describe('a function whose promise never settles', () => {
  test('with nothing left to wait on, is an error that says so (not a process that ended without a result)', async () => {
    const p = project('validity-manual')
    p.write('verify.config.ts', `export default { checks: { stuck: { timeout: '20s', run: () => new Promise(() => {}) } } }\n`)
    const result = await p.verify('run')
    expect(result.code).toBe(1)
    expect(p.check('stuck').status).toBe('error')
    expect(p.check('stuck').reason).toMatch(/returned a promise that never settled: nothing was left for it to wait on/)
    removeProjects()
  })
})
