// Results are never lost to the place they are written (issue 9 item 7, SPEC §5). A location that cannot hold the
// evidence or the logs — a file where a folder must be, /proc, /sys, a full disk — is refused before anything runs
// (exit 2, one paragraph naming the path). A disk that fills during the run costs log bytes, never the results:
// the evidence is written (the log marked truncated, a warning) and the exit code is the verdict's; when even the
// evidence cannot be written, the results are printed, then the error, exit 2. Never a stack trace, never a hang.
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { diagnose, STACK_LINE } from '../helpers/cli.js'
import { locationSandbox } from '../helpers/location.js'
import { MIB, PROJECT } from '../helpers/scenario.js'

const { work, verify, expectRefusedBeforeRunning } = locationSandbox()

describe('an evidence location that cannot be written is refused before anything runs', { timeout: 30_000 }, () => {
  it('the evidence folder is a regular file (`.verify` a file)', async () => {
    const blocker = join(work, 'dot-verify')
    writeFileSync(blocker, 'not a folder\n')
    const result = await verify('marker', join(blocker, 'evidence.json'))
    expectRefusedBeforeRunning(result, blocker, /is a file, not a folder.*remove or rename it/)
  })

  it('the logs folder is a regular file', async () => {
    mkdirSync(join(work, 'ev-logs'), { recursive: true })
    writeFileSync(join(work, 'ev-logs', 'logs'), '')
    const result = await verify('marker', join(work, 'ev-logs', 'evidence.json'))
    expectRefusedBeforeRunning(result, join(work, 'ev-logs', 'logs'), /is a file, not a folder/)
  })

  it.each(['/proc/x.json', '/proc/verify-test/deep/x.json', '/sys/x.json'])('a special file system: %s (no spin, no hang)', async (evidence) => {
    const started = performance.now()
    const result = await verify('marker', evidence, { spawned: true })
    expect(performance.now() - started).toBeLessThan(15_000)
    expectRefusedBeforeRunning(result, evidence, /ordinary disk|not permitted|cannot/)
  })

  const NOT_EVIDENCE = /is not a verify evidence file: verify does not overwrite it/
  it.each([
    { name: 'a tracked package.json', file: 'package.json', content: '{ "name": "keep-me" }\n', refusal: NOT_EVIDENCE },
    { name: 'a source file, tracked or not', file: 'notes.md', content: '# keep me\n', refusal: NOT_EVIDENCE },
    { name: "an untracked JSON file of the user's", file: 'notes.json', content: '{ "x": 1 }\n', refusal: NOT_EVIDENCE },
    { name: 'the approvals file beside it', file: '.verify/approvals.json', content: '{ "approvals": [] }\n', refusal: /verify keeps beside the evidence/ },
    { name: 'a lock file', file: '.verify/evidence.json.lock', content: '{ "pid": 1 }\n', refusal: /verify keeps beside the evidence/ },
  ])('the evidence path is $name: refused, left as it was', async ({ file, content, refusal }) => {
    const repo = mkdtempSync(join(work, 'repo-'))
    execFileSync('git', ['init', '-q'], { cwd: repo })
    writeFileSync(join(repo, 'package.json'), '{ "name": "keep-me" }\n')
    execFileSync('git', ['add', 'package.json'], { cwd: repo })
    mkdirSync(dirname(join(repo, file)), { recursive: true })
    writeFileSync(join(repo, file), content)
    const result = await verify('marker', join(repo, file))
    expectRefusedBeforeRunning(result, join(repo, file), refusal)
    expect(readFileSync(join(repo, file), 'utf8')).toBe(content)
  })

  it('a report aimed at a file git tracks: refused, left as it was', async () => {
    const repo = mkdtempSync(join(work, 'repo-'))
    execFileSync('git', ['init', '-q'], { cwd: repo })
    writeFileSync(join(repo, 'NOTES.md'), '# keep me\n')
    execFileSync('git', ['add', 'NOTES.md'], { cwd: repo })
    const notes = join(repo, 'NOTES.md')
    const result = await verify('marker', join(work, 'report-evidence.json'), { args: ['--reporter', 'default', '--reporter', `markdown=${notes}`] })
    expectRefusedBeforeRunning(result, notes, /git tracks that file, and the report would replace it/)
    expect(readFileSync(notes, 'utf8')).toBe('# keep me\n')
  })

  it.each([
    { name: 'an untracked package.json (before the first commit)', reporter: 'json', file: 'package.json', content: '{ "name": "keep-me" }\n', git: true },
    { name: 'a source file outside git', reporter: 'markdown', file: 'src/index.js', content: 'console.log("keep me")\n', git: false },
    { name: "a check's log", reporter: 'junit', file: '.verify/logs/build.log', content: 'built\n', git: false },
  ])('a report aimed at $name: refused, left as it was', async ({ reporter, file, content, git }) => {
    const dir = mkdtempSync(join(work, 'own-'))
    if (git) execFileSync('git', ['init', '-q'], { cwd: dir })
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), content)
    const result = await verify('marker', join(work, 'report-evidence.json'), {
      args: ['--reporter', 'default', '--reporter', `${reporter}=${join(dir, file)}`],
    })
    expectRefusedBeforeRunning(result, join(dir, file), /that file is not a report verify wrote, and the report would replace it/)
    expect(readFileSync(join(dir, file), 'utf8')).toBe(content)
  })

  it('a report verify wrote (or an empty file) is replaced by the next run', async () => {
    const dir = mkdtempSync(join(work, 'reports-'))
    writeFileSync(join(dir, 'empty.xml'), '')
    const args = [
      '--reporter',
      'default',
      '--reporter',
      `junit=${join(dir, 'junit.xml')}`,
      '--reporter',
      `markdown=${join(dir, 'summary.md')}`,
      '--reporter',
      `agent=${join(dir, 'agent.txt')}`,
    ]
    for (const round of [1, 2]) {
      const result = await verify('marker', join(work, `report-rounds-${round}.json`), { args })
      expect(result.code, diagnose(result)).toBe(0)
      rmSync(join(work, 'marker.ran'), { force: true })
    }
    const empty = await verify('marker', join(work, 'report-empty.json'), { args: ['--reporter', 'default', '--reporter', `junit=${join(dir, 'empty.xml')}`] })
    expect(empty.code, diagnose(empty)).toBe(0)
    rmSync(join(work, 'marker.ran'), { force: true })
    for (const report of ['junit.xml', 'summary.md', 'agent.txt', 'empty.xml'])
      expect(readFileSync(join(dir, report), 'utf8')).toMatch(/<testsuites name="verify"|verify: approved|verify: APPROVED/)
  })

  it('the evidence path is a link to a device (/dev/stdout): refused, the link left as it was', async () => {
    // /dev/stdout of a piped verify: a link to a pipe.
    const pipe = join(work, 'a-pipe')
    execFileSync('mkfifo', [pipe])
    const link = join(work, 'stdout-link.json')
    symlinkSync(pipe, link)
    const result = await verify('marker', link)
    expectRefusedBeforeRunning(result, link, /is a link to something that is not a file/)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
  })

  it('an evidence path that ends with a slash is a folder: the evidence goes into it as evidence.json', async () => {
    const folder = join(work, 'into-this')
    const result = await verify('marker', `${folder}/`)
    expect(result.code, diagnose(result)).toBe(0)
    expect(existsSync(join(folder, 'evidence.json'))).toBe(true)
    rmSync(join(work, 'marker.ran'), { force: true })
  })

  it('the evidence path is a folder', async () => {
    const folder = join(work, 'a-folder.json')
    mkdirSync(folder, { recursive: true })
    const result = await verify('marker', folder)
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toMatch(/is not a file/)
    expect(existsSync(join(work, 'marker.ran'))).toBe(false)
  })
})

describe('output that cannot be written', { timeout: 30_000 }, () => {
  it('stdout to /dev/full: one error line, the evidence still written, the verdict exit code', async () => {
    const evidence = join(work, 'dev-full', 'evidence.json')
    const full = openSync('/dev/full', 'w')
    const child = spawn(process.execPath, [join(PROJECT, '..', '..', 'bin', 'verify.cjs'), 'marker', '--evidence', evidence, '--no-color'], {
      cwd: PROJECT,
      env: { ...process.env, E2E_TMP: join(work, 'dev-full') },
      stdio: ['ignore', full, 'pipe'],
    })
    closeSync(full)
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(code, stderr).toBe(0)
    expect(stderr).toMatch(/^verify: cannot write to standard output \(ENOSPC\)/)
    expect(stderr).not.toMatch(STACK_LINE)
    expect(existsSync(evidence)).toBe(true)
  })
})

// A real full disk: a 1 MiB tmpfs, where the machine lets this process mount one (root, no sandbox refusing it).
const mountPoint = join(work, 'tmpfs')
// Mounted while the file is collected: `skipIf` is decided then.
const mounted = ((): boolean => {
  mkdirSync(mountPoint, { recursive: true })
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'pipe' })
    return true
  } catch (error) {
    const why = String((error as { stderr?: Buffer }).stderr ?? error).trim()
    console.warn(`evidence-location: cannot mount a tmpfs here (${why}); the full-disk path is proved in process by full-disk.test.ts`)
    return false
  }
})()
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mountPoint])
})

function emptyDisk(): void {
  for (const name of ['ev', 'filler']) rmSync(join(mountPoint, name), { recursive: true, force: true })
}

describe('a full disk (1 MiB tmpfs)', { timeout: 30_000 }, () => {
  it.skipIf(!mounted)('full before the run: refused, nothing run', async () => {
    emptyDisk()
    mkdirSync(join(mountPoint, 'filler'))
    try {
      execFileSync('sh', ['-c', `head -c ${2 * MIB} /dev/zero > "${join(mountPoint, 'filler', 'zeros')}"`], { stdio: 'ignore' })
    } catch {
      // "No space left on device": the point.
    }
    const result = await verify('marker', join(mountPoint, 'ev', 'evidence.json'))
    expectRefusedBeforeRunning(result, join(mountPoint, 'ev'), /ENOSPC.*the device is full/)
  })

  it.skipIf(!mounted)('filled by a log during the run: evidence written, log marked truncated, a warning, exit 0', async () => {
    emptyDisk()
    const evidence = join(mountPoint, 'ev', 'evidence.json')
    const result = await verify('disk', evidence)
    expect(result.code, diagnose(result)).toBe(0)
    expect(`${result.stdout}${result.stderr}`).not.toMatch(STACK_LINE)
    const file = JSON.parse(readFileSync(evidence, 'utf8'))
    const check = file.checks[0]
    expect(check.status).toBe('passed')
    expect(check.evidence.output.bytes).toBe(4 * MIB)
    expect(check.evidence.output.logTruncated).toMatch(/ENOSPC|device was full/)
    expect(file.summary.verdict).toBe('approved')
    expect(file.summary.warnings.join('\n')).toMatch(/log of "loud"/)
    expect(result.stdout).toMatch(/log of "loud"/)
  })

  it.skipIf(!mounted)('filled by a check: the results are printed, then one error, exit 2', async () => {
    emptyDisk()
    mkdirSync(join(mountPoint, 'filler'))
    const result = await verify('disk-filler', join(mountPoint, 'ev', 'evidence.json'), { env: { FILL_FILE: join(mountPoint, 'filler', 'zeros') } })
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stdout).toMatch(/1 passed/)
    expect(result.stdout).toMatch(/Verdict\s+APPROVED/)
    // The summary does not name the file as if it held them.
    expect(result.stdout).toMatch(/Evidence not saved to .*evidence\.json \(see below\)/)
    expect(result.stderr).toMatch(/^verify: cannot write the evidence at .*ENOSPC.*the results above are not saved; free some space/)
    expect(`${result.stdout}${result.stderr}`).not.toMatch(STACK_LINE)
  })
})
