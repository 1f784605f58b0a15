// Every protocol of a defineConfig is checked when the config is loaded — inheritance and dependsOn — not only the one
// being run: a broken protocol nobody runs today must not wait for the day someone does.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resolveProtocol } from '../../src/config/resolve.js'
import { VerifyConfigError } from '../../src/errors.js'
import { cleanup, diagnose, runCli } from '../helpers/cli.js'
import { project, removeProjects } from '../helpers/project.js'

const rootDir = resolve('/project')

function problemsOf(raw: unknown, protocol?: string): string[] {
  try {
    resolveProtocol(raw, { rootDir, ...(protocol ? { protocol } : {}) })
  } catch (error) {
    expect(error).toBeInstanceOf(VerifyConfigError)
    expect((error as VerifyConfigError).code).toBe('E_CONFIG_INVALID')
    return (error as VerifyConfigError).problems
  }
  throw new Error('expected a VerifyConfigError, the protocol resolved')
}

const broken = {
  protocols: {
    ci: { checks: { build: 'make' } },
    a: { extends: 'b', checks: { x: 'true' } },
    b: { extends: 'a', checks: { y: 'true' } },
    c: { extends: 'nope', checks: { z: 'true' } },
  },
}

describe('protocols that are not being resolved', () => {
  it('a cycle of extends and an unknown parent are reported, all at once, while resolving another protocol', () => {
    expect(problemsOf(broken, 'ci')).toEqual(['protocols.a.extends: a cycle a → b → a', 'protocols.c.extends: no protocol "nope" (protocols: ci, a, b, c)'])
  })

  it("their dependsOn: unknown ids and cycles, with the protocol's name", () => {
    const raw = {
      protocols: {
        default: { checks: { build: 'make' } },
        deploy: { extends: 'default', checks: { smoke: { command: 'x', dependsOn: ['biuld'] } } },
        nightly: { checks: { a: { command: 'x', dependsOn: ['b'] }, b: { command: 'y', dependsOn: ['a'] } } },
      },
    }
    expect(problemsOf(raw)).toEqual([
      'protocols.deploy.checks.smoke.dependsOn: no check "biuld" (checks: build, smoke)',
      'protocols.nightly.checks.a.dependsOn: a cycle a → b → a',
    ])
  })

  it("a problem inherited from the resolved protocol is reported once, as the resolved protocol's", () => {
    const raw = { protocols: { default: { checks: { t: { command: 'x', dependsOn: ['gone'] } } }, deploy: { extends: 'default', checks: { e: 'y' } } } }
    expect(problemsOf(raw)).toEqual(['checks.t.dependsOn: no check "gone" (checks: t)'])
  })

  it('the protocol being resolved reports its own broken inheritance with the others', () => {
    expect(problemsOf(broken, 'a')).toEqual(['protocols.a.extends: a cycle a → b → a', 'protocols.c.extends: no protocol "nope" (protocols: ci, a, b, c)'])
  })

  it('sound protocols resolve as before', () => {
    const raw = {
      protocols: { default: { checks: { build: 'make' } }, deploy: { extends: 'default', checks: { smoke: { command: 'x', dependsOn: ['build', '*'] } } } },
    }
    expect(resolveProtocol(raw, { rootDir, protocol: 'deploy' }).checks.map((c) => c.id)).toEqual(['build', 'smoke'])
  })
})

describe('verify run <protocol>', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'verify-protocols-'))
  afterAll(async () => {
    await cleanup()
    rmSync(tmp, { recursive: true, force: true })
  })

  it('exits 2 when another protocol of the config is broken, before running anything', async () => {
    writeFileSync(
      join(tmp, 'verify.config.mjs'),
      `export default ${JSON.stringify({ protocols: { ...broken.protocols, ci: { checks: { build: "node -e \"require('fs').writeFileSync('ran', '')\"" } } } })}`,
    )
    const result = await runCli(['run', 'ci', '--evidence', join(tmp, 'evidence.json')], { cwd: tmp })
    expect(result.code, diagnose(result)).toBe(2)
    expect(result.stderr).toContain('protocols.a.extends: a cycle a → b → a')
    expect(result.stderr).toContain('protocols.c.extends: no protocol "nope"')
    expect(existsSync(join(tmp, 'ran'))).toBe(false)
  })
})

describe('two protocols and one evidence file', () => {
  it('a run of one protocol says it replaces the evidence of the other, and how to keep both', async () => {
    const p = project('validity-manual')
    p.write('verify.config.ts', `export default { protocols: { default: { checks: { a: 'true' } }, ci: { checks: { b: 'true' } } } }\n`)
    expect((await p.verify('run', ['ci'])).code).toBe(0)
    const second = await p.verify('run')
    expect(second.code).toBe(0)
    expect(second.stdout).toMatch(
      /\.verify\/evidence\.json held the evidence of protocol "ci"; this run of "default" replaces it\. .*`--evidence \.verify\/default\.json`/,
    )
    expect((await p.verify('run')).stdout).not.toMatch(/held the evidence of protocol/)
    removeProjects()
  })
})
