// Manual approvals (SPEC §8): `verify approve` records who approved a manual check, bound to the code and to the
// check's definition; a change to either makes it stale, the clock does not. `verify run` offers to approve only
// to a person at a terminal. fixtures/validity-manual: `build` (a command) and `review` (manual).
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { cli } from '../../src/cli/main.js'
import type { CliIO } from '../../src/cli/io.js'
import { BIN, cleanup, diagnose, STACK_LINE } from '../helpers/cli.js'
import { evidenceFileSchema } from '../../src/evidence/schema.js'
import { checkLine, project, removeProjects, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const SHA = /^sha256:[0-9a-f]{64}$/

/** A git project after a run: build passed, review waiting for approval. */
async function waiting(): Promise<Project> {
  const p = project('validity-manual', { git: true })
  const run = await p.verify('run')
  expect(run.code, diagnose(run)).toBe(3)
  expect(p.check('review').status).toBe('pending_manual')
  return p
}

async function approved(): Promise<Project> {
  const p = await waiting()
  const approve = await p.verify('approve', ['review', '--by', 'Ann Reviewer', '--note', 'read the design change'])
  expect(approve.code, diagnose(approve)).toBe(0)
  return p
}

describe.concurrent('verify approve', { timeout: 90_000 }, () => {
  it('keeps the evidence file valid when other checks have no evidence (skipped after a failed dependency)', async () => {
    const p = project('validity-manual')
    p.write('verify.config.ts', `export default { checks: { a: 'false', b: { command: 'true', dependsOn: ['a'] }, review: { manual: 'look' } } }\n`)
    expect((await p.verify('run')).code).toBe(1)
    const approve = await p.verify('approve', ['review', '--by', 'Ann'])
    expect(approve.code, diagnose(approve)).toBe(0)
    expect(evidenceFileSchema.safeParse(JSON.parse(readFileSync(p.evidencePath, 'utf8'))).success).toBe(true)
    expect(p.check('b').status).toBe('skipped')
    expect(p.check('review').status).toBe('passed')
    // The file is still readable evidence: a recorded failure bound to this code rejects.
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(1)
  })

  it('records who approved, the note, and what the approval is bound to; `verify check` then approves', async () => {
    const p = await approved()
    const stored = JSON.parse(readFileSync(p.approvalsPath, 'utf8'))
    expect(stored.approvals.review).toEqual({
      // The check it was given for: signed with the rest, so it cannot be moved to another check.
      checkId: 'review',
      by: 'Ann Reviewer',
      note: 'read the design change',
      timestamp: expect.any(String),
      fingerprint: expect.stringMatching(SHA),
      checkDigest: expect.stringMatching(SHA),
      evidenceType: 'architect_approval',
      // Spawned without a terminal: recorded, so that `approvals: 'tty'` can tell it from a person's.
      tty: false,
    })
    expect(Math.abs(Date.parse(stored.approvals.review.timestamp) - Date.now())).toBeLessThan(60_000)
    // The evidence file is kept in step: the approval is the review's evidence.
    expect(p.check('review')).toMatchObject({
      status: 'passed',
      evidence: expect.objectContaining({ type: 'architect_approval', passed: true, approval: { by: 'Ann Reviewer', note: 'read the design change' } }),
    })
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(0)
    expect(checkLine(check.stdout, 'review')).toMatch(/valid.*by Ann Reviewer/)
  })

  it('a code change makes the approval stale (exit 3), and says to approve again', async () => {
    const p = await approved()
    p.write('src/app.ts', 'export const app = "changed after review"\n')
    const check = await p.verify('check', ['--json'])
    expect(check.code, diagnose(check)).toBe(3)
    const judged = JSON.parse(check.stdout)
    const review = judged.checks.find((c: { id: string }) => c.id === 'review')
    expect(review.status).toBe('stale')
    expect(review.reason).toMatch(/code changed.*src\/app\.ts/)
    // A manual check cannot be re-run: the way forward is a new approval.
    const advice = judged.summary.recommendations.filter((r: string) => r.includes('review'))
    expect(advice).toEqual([expect.stringContaining('verify approve review')])
  })

  it('an approval does not expire with maxAge (people do not re-approve every five minutes)', async () => {
    const p = await approved()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const check = await p.verify('check', ['--json', '--max-age', '1ms'])
    expect(check.code).toBe(3)
    const checks = JSON.parse(check.stdout).checks as { id: string; status: string }[]
    expect(checks.find((c) => c.id === 'review')?.status).toBe('passed')
    expect(checks.find((c) => c.id === 'build')?.status).toBe('stale')
  })

  it("changing the manual check's instructions makes the approval stale as a changed definition", async () => {
    const p = await approved()
    p.write('verify.config.ts', p.read('verify.config.ts').replace('has read the design change', 'has read the design change and the threat model'))
    const check = await p.verify('check', ['--json'])
    expect(check.code).toBe(3)
    const review = JSON.parse(check.stdout).checks.find((c: { id: string }) => c.id === 'review')
    expect(review.status).toBe('stale')
    expect(review.issues.join('\n')).toMatch(/definition changed/)
  })

  it('an unknown check id is a usage error (exit 2) that lists the manual checks; nothing is recorded', async () => {
    const p = await waiting()
    const result = await p.verify('approve', ['reveiw'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('"reveiw"')
    expect(result.stderr).toContain('review')
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(existsSync(p.approvalsPath)).toBe(false)
  })

  it('a check of another protocol: the usage error names the other protocols and --protocol', async () => {
    const p = await waiting()
    p.write(
      'verify.config.ts',
      `${p.read('verify.config.ts').replace('export default defineProtocol({', 'const first = defineProtocol({')}\nexport default { protocols: { default: first, deploy: { checks: { signoff: { evidenceType: 'manual_approval', manual: 'Ops signs off' } } } } }\n`,
    )
    const result = await p.verify('approve', ['signoff'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('No check "signoff" in protocol "default"')
    expect(result.stderr).toContain('For a check of another protocol (deploy), pass `--protocol <name>`.')
    expect((await p.verify('approve', ['signoff', '--protocol', 'deploy', '--by', 'Ada'])).code).not.toBe(2)
  })

  it('approving a command check is a usage error (exit 2) that says how to prove it instead', async () => {
    const p = await waiting()
    const result = await p.verify('approve', ['build', '--by', 'Mallory'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/"build" is a command check/)
    expect(result.stderr).toContain('--only build')
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(existsSync(p.approvalsPath)).toBe(false)
    expect(p.check('build').evidence?.approval).toBeUndefined()
  })

  it('the approve command that run and check recommend carries their --config and --evidence, and works as printed', async () => {
    const p = project('validity-manual', { git: true })
    p.write('cfgs/ci.config.ts', p.read('verify.config.ts').replace("'sh bin/count.sh'", "'sh ../bin/count.sh'"))
    const given = ['--config', 'cfgs/ci.config.ts', '--evidence', 'out/ev.json']
    const run = await p.verify('run', given)
    const check = await p.verify('check', given)
    for (const output of [run.stdout, check.stdout])
      expect(output).toContain('`npx verify approve review --by <name> --config cfgs/ci.config.ts --evidence out/ev.json`')
    const printed = /`npx verify (approve [^`]*)`/.exec(check.stdout)?.[1]?.replace('<name>', 'Ada').split(' ') ?? []
    expect((await p.verify(printed[0] as string, printed.slice(1))).code).toBe(0)
    expect((await p.verify('check', given)).code).toBe(0)
  })

  it('a run after the approval runs the command checks and counts the approved manual check as passed', async () => {
    const p = await approved()
    const run = await p.verify('run')
    expect(run.code, diagnose(run)).toBe(0)
    expect(p.executions()).toEqual(['build', 'build'])
    expect(p.check('review')).toMatchObject({
      status: 'passed',
      evidence: expect.objectContaining({ approval: expect.objectContaining({ by: 'Ann Reviewer' }) }),
    })
    expect(p.evidence().summary.verdict).toBe('approved')
  })
})

describe.concurrent('no prompt without a person at a terminal', { timeout: 90_000 }, () => {
  it('`verify run` with stdin an open pipe that never ends finishes (exit 3) and asks nothing', async () => {
    const p = project('validity-manual', { git: true })
    const env: NodeJS.ProcessEnv = { ...process.env, VALIDITY_COUNTER: p.counter, NO_COLOR: '1' }
    delete env.CI
    const child = spawn(process.execPath, [BIN, 'run'], { cwd: p.dir, env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    const deadline = setTimeout(() => child.kill('SIGKILL'), 20_000)
    const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)))
    clearTimeout(deadline)
    expect(code, stdout).toBe(3)
    expect(stdout).not.toMatch(/Approve "/)
    expect(p.check('review').status).toBe('pending_manual')
  })
})

/** An in-process CLI whose terminal is scripted: `answers` are typed in order at each prompt. */
function terminal(p: Project, options: { tty: boolean; env?: Record<string, string>; answers?: string[] }) {
  const asked: string[] = []
  const answers = [...(options.answers ?? [])]
  let output = ''
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', VALIDITY_COUNTER: p.counter, ...options.env }
  for (const name of ['CI', 'GITHUB_ACTIONS', 'VERIFY_SIGNING_KEY']) if (!options.env?.[name]) delete env[name]
  const io: CliIO = {
    stdout: (text) => (output += text),
    stderr: (text) => (output += text),
    env,
    cwd: p.dir,
    isTTY: options.tty,
    prompt: async (question) => {
      asked.push(question)
      return answers.shift() ?? ''
    },
  }
  return { io, asked, output: () => output }
}

describe('the approval prompt of `verify run` (in process, scripted terminal)', { timeout: 90_000 }, () => {
  it('at a terminal, offers to approve the pending manual check and records the answer', async () => {
    const p = project('validity-manual', { git: true })
    const t = terminal(p, { tty: true, answers: ['y', 'Pat at the terminal'] })
    const code = await cli(['run'], t.io)
    expect(code, t.output()).toBe(0)
    expect(t.asked[0]).toMatch(/Approve "review"/)
    expect(t.asked[0]).toContain('A reviewer has read the design change')
    expect(p.check('review')).toMatchObject({ status: 'passed', evidence: expect.objectContaining({ approval: { by: 'Pat at the terminal', note: null } }) })
    expect(JSON.parse(readFileSync(p.approvalsPath, 'utf8')).approvals.review.by).toBe('Pat at the terminal')
  })

  it('an answer other than yes leaves it pending (exit 3)', async () => {
    const p = project('validity-manual', { git: true })
    const t = terminal(p, { tty: true, answers: ['no'] })
    expect(await cli(['run'], t.io)).toBe(3)
    expect(t.asked).toHaveLength(1)
    expect(p.check('review').status).toBe('pending_manual')
    expect(existsSync(p.approvalsPath)).toBe(false)
  })

  it.each([
    ['in CI', { tty: true, env: { CI: 'true' } }, []],
    ['with --no-interactive', { tty: true }, ['--no-interactive']],
    ['when stdout is not a terminal', { tty: false }, []],
  ] as const)('never asks %s', async (_when, options, flags) => {
    const p = project('validity-manual', { git: true })
    const t = terminal(p, { ...options, answers: ['y', 'Nobody'] })
    expect(await cli(['run', ...flags], t.io)).toBe(3)
    expect(t.asked).toEqual([])
    expect(p.check('review').status).toBe('pending_manual')
  })
})
