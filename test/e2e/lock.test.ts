// Reliability: concurrent runs on one evidence file (SPEC §4 "one run at a time per evidence file"). A second writer
// is refused with who holds the lock and since when (exit 2), or waits with --wait; a lock left by a dead run is
// taken over; the lock is released on every way out; reading commands do not take it. The runs that meet a held lock
// run in process, against a holder that is a spawned run (or a lock file); runs that queue, and the signals, spawn.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { startTimeOf } from '../../src/runner/procfs.js'
import { cleanup, diagnose, fixture, sandbox, startCli, waitForFile } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'
import { project, removeProjects } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const LOCK = fixture('lock')

/** A pid that belonged to a process which has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('close', resolve))
  return child.pid as number
}

describe('one run at a time per evidence file', () => {
  test("while a run holds the evidence, two more runs are refused at once naming the holder; the evidence and logs stay the first run's", async () => {
    const box = sandbox({ inProcess: true })
    const first = box.start(['hold', '--cwd', LOCK])
    await waitForFile(box.path('holder.started'))
    const [second, third] = await Promise.all([box.run(['hold', '--cwd', LOCK]), box.run(['hold', '--cwd', LOCK])])
    for (const refused of [second, third]) {
      expect(refused.code, diagnose(refused)).toBe(2)
      expect(refused.stderr).toContain(`is in use by another run: pid ${first.child.pid}`)
      expect(refused.stderr).toMatch(/`verify run hold`\), since \d{4}-\d\d-\d\dT/)
      expect(refused.stderr).toContain('--wait')
      expect(refused.durationMs).toBeLessThan(5000)
    }
    writeFileSync(box.path('go'), '')
    const result = await first.done
    expect(result.code, diagnose(result)).toBe(0)
    const file = box.evidence()
    const startedBy = readFileSync(box.path('holder.started'), 'utf8').trim()
    expect(startedBy).toBe(`run ${file.runId}`)
    expect(readFileSync(`${box.logDir}/hold.log`, 'utf8')).toContain('found')
    expect(existsSync(`${box.evidencePath}.lock`)).toBe(false)
  })

  test("--wait queues runs one after another: none overlaps, each run's evidence matches its own log", async () => {
    const box = sandbox()
    const runs = [0, 1, 2].map(() => box.run(['timed', '--cwd', LOCK, '--wait'], { timeoutMs: 30_000 }))
    const results = await Promise.all(runs)
    for (const result of results) expect(result.code, diagnose(result)).toBe(0)
    expect(results.filter((r) => r.stderr.includes('waiting for the run that holds')).length).toBeGreaterThanOrEqual(1)
    const intervals = readFileSync(box.path('intervals'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number))
      .toSorted((a, b) => (a[0] as number) - (b[0] as number))
    expect(intervals).toHaveLength(3)
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]?.[0]).toBeGreaterThanOrEqual(intervals[i - 1]?.[1] as number)
    const file = box.evidence()
    expect(box.check('timed').evidence?.output.text).toBe(`run ${file.runId}\n`)
    expect(readFileSync(`${box.logDir}/timed.log`, 'utf8')).toBe(`run ${file.runId}\n`)
  })

  test('--wait=<duration> gives up after that long with exit 2', async () => {
    const box = sandbox({ inProcess: true })
    const first = box.start(['hold', '--cwd', LOCK])
    await waitForFile(box.path('holder.started'))
    const waited = await box.run(['hold', '--cwd', LOCK, '--wait=700ms'])
    expect(waited.code, diagnose(waited)).toBe(2)
    expect(waited.stderr).toContain('waiting for the run that holds')
    expect(waited.stderr).toContain(`pid ${first.child.pid}`)
    expect(waited.durationMs).toBeGreaterThanOrEqual(700)
    expect(waited.durationMs).toBeLessThan(6000)
    const bad = await box.run(['hold', '--cwd', LOCK, '--wait=soon'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--wait expects a duration')
    writeFileSync(box.path('go'), '')
    expect((await first.done).code).toBe(0)
  })

  test('a lock left by a dead run, or by a pid now used by another process, is taken over with a note', async () => {
    for (const holder of [
      { pid: await deadPid(), startTime: '1' },
      // Our own pid is alive, but its start time is not the one recorded: a reused pid, not the holder.
      { pid: process.pid, startTime: '1' },
    ]) {
      const box = sandbox({ inProcess: true })
      writeFileSync(`${box.evidencePath}.lock`, JSON.stringify({ ...holder, hostname: hostname(), command: 'verify run', since: '2026-01-01T00:00:00.000Z' }))
      const result = await box.run(['timed', '--cwd', LOCK])
      expect(result.code, diagnose(result)).toBe(0)
      expect(box.evidence().summary.warnings[0]).toContain(`Took over the lock of ${box.evidencePath}: the run that held it (pid ${holder.pid}`)
      expect(existsSync(`${box.evidencePath}.lock`)).toBe(false)
    }
  })

  test('a takeover that a run killed inside it left half-done does not hold the next run up', async () => {
    const box = sandbox({ inProcess: true })
    const dead = await deadPid()
    writeFileSync(
      `${box.evidencePath}.lock`,
      JSON.stringify({ pid: dead, startTime: '1', hostname: hostname(), command: 'verify run', since: '2026-01-01T00:00:00.000Z' }),
    )
    // What the taker writes first (its pid and machine), a moment ago; its kill came before it removed it.
    writeFileSync(`${box.evidencePath}.lock.takeover`, `${dead} ${hostname()}\n`)
    const result = await box.run(['timed', '--cwd', LOCK])
    expect(result.code, diagnose(result)).toBe(0)
    expect(box.evidence().summary.warnings[0]).toContain(`Took over the lock of ${box.evidencePath}: the run that held it (pid ${dead}`)
    expect(existsSync(`${box.evidencePath}.lock.takeover`)).toBe(false)
    // Not after the 10 s that a takeover by a live process may take at most: the run itself takes under a second.
    expect(result.durationMs).toBeLessThan(8000)
  })

  test('a folder where the lock file goes: exit 2 at once, saying what is in the way', async () => {
    const box = sandbox({ inProcess: true })
    mkdirSync(`${box.evidencePath}.lock`, { recursive: true })
    const result = await box.run(['timed', '--cwd', LOCK], { timeoutMs: 20_000 })
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toBe(
      `verify: cannot lock the evidence file: ${box.evidencePath}.lock is not a file (a folder?); remove it, or choose another place with --evidence\n`,
    )
  })

  test('a lock whose holder is alive is respected, on this machine and on another', async () => {
    const box = sandbox({ inProcess: true })
    const live = { pid: process.pid, startTime: startTimeOf(process.pid), hostname: hostname(), command: 'verify run', since: new Date().toISOString() }
    writeFileSync(`${box.evidencePath}.lock`, JSON.stringify(live))
    const here = await box.run(['timed', '--cwd', LOCK])
    expect(here.code, diagnose(here)).toBe(2)
    expect(here.stderr).toContain(`pid ${process.pid}`)
    writeFileSync(`${box.evidencePath}.lock`, JSON.stringify({ ...live, pid: 999_999, hostname: 'build-agent-7' }))
    const elsewhere = await box.run(['timed', '--cwd', LOCK])
    expect(elsewhere.code).toBe(2)
    expect(elsewhere.stderr).toContain('pid 999999 on build-agent-7')
    expect(elsewhere.stderr).toContain('If that run is gone, remove')
    expect(existsSync(box.path('intervals'))).toBe(false)
  })

  test('approve and merge take the lock too; check, which only reads, does not', async () => {
    const shard = sandbox({ inProcess: true })
    expect((await shard.run(['timed', '--shard', '1/1', '--cwd', LOCK])).code).toBe(0)
    const box = sandbox({ inProcess: true })
    const first = box.start(['hold', '--cwd', LOCK])
    await waitForFile(box.path('holder.started'))
    const approveArgs = ['approve', 'review', '--protocol', 'manual', '--by', 'Ann', '--cwd', LOCK, '--evidence', box.evidencePath]
    const approve = await runCliInProcess(approveArgs)
    expect(approve.code, diagnose(approve)).toBe(2)
    expect(approve.stderr).toContain(`pid ${first.child.pid}`)
    expect(existsSync(box.path('approvals.json'))).toBe(false)
    const merge = await box.run(['merge', shard.evidencePath, '--cwd', LOCK])
    expect(merge.code, diagnose(merge)).toBe(2)
    expect(merge.stderr).toContain(`pid ${first.child.pid}`)
    const check = await box.run(['check', 'hold', '--cwd', LOCK])
    expect(check.stderr).not.toContain('in use by another run')
    expect(check.code).toBe(3)
    writeFileSync(box.path('go'), '')
    expect((await first.done).code).toBe(0)
    const approved = await runCliInProcess(approveArgs)
    expect(approved.code, diagnose(approved)).toBe(0)
    expect(existsSync(`${box.evidencePath}.lock`)).toBe(false)
  })

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    test(`the lock is released when ${signal} interrupts the run`, async () => {
      const box = sandbox()
      const running = box.start(['hold', '--cwd', LOCK])
      await waitForFile(box.path('holder.started'))
      expect(existsSync(`${box.evidencePath}.lock`)).toBe(true)
      running.child.kill(signal)
      const result = await running.done
      expect(result.code, diagnose(result)).toBe({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 }[signal])
      expect(existsSync(`${box.evidencePath}.lock`)).toBe(false)
    })
  }
})

describe('a run that waited for the lock', () => {
  test('records the HEAD of when it fingerprinted, not of when it started', async () => {
    const p = project('validity-git', { git: true })
    const started = join(p.outside, 'started')
    const go = join(p.outside, 'go')
    const hold = `touch "${started}"; while [ ! -e "${go}" ]; do sleep 0.05; done`
    p.write('verify.config.ts', `export default { protocols: { hold: { checks: { hold: ${JSON.stringify(hold)} } }, quick: { checks: { quick: 'true' } } } }\n`)
    const commit = (message: string) => p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qam', message)
    commit('hold and quick')
    const first = startCli(['hold'], { cwd: p.dir })
    await waitForFile(started)
    const second = startCli(['quick', '--wait=30s'], { cwd: p.dir })
    // Once it says it waits, it has loaded its config and knows its repository.
    await new Promise<void>((resolve) => second.child.stderr?.on('data', (text: string) => text.includes('waiting for the run') && resolve()))
    p.write('docs/guide.md', 'changed while the second run waited\n')
    commit('moved on')
    writeFileSync(go, '')
    expect((await first.done).code).toBe(0)
    const result = await second.done
    expect(result.code, diagnose(result)).toBe(0)
    expect(p.evidence().workspace.git).toMatchObject({ head: p.git('rev-parse', 'HEAD').trim(), dirty: false })
  })
})
