// End to end: checks that cannot run at all (SPEC §4) — a missing binary in argv and shell form, a bad cwd,
// a function that throws — are `error` with a reason a user can act on, and the run goes on.
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, sandbox, STACK_LINE } from '../helpers/cli.js'

afterAll(cleanup)

describe('checks that cannot run', () => {
  test('each is `error` with a clear reason, the other checks still run, the verdict is rejected', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['--cwd', fixture('errors')])
    expect(result.killedByTest).toBe(false)
    expect(result.code, diagnose(result)).toBe(1)
    const file = box.evidence()
    expect(file.summary.verdict).toBe('rejected')

    const argv = box.check('missing-argv')
    expect(argv.status).toBe('error')
    expect(argv.reason).toContain('verify-e2e-no-such-binary')
    expect(argv.reason).toMatch(/not found/)
    expect(argv.evidence).toMatchObject({ passed: false, exitCode: null, error: argv.reason })

    const shell = box.check('missing-shell')
    expect(shell.status).toBe('error')
    expect(shell.reason).toMatch(/not find|not found/)
    expect(shell.evidence?.error).toBe(shell.reason)
    // The shell's own complaint, naming the command, is kept in the output.
    expect(shell.evidence?.output.text).toContain('verify-e2e-no-such-binary')

    const cwd = box.check('bad-cwd')
    expect(cwd.status).toBe('error')
    expect(cwd.reason).toContain('no-such-folder')
    expect(cwd.reason).toMatch(/does not exist/)
    expect(cwd.evidence?.error).toBe(cwd.reason)

    const throws = box.check('throws')
    expect(throws.status).toBe('error')
    expect(throws.reason).toContain('boom from the check')
    expect(throws.evidence?.error).toBe(throws.reason)

    const ok = box.check('ok')
    expect(ok.status).toBe('passed')
    expect(ok.evidence?.output.text).toBe('still ran\n')

    expect(file.summary).toMatchObject({ total: 5, passed: 1, failed: 4 })
    for (const id of ['missing-argv', 'missing-shell', 'bad-cwd', 'throws']) {
      expect(
        file.summary.issues.some((i) => i.includes(id)),
        id,
      ).toBe(true)
    }
    // A thrown error is reported in words, never as a stack trace.
    expect(result.stdout).not.toMatch(STACK_LINE)
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(JSON.stringify(file)).not.toMatch(/\\n\s+at /)
  })
})
