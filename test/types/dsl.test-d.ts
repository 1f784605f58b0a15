import { describe, expectTypeOf, it } from 'vitest'
import { defineCheck, defineConfig, defineProtocol, STANDARD_CHECKS, type CheckDefinition, type Duration, type ProtocolDefinition } from 'verify-protocol'

describe('defineProtocol', () => {
  it('keeps the check ids as literal types', () => {
    const protocol = defineProtocol({
      checks: {
        build: 'npm run build',
        test: { command: 'vitest run', dependsOn: ['build'] },
        'security-scan': { command: 'npm audit', evidenceType: 'security_verified' },
      },
    })
    expectTypeOf<keyof typeof protocol.checks>().toEqualTypeOf<'build' | 'test' | 'security-scan'>()
    expectTypeOf(protocol).toEqualTypeOf<ProtocolDefinition<'build' | 'test' | 'security-scan'>>()
  })

  it('accepts dependsOn with ids of the protocol', () => {
    defineProtocol({
      checks: {
        build: 'npm run build',
        lint: 'eslint .',
        test: { command: 'vitest run', dependsOn: ['build', 'lint'] },
      },
    })
  })

  it('rejects a dependsOn id that is not a check of the protocol', () => {
    defineProtocol({
      checks: {
        build: 'npm run build',
        // @ts-expect-error 'biuld' is not a check id
        test: { command: 'vitest run', dependsOn: ['biuld'] },
      },
    })
  })

  it('lets STANDARD_CHECKS.LINT be spread into a check', () => {
    const protocol = defineProtocol({
      checks: {
        lint: { ...STANDARD_CHECKS.LINT, command: 'eslint .', required: false },
        build: { ...STANDARD_CHECKS.BUILD },
        review: STANDARD_CHECKS.ARCHITECT,
      },
    })
    expectTypeOf<keyof typeof protocol.checks>().toEqualTypeOf<'lint' | 'build' | 'review'>()
    expectTypeOf(STANDARD_CHECKS.LINT.evidenceType).toEqualTypeOf<'lint_clean'>()
  })

  it('takes a shell command string or a readonly argv array', () => {
    const argv = ['tsc', '--noEmit'] as const
    defineProtocol({
      checks: {
        shell: { command: 'tsc --noEmit' },
        array: { command: ['tsc', '--noEmit'] },
        readonly: { command: argv },
      },
    })
    expectTypeOf<CheckDefinition['command']>().toEqualTypeOf<string | readonly string[] | undefined>()
    // @ts-expect-error a command is text, not a number
    defineProtocol({ checks: { bad: { command: 42 } } })
  })

  it('takes durations as "5m" or milliseconds, not free text', () => {
    defineProtocol({
      timeout: '10m',
      maxAge: 300_000,
      checks: { a: { command: 'x', timeout: '5m' }, b: { command: 'x', timeout: 300_000 }, c: { command: 'x', timeout: '1.5h' } },
    })
    // @ts-expect-error 'soon' is not a duration
    defineProtocol({ checks: { a: { command: 'x', timeout: 'soon' } } })
    // @ts-expect-error a protocol's maxAge is a duration too
    defineProtocol({ maxAge: 'a while', checks: { a: 'x' } })
    expectTypeOf<'5m'>().toExtend<Duration>()
    expectTypeOf<300_000>().toExtend<Duration>()
    expectTypeOf<'soon'>().not.toExtend<Duration>()
  })

  it('types the run function context and result', () => {
    defineProtocol({
      checks: {
        smoke: {
          run: async ({ cwd, signal, checkId }) => {
            expectTypeOf(cwd).toBeString()
            expectTypeOf(signal).toEqualTypeOf<AbortSignal>()
            expectTypeOf(checkId).toBeString()
            return { passed: true, output: 'ok' }
          },
        },
        bool: { run: () => true },
      },
    })
    // @ts-expect-error `passed` must be a boolean
    defineProtocol({ checks: { smoke: { run: async () => ({ passed: 'yes' }) } } })
  })

  it('rejects unknown check fields', () => {
    // @ts-expect-error 'comand' is not a check field
    defineProtocol({ checks: { build: { comand: 'npm run build' } } })
  })

  it('accepts `false` to remove an inherited check', () => {
    defineProtocol({ checks: { build: 'x', lint: false } })
  })
})

describe('defineConfig', () => {
  it('keeps the protocol names and lets `extends` name a declared protocol', () => {
    const config = defineConfig({
      strictMode: false,
      protocols: {
        default: { checks: { build: 'npm run build' } },
        deploy: { extends: 'default', strictMode: true, checks: { e2e: 'playwright test' } },
      },
    })
    expectTypeOf<keyof typeof config.protocols>().toEqualTypeOf<'default' | 'deploy'>()
  })

  it('rejects `extends` naming a protocol that is not declared', () => {
    defineConfig({
      protocols: {
        default: { checks: { build: 'npm run build' } },
        // @ts-expect-error 'prod' is not a protocol of this config
        deploy: { extends: 'prod', checks: { e2e: 'playwright test' } },
      },
    })
  })
})

describe('defineCheck', () => {
  it('keeps the literal fields of a reusable check', () => {
    const check = defineCheck({ command: 'npm audit', evidenceType: 'security_verified', timeout: '2m' })
    expectTypeOf(check.evidenceType).toEqualTypeOf<'security_verified'>()
    expectTypeOf(check.timeout).toEqualTypeOf<'2m'>()
  })
})
