// Reports are never lost to the place they are written, nor do they cost the run (SPEC §5, §10): a report file that
// cannot be written is refused before anything runs (exit 2, one paragraph naming it); a stream (verify's own
// standard output, a device, a FIFO) is written as a stream, never waited on for ever; /dev/shm is a file system.
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diagnose, ROOT, sleep } from '../helpers/cli.js'
import { locationSandbox } from '../helpers/location.js'
import { PROJECT } from '../helpers/scenario.js'

const { work, verify, expectRefusedBeforeRunning } = locationSandbox()
const SPECIAL = /^\/(proc|sys)\//

describe('a report to a stream', { timeout: 60_000 }, () => {
  it('a report to /dev/stdout redirected to a log is appended to it; evidence at /dev/stdout is refused as a stream', async () => {
    // Spawned: /dev/stdout is the process's own standard output, here a file the shell appends to.
    const log = join(work, 'ci.log')
    writeFileSync(log, 'earlier lines\n')
    const bin = join(ROOT, 'bin', 'verify.cjs')
    const shell = (args: string) =>
      execFileSync('sh', ['-c', `"${process.execPath}" "${bin}" marker --no-color ${args} >> "${log}"; echo $?`], {
        cwd: PROJECT,
        env: { ...process.env, E2E_TMP: work, CI: '', GITHUB_ACTIONS: '' },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 20_000,
      }).trim()
    expect(shell(`--evidence "${join(work, 'stream-report.json')}" --reporter junit=/dev/stdout`)).toBe('0')
    const text = readFileSync(log, 'utf8')
    expect(text.startsWith('earlier lines\n')).toBe(true)
    expect(text).toContain('<testsuites name="verify"')
    rmSync(join(work, 'marker.ran'), { force: true })
    expect(shell('--evidence /dev/stdout')).toBe('2')
    expect(existsSync(join(work, 'marker.ran'))).toBe(false)
    // Its own standard output, with another reporter printing there too: the XML would be mixed with it, so refused.
    expect(shell(`--evidence "${join(work, 'stream-report.json')}" --reporter junit=/dev/stdout --reporter default`)).toBe('2')
    expect(readFileSync(log, 'utf8')).toBe(text)
  })

  it('a report under /dev/shm is an ordinary file: its folder is made and the file written, not appended to', async () => {
    if (!existsSync('/dev/shm')) return
    const folder = mkdtempSync('/dev/shm/verify-report-')
    try {
      const file = join(folder, 'deep', 'junit.xml')
      for (let i = 0; i < 2; i++) {
        const result = await verify('marker', join(work, 'shm-evidence.json'), { args: ['--reporter', 'default', '--reporter', `junit=${file}`] })
        expect(result.code, diagnose(result)).toBe(0)
        rmSync(join(work, 'marker.ran'), { force: true })
      }
      expect(readFileSync(file, 'utf8').match(/<testsuites /g)).toHaveLength(1)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('a report to a FIFO goes to its reader; with no reader, the report is said lost and the run ends', async () => {
    const fifo = join(work, 'report-fifo')
    execFileSync('mkfifo', [fifo])
    // Spawned: an open that waits for a reader would block the test's own process.
    const alone = await verify('marker', join(work, 'fifo-evidence.json'), { spawned: true, args: ['--reporter', 'default', '--reporter', `junit=${fifo}`] })
    expect(alone.killedByTest).toBe(false)
    expect(alone.code, diagnose(alone)).toBe(0)
    expect(alone.stderr).toMatch(/nothing reads the FIFO .*report-fifo, so its report is not written/)
    rmSync(join(work, 'marker.ran'), { force: true })
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] })
    let read = ''
    reader.stdout.on('data', (chunk: Buffer) => (read += chunk.toString()))
    const done = new Promise((resolve) => reader.once('close', resolve))
    await sleep(100)
    const withReader = await verify('marker', join(work, 'fifo-evidence.json'), {
      spawned: true,
      args: ['--reporter', 'default', '--reporter', `junit=${fifo}`],
    })
    expect(withReader.code, diagnose(withReader)).toBe(0)
    await done
    expect(read).toContain('<testsuites name="verify"')
    rmSync(join(work, 'marker.ran'), { force: true })
  })
})

/** A fresh evidence path under the work folder. */
const freshEvidence = () => join(work, 'reports', `evidence-${Math.random().toString(36).slice(2)}.json`)

describe('a report file that cannot be written is refused before anything runs', { timeout: 30_000 }, () => {
  it.each([
    [
      'a file where its folder must be',
      () => {
        writeFileSync(join(work, 'report-blocker'), 'not a folder\n')
        return join(work, 'report-blocker', 'junit.xml')
      },
      /is a file, not a folder/,
    ],
    [
      'a folder where the file must be',
      () => {
        mkdirSync(join(work, 'report-folder.xml'), { recursive: true })
        return join(work, 'report-folder.xml')
      },
      /is not a file but a folder/,
    ],
    ['a special file system', () => '/proc/verify-report/junit.xml', /ordinary disk|not permitted|cannot/],
  ])('--reporter junit=<%s>: exit 2, naming the report and the reporter', async (_what, place, advice) => {
    const report = place()
    const result = await verify('marker', freshEvidence(), { spawned: SPECIAL.test(report), args: ['--reporter', 'default', '--reporter', `junit=${report}`] })
    expectRefusedBeforeRunning(result, report, advice)
    expect(result.stderr).toMatch(/junit/)
  })

  it.each([
    { name: 'the evidence file', args: (evidence: string) => [`junit=${evidence}`], taken: 'the evidence file' },
    { name: 'the approvals file', args: (evidence: string) => [`json=${join(dirname(evidence), 'approvals.json')}`], taken: 'the approvals file' },
    { name: 'the config file', args: () => [`markdown=${join(PROJECT, 'verify.config.mjs')}`], taken: 'the config file' },
    { name: "another report's file", args: () => [`junit=${join(work, 'same.xml')}`, `markdown=${join(work, 'same.xml')}`], taken: "the junit report's file" },
  ])('a report written over $name: exit 2, nothing written', async ({ args, taken }) => {
    const evidence = freshEvidence()
    const result = await verify('marker', evidence, { args: args(evidence).flatMap((spec) => ['--reporter', spec]) })
    expectRefusedBeforeRunning(result, 'report', new RegExp(`which is ${taken}: name another file`))
    expect(existsSync(evidence)).toBe(false)
  })
})

// An existing report file verify may not write (root's, verify run as another user): without the check the run went
// through, the reporter failed at its end with a warning, exit 0, and the old report stayed for CI to read.
describe.skipIf(process.getuid?.() !== 0)('an existing report file that cannot be written', { timeout: 30_000 }, () => {
  it('is refused before anything runs (exit 2), naming the file', async () => {
    const shared = mkdtempSync(join(enterableByAnyone(), 'verify-report-owner-'))
    chmodSync(shared, 0o777)
    try {
      // The other user runs a copy of verify and of the project: the checkout may sit in a folder only root can enter
      // (a clone in `mktemp -d`), and so may the temporary folder (TMPDIR set to one made by `mktemp -d`).
      const { bin, project } = installedForAnyone(shared)
      const report = join(shared, 'junit.xml')
      writeFileSync(report, '<testsuites/>\n', { mode: 0o644 })
      const child = spawn(process.execPath, [bin, 'marker', '--evidence', join(shared, 'evidence.json'), '--no-color', '--reporter', `junit=${report}`], {
        cwd: project,
        env: { ...process.env, E2E_TMP: shared, VERIFY_CODE_CACHE: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
        uid: 65534,
        gid: 65534,
      })
      let stderr = ''
      child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text))
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
      expect(code, stderr).toBe(2)
      expect(stderr).toContain(report)
      expect(stderr).toMatch(/Nothing was run/)
      expect(existsSync(join(shared, 'marker.ran'))).toBe(false)
      expect(readFileSync(report, 'utf8')).toBe('<testsuites/>\n')
    } finally {
      rmSync(shared, { recursive: true, force: true })
    }
  })
})

/** Whether every user may enter `dir` and each folder above it. */
function enterable(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false
    if (dirname(at) === at) return true
  }
}

/**
 * A temporary folder another user can reach: the first of TMPDIR and the system's folders that every user may enter
 * on the whole way down from `/`.
 */
function enterableByAnyone(): string {
  const found = [tmpdir(), '/tmp', '/var/tmp', '/dev/shm'].find((dir) => existsSync(dir) && enterable(dir))
  if (found === undefined) throw new Error('no temporary folder that every user may enter: TMPDIR, /tmp, /var/tmp, /dev/shm')
  return found
}

/** verify as an installed package and the fixture project, copied into `dir`, readable by every user. */
function installedForAnyone(dir: string): { bin: string; project: string } {
  const modules = join(dir, 'node_modules')
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(modules, 'verify-protocol', part), { recursive: true })
  // The bundle's own dependencies, copied rather than linked: a link leads back into the checkout.
  for (const dependency of ['jiti', 'jsonc-parser', 'picomatch']) {
    cpSync(join(ROOT, 'node_modules', dependency), join(modules, dependency), { recursive: true, dereference: true })
  }
  const project = join(dir, 'project')
  cpSync(PROJECT, project, { recursive: true })
  execFileSync('chmod', ['-R', 'a+rX', modules, project])
  return { bin: join(modules, 'verify-protocol', 'bin', 'verify.cjs'), project }
}
