// `verify run` on fixture projects — the evidence file's contract (SPEC §5), verdicts and exit codes (§6.2), reporters
// and the informational flags (§9). In process, but for one spawned run and the bin's own --version and --help.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, ROOT, runCli, sandbox, sha256Hex, STACK_LINE } from '../helpers/cli.js'

afterAll(cleanup)

const formerBin = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin', 'verify.mjs'), ...args], { encoding: 'utf8', timeout: 20_000 })

const SHA = /^sha256:[0-9a-f]{64}$/
const HEX64 = /^[0-9a-f]{64}$/
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

function expectIsoTime(value: unknown): number {
  expect(typeof value).toBe('string')
  const ms = Date.parse(value as string)
  expect(new Date(ms).toISOString()).toBe(value)
  return ms
}

describe('all checks pass', () => {
  test('exit 0, verdict approved, and every field of the evidence file has its documented type', async () => {
    const box = sandbox()
    // The signing key must never reach a check (SPEC §4); the `env` check prints what it sees.
    const result = await box.run(['--cwd', fixture('all-pass')], { env: { VERIFY_SIGNING_KEY: 'e2e-signing-key-value' } })
    expect(result.stderr).toBe('')
    expect(result.code, diagnose(result)).toBe(0)
    expect(result.stdout).toMatch(/approved/i)
    expect(result.stdout).not.toContain('\x1b')

    const file = box.evidence()
    expect(file.schemaVersion).toBe(1)
    expect(file.tool).toEqual({ name: 'verify-protocol', version: pkg.version })
    expect(file.protocol).toEqual({ name: 'all-pass', digest: expect.stringMatching(SHA), strictMode: false })
    expect(file.workspace.fingerprint).toMatch(SHA)
    // The fixture lives inside the package's git repository.
    expect(file.workspace.git).toEqual({ head: expect.any(String), tree: expect.any(String), dirty: expect.any(Boolean) })
    const started = expectIsoTime(file.startedAt)
    const finished = expectIsoTime(file.finishedAt)
    expect(finished).toBeGreaterThanOrEqual(started)

    expect(file.checks.map((c) => c.id)).toEqual(['build', 'test', 'env', 'smoke'])
    const types: Record<string, string> = { build: 'build_success', test: 'test_pass', env: 'command_success', smoke: 'functionality_verified' }
    for (const check of file.checks) {
      expect(check, check.id).toMatchObject({ status: 'passed', reason: null, required: true, evidenceType: types[check.id] })
      const evidence = check.evidence
      if (!evidence) throw new Error(`${check.id} has no evidence`)
      expect(evidence.type).toBe(types[check.id])
      expect(evidence.passed).toBe(true)
      expect(evidence.signal).toBeNull()
      expect(evidence.timedOut).toBe(false)
      expect(Number.isInteger(evidence.durationMs) && evidence.durationMs >= 0).toBe(true)
      const at = expectIsoTime(evidence.timestamp)
      expect(at).toBeGreaterThanOrEqual(started)
      expect(at).toBeLessThanOrEqual(finished)
      expect(evidence.fingerprint).toBe(file.workspace.fingerprint)
      expect(evidence.checkDigest).toMatch(SHA)
      expect(evidence.output).toEqual({ text: expect.any(String), bytes: expect.any(Number), truncated: false, sha256: expect.stringMatching(HEX64) })
      expect(evidence.output.bytes).toBe(Buffer.byteLength(evidence.output.text))
      expect(evidence.output.sha256).toBe(sha256Hex(evidence.output.text))
      expect(evidence.error).toBeNull()
      expect(typeof evidence.metadata).toBe('object')
    }
    const [build, test_, env, smoke] = file.checks
    expect(build?.name).toBe('build')
    expect(build?.evidence).toMatchObject({ command: 'sh ../bin/exit.sh 0 "built ok"', exitCode: 0, metadata: {} })
    expect(build?.evidence?.output.text).toBe('built ok\n')
    expect(test_?.name).toBe('Unit tests')
    // The argv form is recorded quoted for a POSIX shell, so the line can be pasted into one.
    expect(test_?.evidence).toMatchObject({ command: `sh ../bin/exit.sh 0 'tests ok' 'second line'`, exitCode: 0 })
    expect(test_?.evidence?.output.text).toBe('tests ok\nsecond line\n')
    expect(env?.evidence?.output.text).toBe(`check=env run=${file.runId} key=unset\n`)
    expect(smoke?.evidence).toMatchObject({ command: null, exitCode: null, metadata: { answer: 42 } })
    expect(smoke?.evidence?.output.text).toBe('function smoke ok')
    // Distinct definitions, distinct digests.
    expect(new Set(file.checks.map((c) => c.evidence?.checkDigest)).size).toBe(4)

    expect(file.summary).toMatchObject({ total: 4, passed: 4, failed: 0, skipped: 0, pending: 0, verdict: 'approved', issues: [], recommendations: [] })
    expect(file.interrupted).toBeUndefined()
    expect(JSON.stringify(file)).not.toContain('e2e-signing-key-value')

    // The full output of each check is logged beside the evidence.
    expect(readFileSync(join(box.logDir, 'build.log'), 'utf8')).toBe('built ok\n')
    expect(readFileSync(join(box.logDir, 'test.log'), 'utf8')).toBe('tests ok\nsecond line\n')
    // Written atomically: no temporary file is left beside the evidence.
    expect(readdirSync(box.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })
})

// A project whose protocol is the "verify" key of its package.json; its one check prints its cwd.
function packageJsonProject(dir: string): string {
  const project = join(dir, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pkg-config', verify: { checks: { where: 'pwd' } } }))
  return realpathSync(project)
}

describe.concurrent('where checks run', () => {
  test('a config in package.json ("verify" key), verify started in that project: checks run in the project', async () => {
    const box = sandbox({ inProcess: true })
    const project = packageJsonProject(box.dir)
    const result = await box.run([], { cwd: project })
    expect(result.code, diagnose(result)).toBe(0)
    expect(box.check('where').evidence?.output.text).toBe(`${project}\n`)
  })

  test('a config in package.json ("verify" key) found through --cwd: checks run in that project, not where verify started', async () => {
    const box = sandbox({ inProcess: true })
    const project = packageJsonProject(box.dir)
    // verify starts in the package root, which has a package.json of its own.
    const result = await box.run(['--cwd', project])
    expect(result.code, diagnose(result)).toBe(0)
    expect(box.check('where').evidence?.output.text).toBe(`${project}\n`)
  })
})

describe.concurrent('verdicts and exit codes', () => {
  test('a failing required check: exit 1, rejected, the issue names the check and its exit code, the tail is printed', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', fixture('required-failure')])
    expect(result.code, diagnose(result)).toBe(1)
    const file = box.evidence()
    expect(file.summary.verdict).toBe('rejected')
    expect(file.summary.failed).toBe(1)
    expect(file.summary.passed).toBe(1)
    expect(box.check('ok').status).toBe('passed')
    const broken = box.check('broken')
    expect(broken.status).toBe('failed')
    expect(broken.reason).toMatch(/exit code 3/)
    expect(broken.evidence).toMatchObject({ passed: false, exitCode: 3, signal: null, timedOut: false, error: null })
    const issue = file.summary.issues.find((i) => i.includes('Broken build'))
    expect(issue).toBeDefined()
    expect(issue).toMatch(/exit code 3/)
    expect(file.summary.recommendations.length).toBeGreaterThan(0)
    // The output's tail is shown with the failure, and the verdict is stated.
    expect(result.stdout).toContain('error TS2304: cannot find name foo')
    expect(result.stdout).toContain('last line of the failure')
    expect(result.stdout).toMatch(/rejected/i)
  })

  test('a failing optional check without strictMode: exit 0, approved, with a warning', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', fixture('optional-failure')])
    expect(result.code, diagnose(result)).toBe(0)
    const file = box.evidence()
    expect(file.summary.verdict).toBe('approved')
    expect(file.protocol.strictMode).toBe(false)
    expect(box.check('lint')).toMatchObject({ status: 'failed', required: false })
    expect(file.summary.issues).toEqual([])
    expect(file.summary.warnings.some((w) => w.includes('lint'))).toBe(true)
    expect(result.stdout).toMatch(/lint/)
  })

  test('a failing optional check under strictMode: exit 1, rejected', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['strict', '--cwd', fixture('optional-failure')])
    expect(result.code, diagnose(result)).toBe(1)
    const file = box.evidence()
    expect(file.protocol).toMatchObject({ name: 'strict', strictMode: true })
    expect(file.summary.verdict).toBe('rejected')
    expect(file.summary.issues.some((i) => i.includes('lint'))).toBe(true)
  })

  test('a required manual check nobody approved: exit 3, incomplete, status pending_manual', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', fixture('manual')])
    expect(result.code, diagnose(result)).toBe(3)
    const file = box.evidence()
    expect(file.summary.verdict).toBe('incomplete')
    expect(box.check('build').status).toBe('passed')
    const review = box.check('review')
    expect(review).toMatchObject({ status: 'pending_manual', evidenceType: 'architect_approval', required: true })
    expect(review.reason).toContain('A reviewer has read the design change')
    expect(file.summary).toMatchObject({ passed: 1, failed: 0, pending: 1 })
    expect(file.summary.recommendations.some((r) => r.includes('approve review'))).toBe(true)
    expect(result.stdout).toMatch(/incomplete/i)
  })
})

describe.concurrent('reporters', () => {
  test('--reporter json prints the evidence as JSON on stdout, and only that', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', fixture('manual'), '--reporter', 'json'])
    expect(result.code, diagnose(result)).toBe(3)
    const printed = JSON.parse(result.stdout) as unknown
    expect(printed).toEqual(box.evidence())
  })

  test('--reporter json=<file> writes the evidence JSON to that file', async () => {
    const box = sandbox({ inProcess: true })
    const report = box.path('reports/verify.json')
    const result = await box.run(['--cwd', fixture('manual'), '--reporter', `json=${report}`])
    expect(result.code, diagnose(result)).toBe(3)
    expect(result.stdout).not.toContain('"schemaVersion"')
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual(box.evidence())
  })

  test('--reporter default --reporter json=<file>: both', async () => {
    const box = sandbox({ inProcess: true })
    const report = box.path('verify.json')
    const result = await box.run(['--cwd', fixture('manual'), '--reporter', 'default', '--reporter', `json=${report}`])
    expect(result.code, diagnose(result)).toBe(3)
    expect(result.stdout).toMatch(/incomplete/i)
    expect(existsSync(report)).toBe(true)
  })
})

describe.concurrent('informational flags', () => {
  test('--version prints the version of package.json', async () => {
    const result = await runCli(['--version'])
    expect(result.code, diagnose(result)).toBe(0)
    expect(result.stdout.trim()).toBe(pkg.version)
  })

  test('the former bin path, bin/verify.mjs, still runs verify: links to it (those npx keeps for a project) keep working', () => {
    expect(formerBin(['--version']).stdout.trim()).toBe(pkg.version)
    const list = formerBin(['list', '--cwd', fixture('all-pass')])
    expect(list.status, list.stderr).toBe(0)
    expect(list.stdout).toContain('protocol all-pass')
  })

  test.each([
    ['no dist/', []],
    ['a dist/ of an earlier build, without the loader', ['cli.cjs']],
  ])('the bin of a package with %s says it is not built (exit 2), never a stack trace', (_case, built) => {
    const pkgDir = mkdtempSync(join(tmpdir(), 'verify-unbuilt-'))
    try {
      cpSync(join(ROOT, 'bin'), join(pkgDir, 'bin'), { recursive: true })
      cpSync(join(ROOT, 'package.json'), join(pkgDir, 'package.json'))
      for (const file of built) cpSync(join(ROOT, 'dist', file), join(pkgDir, 'dist', file))
      const result = spawnSync(process.execPath, [join(pkgDir, 'bin', 'verify.cjs'), 'check'], { encoding: 'utf8', timeout: 20_000 })
      expect(result.status).toBe(2)
      expect(result.stderr).toMatch(/^verify: the package is not built .*npm run build/)
      expect(result.stderr).not.toMatch(STACK_LINE)
    } finally {
      rmSync(pkgDir, { recursive: true, force: true })
    }
  })

  test('--help prints the usage and exits 0', async () => {
    const result = await runCli(['--help'])
    expect(result.code, diagnose(result)).toBe(0)
    expect(result.stdout).toMatch(/usage/i)
    expect(result.stdout).toContain('--fail-fast')
    expect(result.stderr).toBe('')
  })

  test('a command after flags is still the command (`verify --no-color check`), and a flag value is never one', async () => {
    const box = sandbox({ inProcess: true })
    // sandbox.run appends --evidence <tmp> --no-color: nothing is recorded there, so `check` answers incomplete.
    const check = await box.run(['--cwd', fixture('manual'), 'check'])
    expect(check.code, diagnose(check)).toBe(3)
    expect(check.stdout).toContain('no evidence at')
    // `--cwd check`: "check" is the folder, so this is a run (of a folder that does not exist), not the command.
    const run = await box.run(['--cwd', 'check'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/check is not a folder/)
  })

  test('verify run --help exits 0 without running anything', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['run', '--help', '--cwd', fixture('manual')])
    expect(result.code, diagnose(result)).toBe(0)
    expect(result.stdout).toMatch(/usage/i)
    expect(existsSync(box.evidencePath)).toBe(false)
  })
})
