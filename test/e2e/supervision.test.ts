// End to end: supervision of check processes (SPEC §4) — timeouts kill the whole group, SIGTERM-proof
// checks get SIGKILL after the grace period, leftovers are reaped, fail-fast cancels, signals to verify
// interrupt the run, and stdin is closed. Every pid a fixture started must be dead when verify exits.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import {
  BIN,
  cleanup,
  diagnose,
  fixture,
  isAlive,
  processesWithEnv,
  readEvidence,
  readPids,
  sandbox,
  sleep,
  STACK_LINE,
  survivors,
  waitForFile,
} from '../helpers/cli.js'
import { cliEnvironment } from '../helpers/in-process.js'
import { project, removeProjects } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const SUPERVISION = fixture('supervision')

describe('timeouts', () => {
  test('a timed-out check is timed_out, its process tree (grandchildren too) is killed; a SIGTERM-proof check gets SIGKILL after the grace', async () => {
    const box = sandbox()
    const result = await box.run(['timeouts', '--cwd', SUPERVISION])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(1)
    const file = box.evidence()
    expect(file.summary.verdict).toBe('rejected')

    const tree = box.check('tree')
    expect(tree.status).toBe('timed_out')
    expect(tree.reason).toMatch(/timed out/)
    expect(tree.evidence).toMatchObject({ passed: false, timedOut: true, exitCode: null, signal: expect.stringMatching(/^SIG/) })
    expect(tree.evidence?.durationMs).toBeGreaterThanOrEqual(4950)
    expect(tree.evidence?.output.text).toContain('tree ready')
    const treePids = readPids(box.path('tree.pids'))
    expect(treePids).toHaveLength(3)
    expect(await survivors(treePids, 250)).toEqual([])

    const stubborn = box.check('stubborn')
    expect(stubborn.status).toBe('timed_out')
    expect(stubborn.evidence).toMatchObject({ timedOut: true, signal: 'SIGKILL' })
    // SIGTERM came first and was ignored; SIGKILL followed once the 500 ms grace was over.
    expect(stubborn.evidence?.output.text).toContain('got SIGTERM, ignoring it')
    expect(stubborn.evidence?.durationMs).toBeGreaterThanOrEqual(5400)
    expect(stubborn.evidence?.durationMs).toBeLessThan(9000)
    expect(await survivors(readPids(box.path('stubborn.pid')), 250)).toEqual([])

    expect(file.summary.issues.filter((i) => /timed out/i.test(i))).toHaveLength(2)
    // Nothing the run started is left, whichever pids the fixtures wrote.
    expect(processesWithEnv('E2E_TMP', box.dir).filter(isAlive)).toEqual([])
  })

  test('--timeout on the command line overrides the configured timeout', async () => {
    const box = sandbox()
    // The `interrupt` protocol's long check is configured with 30 s. 3 s leave its tree time to start and write its
    // pids on a loaded machine (1 s did not, once).
    const result = await box.run(['interrupt', '--timeout', '3s', '--cwd', SUPERVISION])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(1)
    expect(box.check('long')).toMatchObject({ status: 'timed_out', evidence: { timedOut: true } })
    expect(box.check('after').status).toBe('skipped')
    expect(await survivors(readPids(box.path('long.pids')), 250)).toEqual([])
    expect(result.durationMs).toBeLessThan(10_000)
  })
})

describe('leftovers', () => {
  test('a passing command that leaves background processes passes, and the leftovers are killed', async () => {
    const box = sandbox()
    const result = await box.run(['leftovers', '--cwd', SUPERVISION])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(0)
    for (const id of ['bg-quiet', 'bg-pipe', 'bg-node']) {
      const check = box.check(id)
      expect(check.status, id).toBe('passed')
      expect(check.evidence?.exitCode, id).toBe(0)
      const pids = readPids(box.path(`${id}.pid`))
      expect(pids, id).toHaveLength(1)
      expect(await survivors(pids, 250), id).toEqual([])
    }
    // A leftover that holds the output pipe gets at most the 2 s drain window.
    expect(box.check('bg-pipe').evidence?.durationMs).toBeLessThan(4000)
    expect(result.durationMs).toBeLessThan(10_000)
  })
})

describe('fail-fast', () => {
  test('--fail-fast: the first failing required check cancels the running one (tree killed) and the unstarted one', async () => {
    const box = sandbox()
    const result = await box.run(['failfast', '--fail-fast', '--cwd', SUPERVISION])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(1)
    const file = box.evidence()
    expect(file.summary.verdict).toBe('rejected')
    expect(box.check('fails').status).toBe('failed')

    const long = box.check('long')
    expect(long.status).toBe('cancelled')
    expect(long.reason).toMatch(/fail-fast/)
    expect(long.reason).toContain('fails')
    const later = box.check('later')
    expect(later.status).toBe('cancelled')
    expect(later.reason).toMatch(/fail-fast/)
    expect(existsSync(box.path('later.ran'))).toBe(false)

    expect(await survivors(readPids(box.path('long.pids')), 250)).toEqual([])
    // Far sooner than the 20 s the long check would otherwise have run.
    expect(result.durationMs).toBeLessThan(10_000)
  })
})

describe.concurrent('interruption', () => {
  test.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s to verify while a check runs: exit %i, evidence incomplete and interrupted, no process survives', async (signal, code) => {
    const box = sandbox()
    const cli = box.start(['interrupt', '--cwd', SUPERVISION])
    // The check's process tree is up once its pid file exists.
    await waitForFile(box.path('long.pids'))
    const pids = readPids(box.path('long.pids'))
    const sent = performance.now()
    cli.child.kill(signal)
    const result = await cli.done
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(code)
    // Killing the groups takes at most the grace period, not the check's 30 s timeout.
    expect(performance.now() - sent).toBeLessThan(5000)

    const file = box.evidence()
    expect(file.summary.verdict).toBe('incomplete')
    expect(file.interrupted).toBe(signal)
    expect(box.check('long').status).toBe('cancelled')
    expect(box.check('long').reason).toContain(signal)
    expect(box.check('after').status).toBe('cancelled')
    expect(existsSync(box.path('after.ran'))).toBe(false)
    expect(file.summary.issues.some((i) => /interrupted/i.test(i))).toBe(true)

    expect(pids).toHaveLength(3)
    expect(await survivors(pids, 250)).toEqual([])
  })
})

describe('interruption once the checks are over', () => {
  // The check writes 48 MiB into the workspace and ends: the run then fingerprints the workspace again (the drift
  // check), which git takes a while over. The signal lands there: to the process group (Ctrl-C in a terminal, which
  // kills that git as well), or to verify alone.
  test.each([
    ['the process group', 'SIGINT', 130],
    ['verify alone', 'SIGTERM', 143],
  ] as const)('%s gets %s during the drift check: exit %i, the evidence written as interrupted', async (target, signal, code) => {
    const p = project('validity-manual', { git: true })
    p.write('verify.config.ts', `export default { checks: { build: 'head -c 50331648 /dev/urandom > out.bin && touch "$VALIDITY_OUTSIDE/wrote"' } }\n`)
    const child = spawn(process.execPath, [BIN, '--no-color'], {
      cwd: p.dir,
      env: cliEnvironment({ VALIDITY_OUTSIDE: p.outside }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('close', (status) => resolve(status)))
    try {
      await waitForFile(join(p.outside, 'wrote'))
      await sleep(300)
      process.kill(target === 'verify alone' ? (child.pid as number) : -(child.pid as number), signal)
      expect(await exited, output).toBe(code)
    } finally {
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        // already gone
      }
    }
    const file = readEvidence(p.evidencePath)
    expect(file.interrupted).toBe(signal)
    expect(file.summary.verdict).toBe('incomplete')
    expect(file.checks[0]?.status).toBe('passed')
    expect(file.summary.issues[0]).toBe('The run was interrupted after its checks settled, before it was done: run it again')
    expect(output).not.toMatch(/Cannot fingerprint|unexpected error/)
  })
})

describe('a second interrupt', () => {
  test('stops at once (exit 130), writes the evidence, says what was recorded, and leaves no process', async () => {
    const box = sandbox()
    const cli = box.start(['interrupt-twice', '--cwd', SUPERVISION])
    await waitForFile(box.path('stubborn.pid'))
    const [pid] = readPids(box.path('stubborn.pid'))
    cli.child.kill('SIGINT')
    // The first waits up to the 30 s grace for the check that ignores SIGTERM; the second ends the wait.
    await sleep(400)
    const sent = performance.now()
    cli.child.kill('SIGINT')
    const result = await cli.done
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(130)
    expect(performance.now() - sent).toBeLessThan(5000)
    const file = box.evidence()
    expect(file.interrupted).toBe('SIGINT')
    expect(file.summary.verdict).toBe('incomplete')
    expect(box.check('stubborn').status).toBe('cancelled')
    expect(box.check('quick').status).toBe('passed')
    // What a person sees before the shell prompt comes back: the outcome and where the evidence is.
    expect(result.stderr).toMatch(
      /verify: interrupted again \(SIGINT\): stopped at once\. 1 passed, 1 cancelled of 2 checks; incomplete, evidence in .*evidence\.json/,
    )
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(await survivors([pid as number], 500)).toEqual([])
  })
})

describe('stdin', () => {
  test('commands that read stdin see it closed and finish at once', async () => {
    const box = sandbox()
    const result = await box.run(['--cwd', fixture('stdin')])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(0)
    for (const id of ['read-shell', 'read-argv', 'cat']) {
      const check = box.check(id)
      expect(check.status, id).toBe('passed')
      // Well under the 10 s timeout: nothing waited for input.
      expect(check.evidence?.durationMs, id).toBeLessThan(2000)
    }
    expect(box.check('read-shell').evidence?.output.text).toBe('stdin closed after 0 bytes\n')
  })
})
