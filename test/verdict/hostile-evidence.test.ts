// Hostile evidence files (issue 8 §7, issue 9 item 6): ids such as `constructor` and `__proto__` are ordinary ids;
// a field nested a million levels deep is "not a valid evidence file" (exit 3 for `check`, a re-run for `--reuse`),
// never a stack overflow; an approvals.json that is not approvals is refused by name (exit 2) and left as it is;
// `approve` writes both of its files or neither; reading evidence is bounded in memory;
// `run --reuse` over a FIFO re-runs everything with a warning.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, ROOT, STACK_LINE } from '../helpers/cli.js'
import { editEvidence, project, removeProjects, verifyInProcess, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const DEEP = 1_000_000

/** The stored evidence with `metadata.x` of the first check nested `DEEP` arrays deep, written as raw text. */
function nestDeep(p: Project): void {
  const text = JSON.stringify(p.evidence()).replace('"metadata":{}', `"metadata":{"x":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`)
  expect(text.length).toBeGreaterThan(2 * DEEP)
  writeFileSync(p.evidencePath, text)
}

describe('check ids that name Object.prototype members are ordinary ids', { timeout: 90_000 }, () => {
  const CONFIG = `export default { checks: { constructor: { manual: 'look' }, to_string: 'sh bin/count.sh', has_own_property: { manual: 'look' } } }\n`

  it('a manual check called `constructor` waits for its approval, then is approved by it', async () => {
    const p = project('validity-manual', { git: true })
    p.write('verify.config.ts', CONFIG)
    const run = await verifyInProcess(p, ['run'])
    expect(run.code).toBe(3)
    expect(p.check('constructor').status).toBe('pending_manual')
    const check = await verifyInProcess(p, ['check', '--json'])
    const json = JSON.parse(check.stdout) as { checks: { id: string; status: string }[] }
    expect(json.checks.find((c) => c.id === 'constructor')?.status).toBe('pending_manual')
    expect((await verifyInProcess(p, ['approve', 'constructor', '--by', 'Ann'])).code).toBe(0)
    expect((await verifyInProcess(p, ['approve', 'has_own_property', '--by', 'Ann'])).code).toBe(0)
    expect(p.check('constructor').status).toBe('passed')
    expect((await verifyInProcess(p, ['check'])).code).toBe(0)
  })

  it('an approvals.json holding `__proto__` and `toString` keys approves nothing it does not name', async () => {
    const p = project('validity-manual', { git: true })
    p.write('verify.config.ts', CONFIG)
    expect((await verifyInProcess(p, ['run'])).code).toBe(3)
    const approval = {
      by: 'x',
      note: null,
      timestamp: new Date().toISOString(),
      fingerprint: 'sha256:0',
      checkDigest: 'sha256:0',
      evidenceType: 'manual_approval',
    }
    writeFileSync(p.approvalsPath, `{"schemaVersion":1,"approvals":{"__proto__":${JSON.stringify(approval)},"toString":${JSON.stringify(approval)}}}\n`)
    const check = await verifyInProcess(p, ['check', '--json'])
    expect(check.code).toBe(3)
    const json = JSON.parse(check.stdout) as { checks: { id: string; status: string }[] }
    expect(json.checks.find((c) => c.id === 'constructor')?.status).toBe('pending_manual')
    // An approval recorded afterwards keeps the file readable and its keys intact.
    expect((await verifyInProcess(p, ['approve', 'constructor', '--by', 'Ann'])).code).toBe(0)
    const approvals = JSON.parse(readFileSync(p.approvalsPath, 'utf8')) as { approvals: Record<string, unknown> }
    expect(['__proto__', 'toString', 'constructor'].map((id) => Object.hasOwn(approvals.approvals, id))).toEqual([true, true, true])
  })

  it('an approvals.json whose `__proto__` or `toString` entry is not an approval is refused, named, and left as it is', async () => {
    const p = project('validity-manual', { git: true })
    p.write('verify.config.ts', CONFIG)
    expect((await verifyInProcess(p, ['run'])).code).toBe(3)
    const text = '{"schemaVersion":1,"approvals":{"__proto__":{"by":"x"},"toString":7}}\n'
    writeFileSync(p.approvalsPath, text)
    for (const argv of [['check'], ['approve', 'constructor', '--by', 'Ann']]) {
      const result = await verifyInProcess(p, argv)
      expect(result.code, result.stdout + result.stderr).toBe(2)
      expect(result.stderr).toMatch(/approvals\.json is not a valid approvals file \(approvals\.(__proto__|toString)/)
    }
    expect(readFileSync(p.approvalsPath, 'utf8')).toBe(text)
  })

  it('evidence entries with ids `__proto__` and `constructor` are judged like any other', async () => {
    const p = project('validity-corrupt')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    editEvidence(p, (file) => {
      const [ok] = file.checks
      file.checks.push({ ...(ok as (typeof file.checks)[number]), id: '__proto__' }, { ...(ok as (typeof file.checks)[number]), id: 'constructor' })
    })
    const check = await verifyInProcess(p, ['check'])
    expect(check.code, check.stdout + check.stderr).toBe(0)
    expect(check.stderr).toBe('')
  })
})

describe('a field nested a million levels deep', { timeout: 90_000 }, () => {
  it('verify check: "not a valid evidence file", exit 3, no stack overflow', async () => {
    const p = project('validity-corrupt')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    nestDeep(p)
    const check = await verifyInProcess(p, ['check'])
    expect(check.code, check.stdout + check.stderr).toBe(3)
    expect(check.stdout).toMatch(/not a valid evidence file/)
    expect(check.stdout + check.stderr).not.toMatch(/call stack/i)
  })

  it('run --reuse: re-runs every check and writes good evidence', async () => {
    const p = project('validity-corrupt')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    nestDeep(p)
    const run = await verifyInProcess(p, ['run', '--reuse'])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(p.executions()).toEqual(['ok', 'ok'])
    expect((await verifyInProcess(p, ['check'])).code).toBe(0)
  })

  it('approve: records the approval, leaves the unreadable evidence untouched, and does not crash', async () => {
    const p = project('validity-manual', { git: true })
    expect((await verifyInProcess(p, ['run'])).code).toBe(3)
    nestDeep(p)
    const before = readFileSync(p.evidencePath, 'utf8')
    const approve = await verifyInProcess(p, ['approve', 'review', '--by', 'Ann'])
    expect(approve.code, approve.stdout + approve.stderr).toBe(0)
    expect(approve.stdout + approve.stderr).not.toMatch(/call stack|unexpected error/i)
    expect(readFileSync(p.evidencePath, 'utf8')).toBe(before)
    expect(JSON.parse(readFileSync(p.approvalsPath, 'utf8')).approvals.review.by).toBe('Ann')
  })

  it('approve writes nothing when one of its two files cannot be written', async () => {
    const p = project('validity-manual', { git: true })
    expect((await verifyInProcess(p, ['run'])).code).toBe(3)
    const before = readFileSync(p.evidencePath, 'utf8')
    mkdirSync(p.approvalsPath)
    const approve = await verifyInProcess(p, ['approve', 'review', '--by', 'Ann'])
    expect(approve.code).toBe(2)
    expect(approve.stderr).not.toMatch(/unexpected error/)
    expect(approve.stderr).toMatch(/approvals\.json/)
    expect(readFileSync(p.evidencePath, 'utf8')).toBe(before)
  })
})

describe('a hostile approvals.json', { timeout: 90_000 }, () => {
  it('a note nested a million levels deep approves nothing and crashes nothing: the file is refused by name (exit 2)', async () => {
    const p = project('validity-manual', { git: true })
    expect((await verifyInProcess(p, ['run'])).code).toBe(3)
    expect((await verifyInProcess(p, ['approve', 'review', '--by', 'Ann'])).code).toBe(0)
    const approvals = readFileSync(p.approvalsPath, 'utf8').replace('"note": null', `"note": ${'['.repeat(DEEP)}${']'.repeat(DEEP)}`)
    writeFileSync(p.approvalsPath, approvals)
    const evidence = readFileSync(p.evidencePath, 'utf8')
    for (const command of ['run', 'check']) {
      const result = await verifyInProcess(p, [command])
      expect(result.code, result.stdout + result.stderr).toBe(2)
      expect(result.stderr).toMatch(/approvals file .*approvals\.json is not valid \(/)
      expect(result.stdout + result.stderr).not.toMatch(/call stack|unexpected error/i)
    }
    expect(readFileSync(p.evidencePath, 'utf8')).toBe(evidence)
    expect(readFileSync(p.approvalsPath, 'utf8')).toBe(approvals)
  })
})

describe('reading evidence is bounded', { timeout: 120_000 }, () => {
  it('a 60 MB file of `[` is refused in one line with a small peak memory (spawned: maxRSS of the process)', () => {
    const p = project('validity-corrupt')
    const file = join(p.outside, 'brackets.json')
    writeFileSync(file, '['.repeat(60 * 1000 * 1000))
    const script = `
      const { cli } = await import(${JSON.stringify(join(ROOT, 'dist/cli/main.js'))})
      let out = ''
      const code = await cli(['check', '--evidence', ${JSON.stringify(file)}], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: { ...process.env, NO_COLOR: '1' }, cwd: ${JSON.stringify(p.dir)}, isTTY: false })
      process.stdout.write(JSON.stringify({ code, out, maxRssKiB: process.resourceUsage().maxRSS }))
    `
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 })
    expect(child.status, child.stderr).toBe(0)
    const result = JSON.parse(child.stdout) as { code: number; out: string; maxRssKiB: number }
    expect(result.code).toBe(3)
    expect(result.out).toMatch(/not a valid evidence file/)
    expect(result.out).toMatch(/deeper than/)
    expect(result.out).not.toMatch(STACK_LINE)
    expect(result.maxRssKiB / 1024).toBeLessThan(200)
  })

  it('a file of a million tiny objects is refused before it is parsed', async () => {
    const p = project('validity-corrupt')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    const text = JSON.stringify(p.evidence()).replace('"metadata":{}', `"metadata":{"x":[${Array.from({ length: 1_000_000 }, () => '{}').join(',')}]}`)
    writeFileSync(p.evidencePath, text)
    const check = await verifyInProcess(p, ['check'])
    expect(check.code).toBe(3)
    expect(check.stdout).toMatch(/not a valid evidence file.*values/)
  })
})

describe('run --reuse over an evidence path that is not a regular file', { timeout: 90_000 }, () => {
  it('a FIFO: every check runs, a warning says why, and the run writes its evidence', async () => {
    const p = project('validity-corrupt')
    mkdirSync(p.path('.verify'), { recursive: true })
    execFileSync('mkfifo', [p.evidencePath])
    const run = await verifyInProcess(p, ['run', '--reuse'])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout + run.stderr).toMatch(/not a regular file/)
    expect(p.executions()).toEqual(['ok'])
    expect((await verifyInProcess(p, ['check'])).code).toBe(0)
  })

  it('a folder: a clear usage error before anything runs, since the run could not write its evidence there', async () => {
    const p = project('validity-corrupt')
    mkdirSync(p.evidencePath, { recursive: true })
    const run = await verifyInProcess(p, ['run', '--reuse'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/folder/)
    expect(p.executions()).toEqual([])
  })
})
