import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createProtocol } from '../../src/api.js'
import { defineConfig, defineProtocol, STANDARD_CHECKS } from '../../src/config/define.js'
import { resolveProtocol, type ResolveOptions } from '../../src/config/resolve.js'
import { parseConfig } from '../../src/config/validate.js'
import { VerifyConfigError } from '../../src/errors.js'
import type { ResolvedProtocol } from '../../src/types.js'

const rootDir = resolve('/project')
const run = async () => ({ passed: true })

function resolved(raw: unknown, options: Partial<ResolveOptions> = {}): ResolvedProtocol {
  return resolveProtocol(raw, { rootDir, ...options })
}

/** The VerifyConfigError a config raises. Fails the test when it raises nothing or something else. */
function configError(raw: unknown, options: Partial<ResolveOptions> = {}): VerifyConfigError {
  try {
    resolved(raw, options)
  } catch (error) {
    expect(error).toBeInstanceOf(VerifyConfigError)
    return error as VerifyConfigError
  }
  throw new Error('expected a VerifyConfigError, the config resolved')
}

const check = (protocol: ResolvedProtocol, id: string) => {
  const found = protocol.checks.find((c) => c.id === id)
  if (!found) throw new Error(`no check ${id}`)
  return found
}

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

describe('resolveProtocol: config errors', () => {
  it('is a VerifyConfigError with code E_CONFIG_INVALID', () => {
    const error = configError({ checks: {} })
    expect(error.code).toBe('E_CONFIG_INVALID')
    expect(error.name).toBe('VerifyConfigError')
  })

  it('reports an unknown key at protocol level', () => {
    expect(configError({ checks: { a: 'x' }, stricMode: true }).problems).toEqual([expect.stringMatching(/unknown key "stricMode"/)])
  })

  it('reports an unknown key at check level with the path of the check', () => {
    expect(configError({ checks: { build: { command: 'x', comand: 'y' } } }).problems).toEqual(['checks.build: unknown key "comand"'])
  })

  it('reports a bad duration with its path and what was expected', () => {
    const { problems } = configError({ checks: { test: { command: 'x', timeout: 'soon' } } })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^checks\.test\.timeout: /)
    expect(problems[0]).toContain('expected a duration')
  })

  it('reports a negative concurrency', () => {
    expect(configError({ concurrency: -1, checks: { a: 'x' } }).problems).toEqual([expect.stringMatching(/^concurrency: /)])
  })

  it('reports a check with both command and run', () => {
    expect(configError({ checks: { a: { command: 'x', run: () => true } } }).problems).toEqual([
      expect.stringMatching(/^checks\.a: .*only one of `command`, `run` or `manual`/),
    ])
  })

  it('reports a check with neither command, run nor manual', () => {
    expect(configError({ checks: { a: { name: 'A' } } }).problems).toEqual([expect.stringMatching(/^checks\.a: .*exactly one of `command`, `run` or `manual`/)])
  })

  it('reports a dependency on an unknown id, naming it', () => {
    expect(configError({ checks: { build: 'x', test: { command: 'y', dependsOn: ['biuld'] } } }).problems).toEqual([
      expect.stringMatching(/^checks\.test\.dependsOn: .*"biuld"/),
    ])
  })

  it('reports a check that depends on itself', () => {
    expect(configError({ checks: { a: { command: 'x', dependsOn: ['a'] } } }).problems).toEqual([expect.stringMatching(/^checks\.a\.dependsOn: .*itself/)])
  })

  it('reports a dependency cycle and shows it', () => {
    const { problems } = configError({
      checks: { a: { command: 'x', dependsOn: ['b'] }, b: { command: 'x', dependsOn: ['c'] }, c: { command: 'x', dependsOn: ['a'] }, d: 'x' },
    })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/cycle/)
    expect(problems[0]).toContain('a → b → c → a')
  })

  it('reports a protocol without checks', () => {
    expect(configError({ checks: {} }).problems).toEqual([expect.stringMatching(/^checks: .*at least one check/)])
  })

  it('reports a protocol whose every check was removed', () => {
    expect(configError({ checks: { a: false } }).problems).toEqual([expect.stringMatching(/at least one check/)])
  })

  it('reports an id that is neither kebab-case nor snake_case', () => {
    expect(configError({ checks: { 'Bad Id': 'x' } }).problems).toEqual([expect.stringMatching(/^checks\["Bad Id"\]: .*kebab-case/)])
  })

  it('accepts kebab-case and snake_case ids', () => {
    expect(resolved({ checks: { 'unit-tests': 'x', e2e_tests: 'y', a1: 'z' } }).checks).toHaveLength(3)
  })

  it('reports `tests` without junit or vitestJson', () => {
    expect(configError({ checks: { test: { command: 'x', tests: { min: 2 } } } }).problems).toEqual([
      expect.stringMatching(/^checks\.test\.tests: .*junit.*vitestJson/),
    ])
  })

  it('reports every schema problem at once, each with its path', () => {
    const { problems } = configError({
      concurrency: -1,
      stricMode: true,
      checks: {
        build: { command: 'x', comand: 'y' },
        test: { command: 'x', timeout: 'soon' },
        both: { command: 'x', run: () => true },
        neither: { name: 'N' },
        junit: { command: 'x', tests: {} },
      },
    })
    expect(problems).toHaveLength(7)
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^concurrency: /),
        expect.stringMatching(/unknown key "stricMode"/),
        'checks.build: unknown key "comand"',
        expect.stringMatching(/^checks\.test\.timeout: expected a duration/),
        expect.stringMatching(/^checks\.both: /),
        expect.stringMatching(/^checks\.neither: /),
        expect.stringMatching(/^checks\.junit\.tests: /),
      ]),
    )
  })

  it('reports dependency problems together', () => {
    const { problems } = configError({
      checks: { a: { command: 'x', dependsOn: ['a'] }, b: { command: 'x', dependsOn: ['nope'] }, 'Bad Id': 'x' },
    })
    expect(problems).toHaveLength(3)
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^checks\.a\.dependsOn: /),
        expect.stringMatching(/^checks\.b\.dependsOn: .*"nope"/),
        expect.stringMatching(/Bad Id/),
      ]),
    )
  })

  // SPEC §3.1: *every* problem at once. A schema error must not hide the id, dependsOn and cycle problems.
  it('reports schema problems and dependency problems in one go', () => {
    const { problems } = configError({
      stricMode: true,
      checks: {
        'Bad Id': 'x',
        test: { command: 'x', timeout: 'soon', dependsOn: ['nope'] },
        a: { command: 'x', dependsOn: ['b'] },
        b: { command: 'x', dependsOn: ['a'] },
      },
    })
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/unknown key "stricMode"/),
        expect.stringMatching(/Bad Id/),
        expect.stringMatching(/^checks\.test\.timeout: /),
        expect.stringMatching(/^checks\.test\.dependsOn: .*"nope"/),
        expect.stringMatching(/cycle/),
      ]),
    )
  })

  it('says where the config came from', () => {
    expect(configError({ checks: {} }, { source: 'verify.config.ts' }).message).toContain('verify.config.ts')
  })

  it.each([null, 'npm test', ['a'], 42])('reports a config that is not an object (%j)', (raw) => {
    expect(configError(raw).problems).toHaveLength(1)
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

describe('overrides from the command line', () => {
  const raw = { timeout: '1m', failFast: false, parallel: true, strictMode: false, maxAge: '5m', checks: { a: { command: 'x', timeout: '3m' }, b: 'y' } }

  it('win over the config', () => {
    const protocol = resolved(raw, {
      overrides: { timeoutMs: 5000, failFast: true, parallel: false, strictMode: true, maxAgeMs: 1000, concurrency: 3, skipOptional: true },
    })
    expect(protocol).toMatchObject({ timeoutMs: 5000, failFast: true, parallel: false, strictMode: true, maxAgeMs: 1000, concurrency: 3, skipOptional: true })
  })

  it('--timeout wins over a check timeout too', () => {
    const protocol = resolved(raw, { overrides: { timeoutMs: 5000 } })
    expect(protocol.checks.map((c) => c.timeoutMs)).toEqual([5000, 5000])
  })

  it('leave the config alone when not given', () => {
    const protocol = resolved(raw, { overrides: {} })
    expect(protocol).toMatchObject({ timeoutMs: 60_000, failFast: false, parallel: true })
    expect(protocol.checks.map((c) => c.timeoutMs)).toEqual([180_000, 60_000])
  })

  it('an explicit false wins over true in the config', () => {
    expect(resolved({ ...raw, failFast: true, parallel: true }, { overrides: { failFast: false, parallel: false } })).toMatchObject({
      failFast: false,
      parallel: false,
    })
  })
})

describe('createProtocol (library API)', () => {
  it('builds a protocol from an array of checks with ids, in order', () => {
    const protocol = createProtocol('pre-merge', 'Before a merge', [
      { id: 'build', command: 'npm run build' },
      { id: 'smoke', run: () => true, dependsOn: ['build'] },
    ])
    expect(protocol).toMatchObject({ name: 'pre-merge', description: 'Before a merge', strictMode: false })
    expect(protocol.checks.map((c) => [c.id, c.kind, c.evidenceType])).toEqual([
      ['build', 'command', 'build_success'],
      ['smoke', 'function', 'command_success'],
    ])
    expect(check(protocol, 'smoke').dependsOn).toEqual(['build'])
  })

  it('takes the STANDARD_CHECKS entries as they are', () => {
    const protocol = createProtocol(
      'std',
      'Standard',
      [STANDARD_CHECKS.BUILD, STANDARD_CHECKS.TEST, STANDARD_CHECKS.LINT, STANDARD_CHECKS.ARCHITECT, STANDARD_CHECKS.ERROR_FREE],
      true,
      rootDir,
    )
    expect(protocol.strictMode).toBe(true)
    expect(protocol.checks.map((c) => [c.id, c.name, c.evidenceType, c.kind])).toEqual([
      ['build', 'Build', 'build_success', 'command'],
      ['test', 'Tests', 'test_pass', 'command'],
      ['lint', 'Lint', 'lint_clean', 'command'],
      ['architect', 'Architect approval', 'architect_approval', 'manual'],
      ['error-free', 'Error free', 'error_free', 'manual'],
    ])
    expect(check(protocol, 'architect').manual).toBe(STANDARD_CHECKS.ARCHITECT.manual)
    expect(check(protocol, 'build').cwd).toBe(rootDir)
  })

  it('lets a STANDARD_CHECKS entry be adjusted by spreading', () => {
    const protocol = createProtocol('p', 'd', [{ ...STANDARD_CHECKS.LINT, command: 'oxlint', required: false }])
    expect(check(protocol, 'lint')).toMatchObject({ command: 'oxlint', required: false, evidenceType: 'lint_clean' })
  })

  it('defaults its rootDir to the process cwd', () => {
    expect(createProtocol('p', 'd', [{ id: 'a', command: 'x' }]).rootDir).toBe(process.cwd())
  })

  it('throws a VerifyConfigError naming the protocol for an invalid check', () => {
    expect(() => createProtocol('broken', 'd', [{ id: 'a', command: 'x', dependsOn: ['zzz'] }])).toThrow(VerifyConfigError)
    expect(() => createProtocol('broken', 'd', [{ id: 'a', command: 'x', dependsOn: ['zzz'] }])).toThrow(/broken/)
  })

  it('an empty array is a config error, never an approvable protocol', () => {
    expect(() => createProtocol('empty', 'd', [])).toThrow(VerifyConfigError)
  })
})
