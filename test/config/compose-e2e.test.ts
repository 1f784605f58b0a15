// End to end (the built CLI): a preset published as a package folder in a fixture's node_modules is extended,
// overridden and trimmed; protocol inheritance runs; the strict preset's checks run after the others.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, fixture, readEvidence, ROOT, runCli, sandbox } from '../helpers/cli.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-compose-e2e-'))
afterAll(async () => {
  await cleanup()
  rmSync(tmp, { recursive: true, force: true })
})

describe('a preset package (fixtures/compose-package)', () => {
  it('runs the merged protocol: the override ran, the trimmed check did not, the preset timeout held', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['run'], { cwd: fixture('compose-package') })
    expect(result.code, diagnose(result)).toBe(0)
    const evidence = box.evidence()
    expect(evidence.checks.map((c) => [c.id, c.status])).toEqual([
      ['audit', 'passed'],
      ['build', 'passed'],
      ['test', 'passed'],
      ['docs', 'passed'],
    ])
    expect(evidence.summary.verdict).toBe('approved')
    // The project's command replaced the preset's failing one; the preset's evidence type stayed.
    expect(box.check('test')).toMatchObject({ name: 'Unit tests', evidenceType: 'test_pass' })
    expect(box.check('test').evidence?.output.text).toContain('project tests ok')
    expect(box.check('build').evidence?.output.text).toContain('preset build ok')
    expect(evidence.checks.some((c) => c.id === 'lint')).toBe(false)
  })
})

describe('protocol inheritance (fixtures/compose-local)', () => {
  it('verify run deploy runs the inherited checks and its own', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['run', 'deploy'], { cwd: fixture('compose-local') })
    expect(result.code, diagnose(result)).toBe(0)
    const evidence = box.evidence()
    expect(evidence.protocol).toMatchObject({ name: 'deploy', strictMode: true })
    expect(evidence.checks.map((c) => c.id)).toEqual(['build', 'test', 'lint', 'smoke'])
  })
})

describe('the strict preset in a project', () => {
  const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e', GIT_CONFIG_GLOBAL: '/dev/null' }

  function strictProject(name: string, testScript: string): string {
    const dir = join(tmp, name)
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    symlinkSync(ROOT, join(dir, 'node_modules', 'verify-protocol'), 'dir')
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\n.verify/\n')
    writeFileSync(join(dir, 'test.mjs'), testScript)
    writeFileSync(
      join(dir, 'verify.config.mjs'),
      `export default {
  extends: ['verify-protocol/presets/strict'],
  killGrace: '500ms',
  checks: { build: 'node -e "console.log(1)"', test: { command: 'node test.mjs', dependsOn: ['build'] } },
}
`,
    )
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env: { ...process.env, ...GIT_ENV } })
    execFileSync('git', ['add', '-A'], { cwd: dir, env: { ...process.env, ...GIT_ENV } })
    execFileSync('git', ['commit', '-qm', 'base'], { cwd: dir, env: { ...process.env, ...GIT_ENV } })
    return dir
  }

  it('error-free runs after every other required check and passes on clean output', async () => {
    const dir = strictProject('clean', 'console.log("12 tests passed")\n')
    const result = await runCli(['run', '--no-color'], { cwd: dir, env: { ...GIT_ENV } })
    expect(result.code, diagnose(result)).toBe(0)
    const evidence = readEvidence(join(dir, '.verify', 'evidence.json'))
    expect(evidence.checks.map((c) => [c.id, c.status])).toEqual([
      ['todo', 'passed'],
      ['error-free', 'passed'],
      ['build', 'passed'],
      ['test', 'passed'],
    ])
    expect(evidence.checks.find((c) => c.id === 'error-free')?.evidence?.output.text).toBe('No errors in the output of todo, build, test.')
  })

  it('a passing test that printed an error with its stack makes error-free fail, and strictMode rejects', async () => {
    const dir = strictProject('noisy', 'console.error(new Error("connection refused"))\nconsole.log("12 tests passed")\n')
    const result = await runCli(['run', '--no-color'], { cwd: dir, env: { ...GIT_ENV } })
    expect(result.code, diagnose(result)).toBe(1)
    expect(result.stdout).toMatch(/test\.log:\d+: \[error with a stack trace\] Error: connection refused/)
  })
})
