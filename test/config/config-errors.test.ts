// End to end: configuration and usage errors (SPEC §3.1, §9). Each exits 2 with one paragraph that says what
// is wrong and where, never a stack trace, and writes no evidence. The bad configs are in
// fixtures/config-errors/ as .mjs/.json files, so the typed DSL does not reject them before verify sees them.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, diagnose, fixture, sandbox, STACK_LINE, type CliOptions, type CliResult } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'

afterAll(cleanup)

const ERRORS = fixture('config-errors')

/** Runs verify expecting a usage/config error; checks what every such error must satisfy. */
async function expectUsageError(args: readonly string[], options?: CliOptions): Promise<string> {
  const box = sandbox({ inProcess: true })
  const result: CliResult = await box.run(args, options)
  expect(result.killedByTest).toBe(false)
  expect(result.code, diagnose(result)).toBe(2)
  expect(result.stderr).toMatch(/^verify: /)
  expect(result.stderr + result.stdout).not.toMatch(STACK_LINE)
  // One paragraph: no blank line inside it.
  expect(result.stderr.trim()).not.toContain('\n\n')
  expect(existsSync(box.evidencePath)).toBe(false)
  return result.stderr
}

const config = (name: string) => ['--config', join(ERRORS, name)]

describe.concurrent('invalid configurations', () => {
  test('an unknown key names the key and its path', async () => {
    const message = await expectUsageError(config('unknown-key.config.mjs'))
    expect(message).toContain('checks.x')
    expect(message).toContain('"comand"')
  })

  test('a bad duration names the field and says a duration was expected', async () => {
    const message = await expectUsageError(config('bad-duration.config.mjs'))
    expect(message).toContain('checks.x.timeout')
    expect(message).toContain('duration')
  })

  test('dependsOn an unknown id', async () => {
    const message = await expectUsageError(config('unknown-dep.config.mjs'))
    expect(message).toContain('checks.x.dependsOn')
    expect(message).toContain('"nope"')
  })

  test('a dependsOn cycle is named with its members', async () => {
    const message = await expectUsageError(config('cycle.config.mjs'))
    expect(message).toMatch(/cycle/)
    expect(message).toMatch(/(a|b|c) → (a|b|c) → (a|b|c) → (a|b|c)/)
  })

  test('a protocol without checks', async () => {
    const message = await expectUsageError(config('empty.config.mjs'))
    expect(message).toMatch(/checks/)
    expect(message).toMatch(/at least one check/)
  })

  test.each([['run'], ['check']])('a config with no protocol at all (`protocols: {}`): %s says so', async (command) => {
    const message = await expectUsageError([command, ...config('no-protocols.config.mjs')])
    expect(message).toContain('protocols: a config needs at least one protocol')
    expect(message).not.toContain('choose one')
  })

  test.each([[[]], [['--json']]])('a config with no protocol at all: list %j says so, exit 2', async (flags) => {
    const listed = await runCliInProcess(['list', ...flags, ...config('no-protocols.config.mjs')], { cwd: ERRORS })
    expect(listed.code, diagnose(listed)).toBe(2)
    expect(listed.stderr).toContain('protocols: a config needs at least one protocol')
    expect(listed.stdout).toBe('')
  })

  test('a package.json with a "verify" key that is not valid JSON is a broken config, not a missing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-broken-pkg-'))
    try {
      writeFileSync(join(dir, 'package.json'), '{ "name": "x", "verify": { "checks": { "a": "true" } }, }\n')
      const message = await expectUsageError(['--cwd', dir])
      expect(message).toContain(`${join(dir, 'package.json')} holds a "verify" key but is not valid JSON (`)
      expect(message).not.toContain('No verify config found')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a config file that is a FIFO is refused at once, never read (it would block)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-fifo-config-'))
    try {
      execFileSync('mkfifo', [join(dir, 'verify.config.mjs')])
      const message = await expectUsageError(['--config', join(dir, 'verify.config.mjs')])
      expect(message).toContain('is not a regular file (a FIFO, a device or a socket): give a file')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a check with both command and run', async () => {
    const message = await expectUsageError(config('both.config.mjs'))
    expect(message).toContain('checks.x')
    expect(message).toMatch(/only one of/)
  })

  test('an invalid check id', async () => {
    const message = await expectUsageError(config('bad-id.config.mjs'))
    expect(message).toContain('Bad Id')
    expect(message).toMatch(/kebab-case/)
  })

  test('several schema problems are all reported at once', async () => {
    const message = await expectUsageError(config('many-schema.config.mjs'))
    expect(message).toContain('checks.x.timeout')
    expect(message).toContain('checks.y.retries')
    expect(message).toContain('"comand"')
    expect(message).toContain('"colour"')
  })

  test('schema, id and dependsOn problems in one config are all reported at once', async () => {
    const message = await expectUsageError(config('many-mixed.config.mjs'))
    expect(message).toContain('checks.x.timeout')
    expect(message).toContain('Bad Id')
    expect(message).toContain('"nope"')
  })

  test('a config file with a syntax error', async () => {
    const box = sandbox({ inProcess: true })
    const dir = join(box.dir, 'project')
    mkdirSync(dir)
    writeFileSync(join(dir, 'verify.config.ts'), 'export default {\n  checks: { x: "true" \n')
    const message = await expectUsageError(['--cwd', dir])
    expect(message).toContain(dir)
    expect(message).toMatch(/unexpected|syntax|parse/i)
  })

  test('a JSON config that is not valid JSON', async () => {
    const message = await expectUsageError(config('broken.config.json'))
    expect(message).toContain('broken.config.json')
  })
})

describe.concurrent('missing configurations', () => {
  test('--config pointing to a missing file', async () => {
    const message = await expectUsageError(['--config', join(ERRORS, 'does-not-exist.config.ts')])
    expect(message).toContain('does-not-exist.config.ts')
  })

  test('no config in the folder verify runs in: one line that suggests `verify init`', async () => {
    const box = sandbox({ inProcess: true })
    const dir = join(box.dir, 'bare')
    mkdirSync(dir)
    const message = await expectUsageError([], { cwd: dir })
    expect(message.trim().split('\n')).toHaveLength(1)
    expect(message).toContain('verify init')
  })

  test('no config in a project that has a package.json (no "verify" key): one line that suggests `verify init`', async () => {
    const box = sandbox({ inProcess: true })
    const dir = join(box.dir, 'project')
    mkdirSync(dir)
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'some-project', scripts: { test: 'true' } }))
    const message = await expectUsageError([], { cwd: dir })
    expect(message.trim().split('\n')).toHaveLength(1)
    expect(message).toContain('verify init')
  })

  test('--cwd to a folder without a config (verify started elsewhere): one line that suggests `verify init`', async () => {
    const box = sandbox({ inProcess: true })
    const dir = join(box.dir, 'bare')
    mkdirSync(dir)
    const message = await expectUsageError(['--cwd', dir])
    expect(message.trim().split('\n')).toHaveLength(1)
    expect(message).toContain('verify init')
  })
})

describe.concurrent('usage errors', () => {
  test('an unknown flag', async () => {
    const message = await expectUsageError(['--bogus', '--cwd', fixture('manual')])
    expect(message).toContain('--bogus')
  })

  test('an unknown protocol name lists the protocols there are', async () => {
    const message = await expectUsageError(['nope', '--cwd', fixture('deps')])
    expect(message).toContain('"nope"')
    expect(message).toContain('order')
  })

  test('--only with an unknown id lists the checks there are', async () => {
    const message = await expectUsageError(['--only', 'zzz', '--cwd', fixture('deps')])
    expect(message).toContain('"zzz"')
    expect(message).toContain('opt')
  })

  test('an unknown reporter lists the reporters there are', async () => {
    const message = await expectUsageError(['--reporter', 'fancy', '--cwd', fixture('manual')])
    expect(message).toContain('"fancy"')
    expect(message).toContain('json')
  })

  test('a bad --timeout and a bad --concurrency', async () => {
    expect(await expectUsageError(['--timeout', 'soon', '--cwd', fixture('manual')])).toMatch(/--timeout.*duration/)
    expect(await expectUsageError(['--concurrency', '0', '--cwd', fixture('manual')])).toContain('--concurrency')
  })
})
