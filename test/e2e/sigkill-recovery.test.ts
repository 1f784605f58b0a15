// Reliability: verify itself SIGKILLed mid-run (SPEC §4: "leftovers of a run that was killed are cleaned by the next
// run"). The run keeps a registry of its live groups; the next run kills what a dead run left (by group, checking
// start times, and by the run's environment tag), removes half-written files of dead writers, and says so — and
// never touches a process whose pid merely matches. The runs killed are spawned; the runs after them, in process.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, isAlive, sandbox, sleep, survivors, waitForFile, type Sandbox, processesWithEnv } from '../helpers/cli.js'
import { project, removeProjects } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const SIGKILL = fixture('sigkill')

/** Live processes started for this sandbox: every check process carries E2E_TMP=<dir> in its environment. */
function tagged(box: Sandbox): number[] {
  return processesWithEnv('E2E_TMP', box.dir).filter(isAlive)
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('close', resolve))
  return child.pid as number
}

/**
 * Files verify must not leave behind in the evidence folder: the evidence file's temporaries and lock, the registries.
 * Not the checks' own files: a kill of the escape fixture between its write and its rename leaves its escape.pid.tmp.
 */
function litter(box: Sandbox): string[] {
  const runDir = box.path('run')
  const evidence = basename(box.evidencePath)
  return [
    ...readdirSync(box.dir).filter((name) => name.startsWith(`${evidence}.`) && (name.endsWith('.tmp') || name.endsWith('.lock'))),
    ...(existsSync(runDir) ? readdirSync(runDir).map((name) => `run/${name}`) : []),
  ]
}

describe('after verify is SIGKILLed', () => {
  test('the next run kills the processes it left (trees, an escapee, a background sleep), removes its temp files and says so', async () => {
    const box = sandbox({ inProcess: true })
    const killed = box.start(['busy', '--cwd', SIGKILL])
    for (const name of ['tree.pids', 'escape.pid', 'background.pids']) await waitForFile(box.path(name))
    killed.child.kill('SIGKILL')
    await killed.done
    // What today's SIGKILL leaves: the whole of the run, re-parented, and the lock and registry on disk.
    const orphans = tagged(box)
    expect(orphans.length).toBeGreaterThanOrEqual(5)
    const deadWriter = await deadPid()
    writeFileSync(join(box.dir, `evidence.json.${deadWriter}.0123456789ab.tmp`), '{"schemaVersion": 1, "che')
    writeFileSync(join(box.dir, `approvals.json.${deadWriter}.ba9876543210.tmp`), '')
    // A live writer's temporary file is not litter.
    writeFileSync(join(box.dir, `evidence.json.${process.pid}.aaaaaaaaaaaa.tmp`), '')

    const next = await box.run(['quick', '--cwd', SIGKILL])
    expect(next.code, diagnose(next)).toBe(0)
    expect(await survivors(orphans, 1000)).toEqual([])
    expect(tagged(box)).toEqual([])
    const warnings = box.evidence().summary.warnings.join('\n')
    expect(warnings).toContain(`Took over the lock of ${box.evidencePath}: the run that held it (pid ${killed.child.pid}`)
    expect(warnings).toMatch(/An earlier run was killed before it could clean up \(one run\): killed \d+ leftover processes/)
    expect(warnings).toContain(`removed 2 half-written files (`)
    expect(litter(box)).toEqual([`evidence.json.${process.pid}.aaaaaaaaaaaa.tmp`])
  })

  // A run's id, as verify makes them (a UUID): only such records are verify's to clean.
  const DEAD_RUN = '0d5e3a1c-7b2f-4c9e-9a41-3f6b8d2e1c07'

  test("a pid in a dead run's registry that now belongs to another process (other start time) is left alone", async () => {
    const box = sandbox({ inProcess: true })
    const decoy = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
    try {
      mkdirSync(box.path('run'), { recursive: true })
      const record = {
        runId: DEAD_RUN,
        pid: await deadPid(),
        startTime: '1',
        hostname: hostname(),
        startedAt: new Date().toISOString(),
        groups: [{ pgid: decoy.pid, startTime: '1' }],
      }
      writeFileSync(box.path(`run/${DEAD_RUN}.json`), JSON.stringify(record))
      const next = await box.run(['quick', '--cwd', SIGKILL])
      expect(next.code, diagnose(next)).toBe(0)
      expect(isAlive(decoy.pid as number)).toBe(true)
      expect(litter(box)).toEqual([])
    } finally {
      decoy.kill('SIGKILL')
    }
  })

  test("the registry's temporary copy that a run killed at its first write left (empty, a moment ago) is removed; a live writer's is not", async () => {
    const box = sandbox({ inProcess: true })
    mkdirSync(box.path('run'), { recursive: true })
    // A kill between the temporary file's creation and its first bytes: no record to read, no pid inside. The name
    // says who wrote it: the host and pid.
    const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_')
    const dead = `run/${DEAD_RUN}.json.${host}.${await deadPid()}.tmp`
    const live = `run/1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5.json.${host}.${process.pid}.tmp`
    // Another machine's run on a shared folder, writing now, and one of its copies of an hour ago: its pid means
    // nothing here; neither copy, nor its record, is this machine's to clean.
    const other = '2b3c4d5e-6f70-4a8b-9cad-becf00112233'
    const elsewhere = [`run/${other}.json`, `run/${other}.json.build-agent-7.${await deadPid()}.tmp`, `run/${other}.json.build-agent-7.1.tmp`]
    for (const name of [dead, live, ...elsewhere]) writeFileSync(box.path(name), '')
    const hourAgo = new Date(Date.now() - 3600_000)
    utimesSync(box.path(elsewhere[2] as string), hourAgo, hourAgo)
    writeFileSync(
      box.path(elsewhere[0] as string),
      JSON.stringify({
        runId: other,
        pid: 1,
        startTime: '1',
        hostname: 'build-agent-7',
        startedAt: new Date().toISOString(),
        groups: [],
      }),
    )
    const next = await box.run(['quick', '--cwd', SIGKILL])
    expect(next.code, diagnose(next)).toBe(0)
    expect(litter(box).toSorted()).toEqual([live, ...elsewhere].toSorted())
  })

  test('SIGKILL at random moments, many times: each next run cleans up, and in the end nothing is left', async () => {
    const box = sandbox({ inProcess: true })
    for (let round = 0; round < 8; round++) {
      const run = box.start(['busy', '--cwd', SIGKILL])
      await sleep(150 + Math.floor(Math.random() * 1200))
      run.child.kill('SIGKILL')
      await run.done
    }
    const last = await box.run(['quick', '--cwd', SIGKILL])
    expect(last.code, diagnose(last)).toBe(0)
    await sleep(200)
    expect(tagged(box)).toEqual([])
    expect(litter(box)).toEqual([])
    // Whatever moment the kill came at, the evidence file is whole.
    expect(() => JSON.parse(readFileSync(box.evidencePath, 'utf8'))).not.toThrow()
  }, 60_000)
})

describe('the temporary folders of a run (the index of a fingerprint, the results of function checks)', () => {
  // Each fingerprint reads the working tree through a copy of git's index in a folder of the temp dir, removed when it
  // is done; a SIGKILL (a CI job's time limit, the OOM killer) leaves the folder behind. The next fingerprint removes
  // what dead runs left there an hour ago or more, and nothing else.
  test('the next run removes the folders that dead verify processes left, and only those', async () => {
    const p = project('validity-git', { git: true })
    const tmp = join(p.outside, 'tmp')
    mkdirSync(tmp)
    const hourAgo = new Date(Date.now() - 2 * 3600_000)
    const folder = (name: string, old: boolean) => {
      mkdirSync(join(tmp, name))
      writeFileSync(join(tmp, name, 'index'), 'DIRC')
      if (old) utimesSync(join(tmp, name), hourAgo, hourAgo)
      return name
    }
    const dead = folder(`verify-index-${await deadPid()}-a1b2c3`, true)
    // A function check's result folder, left by a verify killed while the check ran.
    const deadFunction = folder(`verify-function-${await deadPid()}-j1k2l3`, true)
    const alive = folder(`verify-index-${process.pid}-d4e5f6`, true)
    const recent = folder(`verify-index-${await deadPid()}-g7h8i9`, false)
    const other = folder('verify-index-other', true)
    const result = await p.spawn('run', [], { env: { TMPDIR: tmp } })
    expect(result.code, diagnose(result)).toBe(0)
    const left = readdirSync(tmp)
    expect(left).not.toContain(dead)
    expect(left).not.toContain(deadFunction)
    expect(left.toSorted()).toEqual([alive, other, recent].toSorted())
  })
})
