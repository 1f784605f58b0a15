// The DSL resolved: defaults, the forms a check takes, parseConfig, and several protocols with `extends`.
import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defineConfig, defineProtocol } from '../../src/config/define.js'
import { parseConfig } from '../../src/config/validate.js'
import { VerifyConfigError } from '../../src/errors.js'
import { check, resolved, resolveError as configError, rootDir, run } from '../helpers/resolve-protocol.js'

describe('resolveProtocol: defaults', () => {
  it('applies the protocol defaults', () => {
    const protocol = resolved(defineProtocol({ checks: { smoke: 'true' } }))
    expect(protocol).toMatchObject({
      name: 'default',
      strictMode: false,
      parallel: true,
      concurrency: availableParallelism(),
      failFast: false,
      skipOptional: false,
      maxAgeMs: 5 * 60_000,
      timeoutMs: 10 * 60_000,
      rootDir,
    })
  })

  it('applies the check defaults: required, name = id, the protocol timeout, cwd = rootDir, no retries', () => {
    const protocol = resolved({ timeout: '2m', checks: { smoke: 'node smoke.js' } })
    expect(protocol.checks).toEqual([
      expect.objectContaining({
        id: 'smoke',
        name: 'smoke',
        required: true,
        kind: 'command',
        command: 'node smoke.js',
        timeoutMs: 120_000,
        dependsOn: [],
        cwd: rootDir,
        env: {},
        retries: 0,
        evidenceType: 'command_success',
      }),
    ])
  })

  it.each([
    ['build', 'build_success'],
    ['test', 'test_pass'],
    ['lint', 'lint_clean'],
    ['todo', 'todo_complete'],
    ['docs', 'command_success'],
    ['security-scan', 'command_success'],
  ])('a check "%s" without evidenceType gets %s', (id, type) => {
    expect(check(resolved({ checks: { [id]: 'true' } }), id).evidenceType).toBe(type)
  })

  it('an explicit evidenceType wins over the standard one', () => {
    expect(check(resolved({ checks: { build: { command: 'x', evidenceType: 'security_verified' } } }), 'build').evidenceType).toBe('security_verified')
  })

  it('names the protocol after its `name`', () => {
    expect(resolved({ name: 'pre-merge', description: 'Before a merge', checks: { a: 'x' } })).toMatchObject({
      name: 'pre-merge',
      description: 'Before a merge',
    })
  })

  it('keeps checks in declaration order', () => {
    expect(resolved({ checks: { zeta: 'x', alpha: 'x', mid: 'x' } }).checks.map((c) => c.id)).toEqual(['zeta', 'alpha', 'mid'])
  })
})

describe('resolveProtocol: check forms', () => {
  it('a string is a shell command', () => {
    expect(check(resolved({ checks: { build: 'npm run build' } }), 'build')).toMatchObject({ kind: 'command', command: 'npm run build' })
  })

  it('an array is an argv command', () => {
    expect(check(resolved({ checks: { typecheck: { command: ['tsc', '--noEmit'] } } }), 'typecheck')).toMatchObject({
      kind: 'command',
      command: ['tsc', '--noEmit'],
    })
  })

  it('a run function is a function check', () => {
    const smoke = check(resolved({ checks: { smoke: { evidenceType: 'functionality_verified', run } } }), 'smoke')
    expect(smoke.kind).toBe('function')
    expect(smoke.run).toBe(run)
    expect(smoke.command).toBeUndefined()
  })

  it('manual: true asks to approve the check by name; a string is the instructions', () => {
    const protocol = resolved({ checks: { review: { name: 'Design review', manual: true }, qa: { manual: 'Click through the checkout' } } })
    expect(check(protocol, 'review')).toMatchObject({ kind: 'manual' })
    expect(check(protocol, 'review').manual).toContain('Design review')
    expect(check(protocol, 'qa')).toMatchObject({ kind: 'manual', manual: 'Click through the checkout' })
  })

  it("resolves a check's cwd against rootDir; an absolute cwd stays", () => {
    const protocol = resolved({
      checks: { a: { command: 'x', cwd: 'packages/app' }, b: { command: 'x', cwd: '../sibling' }, c: { command: 'x', cwd: resolve('/elsewhere') } },
    })
    expect(check(protocol, 'a').cwd).toBe(join(rootDir, 'packages', 'app'))
    expect(check(protocol, 'b').cwd).toBe(resolve(rootDir, '..', 'sibling'))
    expect(check(protocol, 'c').cwd).toBe(resolve('/elsewhere'))
  })

  it('parses check and protocol durations', () => {
    const protocol = resolved({ maxAge: '1h', timeout: 90_000, checks: { a: { command: 'x', timeout: '1.5m' }, b: 'y' } })
    expect(protocol.maxAgeMs).toBe(3_600_000)
    expect(check(protocol, 'a').timeoutMs).toBe(90_000)
    expect(check(protocol, 'b').timeoutMs).toBe(90_000)
  })

  it('keeps dependsOn, env, inputs, tests (min defaults to 1), retries and expect', () => {
    const protocol = resolved({
      checks: {
        build: 'x',
        test: { command: 'y', dependsOn: ['build'], env: { CI: '1' }, inputs: ['src/**'], tests: { junit: 'r.xml' }, retries: 2, expect: { output: /ok/ } },
      },
    })
    expect(check(protocol, 'test')).toMatchObject({
      dependsOn: ['build'],
      env: { CI: '1' },
      inputs: ['src/**'],
      tests: { junit: 'r.xml', min: 1 },
      retries: 2,
      expect: { output: /ok/ },
    })
  })
})

describe('parseConfig', () => {
  it('keys a single protocol by its name, or "default"', () => {
    expect(Object.keys(parseConfig({ checks: { a: 'x' } }).protocols)).toEqual(['default'])
    expect(Object.keys(parseConfig({ name: 'ci', checks: { a: 'x' } }).protocols)).toEqual(['ci'])
  })

  it('returns the protocols of defineConfig in declaration order and the shared options', () => {
    const { protocols, shared } = parseConfig(defineConfig({ strictMode: true, protocols: { fast: { checks: { a: 'x' } }, full: { checks: { b: 'y' } } } }))
    expect(Object.keys(protocols)).toEqual(['fast', 'full'])
    expect(shared).toEqual({ strictMode: true })
  })

  it('refuses `extends` by name in a single protocol', () => {
    expect(() => parseConfig({ extends: 'base', checks: { a: 'x' } })).toThrow(VerifyConfigError)
  })

  it('refuses a config with no protocols', () => {
    expect(() => parseConfig({ protocols: {} })).toThrow(VerifyConfigError)
  })
})

describe('defineConfig: several protocols and `extends`', () => {
  const config = defineConfig({
    timeout: '2m',
    protocols: {
      default: {
        description: 'Before a push',
        checks: {
          build: { name: 'Build', command: 'npm run build', timeout: '1m', env: { NODE_ENV: 'production' } },
          lint: 'eslint .',
          test: { command: 'vitest run', dependsOn: ['build'] },
        },
      },
      deploy: {
        extends: 'default',
        strictMode: true,
        checks: { build: { command: 'npm run build:prod' }, lint: false, e2e: { command: 'playwright test', dependsOn: ['test'] } },
      },
      release: { extends: 'deploy', failFast: true, checks: { audit: 'npm audit' } },
    },
  })

  it('picks "default" when no protocol is named', () => {
    const protocol = resolved(config)
    expect(protocol.name).toBe('default')
    expect(protocol.strictMode).toBe(false)
    expect(protocol.checks.map((c) => c.id)).toEqual(['build', 'lint', 'test'])
  })

  it('picks a protocol by name', () => {
    expect(resolved(config, { protocol: 'deploy' }).name).toBe('deploy')
  })

  it('a child overrides a field of an inherited check and keeps the others', () => {
    const build = check(resolved(config, { protocol: 'deploy' }), 'build')
    expect(build).toMatchObject({
      name: 'Build',
      command: 'npm run build:prod',
      timeoutMs: 60_000,
      env: { NODE_ENV: 'production' },
      evidenceType: 'build_success',
    })
  })

  it('`false` removes an inherited check; new checks come after the inherited ones', () => {
    expect(resolved(config, { protocol: 'deploy' }).checks.map((c) => c.id)).toEqual(['build', 'test', 'e2e'])
  })

  it('inherits options through several levels and applies shared options', () => {
    const protocol = resolved(config, { protocol: 'release' })
    expect(protocol).toMatchObject({ name: 'release', strictMode: true, failFast: true, timeoutMs: 120_000, description: 'Before a push' })
    expect(protocol.checks.map((c) => c.id)).toEqual(['build', 'test', 'e2e', 'audit'])
    expect(check(protocol, 'build').command).toBe('npm run build:prod')
  })

  it('does not change the parent protocol', () => {
    resolved(config, { protocol: 'deploy' })
    expect(check(resolved(config), 'build').command).toBe('npm run build')
  })

  it('is an error when a protocol extends one that does not exist', () => {
    const error = configError({ protocols: { default: { extends: 'base', checks: { a: 'x' } } } })
    expect(error.problems).toEqual([expect.stringMatching(/^protocols\.default\.extends: .*"base"/)])
  })

  it('is an error when protocols extend each other in a cycle', () => {
    const error = configError({
      protocols: { default: { extends: 'b', checks: { a: 'x' } }, b: { extends: 'c', checks: { a: 'x' } }, c: { extends: 'default', checks: { a: 'x' } } },
    })
    expect(error.code).toBe('E_CONFIG_INVALID')
    expect(error.problems.join('\n')).toMatch(/default → b → c → default/)
  })

  it('is an error when removing a check leaves a dependency dangling', () => {
    const error = configError(
      {
        protocols: {
          default: { checks: { build: 'x', test: { command: 'y', dependsOn: ['build'] } } },
          quick: { extends: 'default', checks: { build: false } },
        },
      },
      { protocol: 'quick' },
    )
    expect(error.problems).toEqual([expect.stringMatching(/^checks\.test\.dependsOn: .*"build"/)])
  })

  it('an unknown protocol name is an E_PROTOCOL_NOT_FOUND error listing the protocols', () => {
    const error = configError(config, { protocol: 'staging' })
    expect(error.code).toBe('E_PROTOCOL_NOT_FOUND')
    expect(error.message).toContain('staging')
    expect(error.problems.join('\n')).toContain('default, deploy, release')
  })

  it('several protocols without "default" need a name; one protocol is picked alone', () => {
    expect(configError({ protocols: { a: { checks: { x: 'y' } }, b: { checks: { x: 'y' } } } }).code).toBe('E_PROTOCOL_NOT_FOUND')
    expect(resolved({ protocols: { ci: { checks: { x: 'y' } } } }).name).toBe('ci')
    expect(resolved({ name: 'ci', checks: { x: 'y' } }, { protocol: 'ci' }).name).toBe('ci')
  })
})
