// `verify list [protocol] [--json]`: the resolved protocol(s) after every layer, by spawning the built CLI.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ListOutput } from '../../src/cli/list.js'
import { cleanup, diagnose, fixture, ROOT, runCli, STACK_LINE } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'

afterAll(cleanup)

async function listJson(args: string[], cwd: string, env?: Record<string, string>): Promise<ListOutput> {
  const result = await runCliInProcess(['list', '--json', ...args], { cwd, ...(env ? { env } : {}) })
  expect(result.code, diagnose(result)).toBe(0)
  expect(result.stderr).toBe('')
  return JSON.parse(result.stdout) as ListOutput
}

describe('verify list --json', () => {
  it('has every field of the documented format for each check', async () => {
    const output = await listJson([], fixture('compose-package'))
    expect(output.listVersion).toBe(1)
    expect(output.configFile).toBe(join(fixture('compose-package'), 'verify.config.ts'))
    expect(output.rootDir).toBe(fixture('compose-package'))
    expect(output.layers.map((l) => l.label)).toEqual(['node_modules/@acme/verify-preset/src/shared/base.mjs', '@acme/verify-preset', 'verify.config.ts'])
    expect(output.layers[1]).toEqual({
      label: '@acme/verify-preset',
      file: join(fixture('compose-package'), 'node_modules/@acme/verify-preset/src/index.mjs'),
      chain: ['verify.config.ts', '@acme/verify-preset'],
    })
    const [protocol] = output.protocols
    expect(Object.keys(protocol ?? {})).toEqual([
      'name',
      'description',
      'strictMode',
      'parallel',
      'concurrency',
      'failFast',
      'skipOptional',
      'timeoutMs',
      'maxAgeMs',
      'checks',
    ])
    expect(protocol?.checks.map((c) => c.id)).toEqual(['audit', 'build', 'test', 'docs'])
    expect(protocol?.checks[2]).toEqual({
      id: 'test',
      name: 'Unit tests',
      description: null,
      evidenceType: 'test_pass',
      required: true,
      kind: 'command',
      command: 'sh ../bin/exit.sh 0 "project tests ok"',
      manual: null,
      dependsOn: ['build'],
      timeoutMs: 90_000,
      retries: 0,
      cwd: '.',
      inputs: null,
      layers: ['@acme/verify-preset', 'verify.config.ts'],
    })
  })

  it('lists every protocol of a defineConfig, or the one named', async () => {
    const all = await listJson([], fixture('compose-local'))
    expect(all.protocols.map((p) => p.name)).toEqual(['default', 'deploy'])
    const deploy = await listJson(['deploy'], fixture('compose-local'))
    expect(deploy.protocols.map((p) => [p.name, p.strictMode, p.checks.map((c) => c.id)])).toEqual([['deploy', true, ['build', 'test', 'lint', 'smoke']]])
  })

  it('shows kinds, manual instructions and argv commands', async () => {
    const output = await listJson([], fixture('all-pass'))
    const kinds = Object.fromEntries(output.protocols[0]?.checks.map((c) => [c.id, [c.kind, c.command]]) ?? [])
    expect(kinds.smoke).toEqual(['function', null])
    expect(kinds.test?.[0]).toBe('command')
    expect(Array.isArray(kinds.test?.[1])).toBe(true)
    const manual = await listJson([], fixture('manual'))
    expect(manual.protocols[0]?.checks.find((c) => c.kind === 'manual')?.manual).toEqual(expect.any(String))
  })

  it('reflects $env overrides for the environment verify runs in', async () => {
    const staging = await listJson([], fixture('compose-env'), { VERIFY_ENV: 'staging' })
    expect(staging.protocols[0]?.checks.map((c) => c.id)).toEqual(['build', 'test', 'smoke'])
  })
})

describe('verify list (text)', () => {
  it('prints the layers, the options and one row per check with where it came from', async () => {
    const result = await runCliInProcess(['list'], { cwd: fixture('compose-package') })
    expect(result.code, diagnose(result)).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines[0]).toBe('config: verify.config.ts')
    expect(lines[1]).toMatch(/^layers: node_modules\/@acme\/verify-preset\/src\/shared\/base\.mjs → @acme\/verify-preset → verify\.config\.ts/)
    expect(result.stdout).toMatch(/protocol default\n {2}not strict · parallel \(\d+\) · timeout 2m · maxAge 5m/)
    expect(result.stdout).toMatch(/^ {2}id +type +required +kind +depends on +timeout +from +command$/m)
    expect(result.stdout).toMatch(
      /^ {2}test +test_pass +yes +command +build +1\.5m +@acme\/verify-preset → verify\.config\.ts +sh \.\.\/bin\/exit\.sh 0 "project tests ok"$/m,
    )
    expect(result.stdout).toMatch(/^ {2}audit +security_verified +no +command/m)
  })

  it("works on the project's own config", async () => {
    // Spawned: `verify list` as the bin runs it.
    const result = await runCli(['list'], { cwd: ROOT })
    expect(result.code, diagnose(result)).toBe(0)
    expect(result.stdout).toMatch(/^ {2}build +build_success/m)
  })
})

describe('verify list errors', () => {
  it('a broken preset chain is a config error: exit 2, one paragraph, no stack', async () => {
    const result = await runCliInProcess(['list', '--config', join(fixture('compose-errors'), 'cycle.config.mjs')])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^verify: `extends` has a cycle/)
    expect(result.stderr).toContain('cycle.config.mjs → presets/cycle-a.mjs → presets/cycle-b.mjs → presets/cycle-a.mjs')
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(result.stdout).toBe('')
  })

  it('an unknown protocol, and too many arguments, exit 2', async () => {
    const unknown = await runCliInProcess(['list', 'staging'], { cwd: fixture('compose-local') })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/No protocol "staging"/)
    expect((await runCliInProcess(['list', 'a', 'b'], { cwd: fixture('compose-local') })).code).toBe(2)
    // `verify version` is meant as the flag.
    const version = await runCliInProcess(['version'], { cwd: fixture('compose-local') })
    expect(version.code).toBe(2)
    expect(version.stderr).toContain("for verify's version, run `verify --version`")
  })

  it('--help prints the usage', async () => {
    const result = await runCliInProcess(['list', '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^verify list \[protocol\] \[--json\]/)
  })
})
