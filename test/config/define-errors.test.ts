// The DSL's config errors, the command line's overrides, and protocols built in memory through the library API.
import { describe, expect, it } from 'vitest'
import { createProtocol } from '../../src/api.js'
import { STANDARD_CHECKS } from '../../src/config/define.js'
import { VerifyConfigError } from '../../src/errors.js'
import { check, resolved, resolveError as configError, rootDir } from '../helpers/resolve-protocol.js'

/** `n` checks, each depending on the one before; `closed`: the first on the last. */
const chain = (n: number, closed: boolean) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, { command: 'x', dependsOn: i > 0 ? [`c${i - 1}`] : closed ? [`c${n - 1}`] : [] }]))

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

  it('reports a cycle through 20,000 checks as a cycle, and takes a chain as long without one', () => {
    const { problems } = configError({ checks: chain(20_000, true) })
    expect(problems).toEqual([expect.stringMatching(/cycle/)])
    expect(resolved({ checks: chain(20_000, false) }).checks).toHaveLength(20_000)
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
