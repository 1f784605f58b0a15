// Config edge cases (issue 9 item 10): one duration rule for the config and the flags alike (at least 1 ms, at most
// 24 days, never negative), `__proto__` refused as a check or protocol id instead of silently dropped, and ids that
// are names of Object.prototype members (`constructor`, `toString`) treated as ordinary ids.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadVerifyConfig } from '../../src/config/index.js'
import { DURATION_RULE } from '../../src/duration.js'
import { cleanup, diagnose, STACK_LINE } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'

const work = mkdtempSync(join(tmpdir(), 'verify-config-edges-'))
afterAll(async () => {
  await cleanup()
  rmSync(work, { recursive: true, force: true })
})

let count = 0
/** A fresh project with `verify.config.<ext>` holding `text`; runs `verify ...args` in it. */
function project(file: string, text: string) {
  const dir = join(work, `p${++count}`)
  mkdirSync(dir)
  writeFileSync(join(dir, file), text)
  // Only `run` writes evidence: it goes to the project's folder, out of the repository.
  return (args: string[]) =>
    runCliInProcess([...args, ...(args[0] === 'run' ? ['--evidence', join(dir, 'evidence.json'), '--no-color'] : [])], { cwd: dir, timeoutMs: 20_000 })
}

describe('a field of the wrong type is named with what arrived, never as missing', { timeout: 30_000 }, () => {
  it.each([
    ['{ command: 5 }', 'checks.a.command: expected string or array, got number 5'],
    ["{ command: ['node', 2] }", 'checks.a.command[1]: expected string, got number 2'],
    ["{ command: 'x', env: { A: 1 } }", 'checks.a.env.A: expected string, got number 1'],
    ["{ command: 'x', inputs: 'src' }", 'checks.a.inputs: expected array, got string "src"'],
    ["{ command: 'x', required: 'yes' }", 'checks.a.required: expected boolean, got string "yes"'],
    ["{ command: 'x', dependsOn: [1] }", 'checks.a.dependsOn[0]: expected string, got number 1'],
  ])('checks.a = %s', async (check, line) => {
    const verify = project('verify.config.mjs', `export default { checks: { a: ${check} } }\n`)
    const result = await verify(['list'])
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain(line)
    expect(result.stderr).not.toMatch(/required \(expected|Invalid input/)
  })

  it('a missing field is still said to be missing', async () => {
    const verify = project('verify.config.mjs', "export default { checks: { a: { name: 'A' } } }\n")
    const result = await verify(['list'])
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toMatch(/checks\.a/)
    expect(result.stderr).not.toMatch(STACK_LINE)
  })
})

describe('durations: one rule, one message, config and flags alike', { timeout: 30_000 }, () => {
  it.each([
    ['timeout', "'0s'"],
    ['timeout', '0'],
    ['timeout', '-5'],
    ['timeout', "'25d'"],
    ['timeout', '0.4'],
    ['maxAge', "'0ms'"],
    ['killGrace', "'0s'"],
    ['killGrace', "'-1s'"],
  ])('%s: %s in the config is a config error', async (key, value) => {
    const verify = project('verify.config.mjs', `export default { ${key}: ${value}, checks: { ok: 'true' } }\n`)
    const result = await verify(['list'])
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain(`${key}: expected ${DURATION_RULE}, got `)
    expect(result.stderr).not.toMatch(STACK_LINE)
  })

  it('a check timeout of 0 is refused too, by the same words', async () => {
    const verify = project('verify.config.json', JSON.stringify({ checks: { ok: { command: 'true', timeout: '0s' } } }))
    const result = await verify(['run'])
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain(`checks.ok.timeout: expected ${DURATION_RULE}, got "0s"`)
  })

  it.each(['0', '0s', '-1s', '25d'])('--timeout and --max-age %s are refused with the same rule', async (value) => {
    const verify = project('verify.config.json', JSON.stringify({ checks: { ok: 'true' } }))
    for (const flag of ['--timeout', '--max-age']) {
      const result = await verify(['run', `${flag}=${value}`])
      expect(result.code, diagnose(result)).toBe(2)
      expect(result.stderr).toContain(`${flag} expects ${DURATION_RULE}, got "${value}"`)
    }
  })

  it('the limits themselves are accepted: 1ms and 24d', async () => {
    const verify = project('verify.config.mjs', "export default { timeout: '1ms', maxAge: '24d', killGrace: 1, checks: { ok: 'true' } }\n")
    const result = await verify(['list'])
    expect(result.code, diagnose(result)).toBe(0)
  })
})

describe('check and protocol ids', { timeout: 30_000 }, () => {
  it('`__proto__` as a check id is a config error, not a check silently dropped (JSON and JavaScript)', async () => {
    for (const [file, text] of [
      ['verify.config.json', '{ "checks": { "__proto__": "echo hidden", "ok": "true" } }'],
      ['verify.config.mjs', "export default { checks: { ['__proto__']: 'echo hidden', ok: 'true' } }\n"],
    ] as const) {
      const result = await project(file, text)(['run'])
      expect(result.code, `${file}: ${diagnose(result)}`).toBe(2)
      expect(result.stderr).toContain('checks["__proto__"]: "__proto__" cannot be a check id')
    }
  })

  it('`__proto__` as a protocol name is a config error', async () => {
    const result = await project(
      'verify.config.json',
      '{ "protocols": { "__proto__": { "checks": { "a": "true" } }, "default": { "checks": { "ok": "true" } } } }',
    )(['list'])
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain('protocols["__proto__"]: "__proto__" cannot be a protocol name')
  })

  it('`constructor` is an ordinary check id, `toString` and `constructor` ordinary protocol names', async () => {
    const verify = project(
      'verify.config.mjs',
      `export default { protocols: {
        constructor: { checks: { constructor: 'echo ctor', after: { command: 'echo after', dependsOn: ['constructor'] } } },
        toString: { extends: 'constructor', checks: { valueof: 'echo v' } },
      } }\n`,
    )
    const run = await verify(['run', 'constructor'])
    expect(run.code, diagnose(run)).toBe(0)
    expect(run.stdout).toMatch(/2 passed/)
    const inherited = await verify(['run', 'toString'])
    expect(inherited.code, diagnose(inherited)).toBe(0)
    expect(inherited.stdout).toMatch(/3 passed/)
    // A name that exists only on Object.prototype is no protocol.
    const missing = await verify(['list', 'hasOwnProperty'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/No protocol "hasOwnProperty"/)
  })
})

describe("the config's TypeScript transform", () => {
  it('babel, loaded for a config with no cached transform, is let go once the config is loaded (SPEC §13 memory)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-transform-'))
    try {
      writeFileSync(join(dir, 'verify.config.ts'), "const id: string = 'a'\nexport default { checks: { [id]: 'true' } }\n")
      const loaded = await loadVerifyConfig({ cwd: dir, env: { JITI_FS_CACHE: 'false' } })
      expect(loaded.protocol.checks.map((c) => c.id)).toEqual(['a'])
      const held = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.endsWith(join('jiti', 'dist', 'babel.cjs')))
      expect(held).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
