// The config's `reporters` option is typed: names, [name, options], reporter objects with typed hooks.
import { describe, expectTypeOf, it } from 'vitest'
import { defineConfig, defineProtocol, type CheckResult, type Reporter, type RunOutcome } from 'verify-protocol'

describe('reporters in the config', () => {
  it('accepts names, module paths, [name, options] and reporter objects whose hooks are typed', () => {
    defineProtocol({
      checks: { build: 'npm run build' },
      reporters: [
        'default',
        './reporters/slack.mjs',
        ['junit', { file: 'reports/verify.xml' }],
        {
          onCheckEnd(check, result) {
            expectTypeOf(check.id).toEqualTypeOf<string>()
            expectTypeOf(result).toEqualTypeOf<CheckResult>()
          },
          onRunEnd(outcome) {
            expectTypeOf(outcome).toEqualTypeOf<RunOutcome>()
          },
        } satisfies Reporter,
      ],
    })
    defineConfig({ reporters: ['agent'], protocols: { default: { checks: { a: 'true' }, reporters: ['verbose'] } } })
  })

  it('rejects what is not a reporter entry', () => {
    // @ts-expect-error a number is not a reporter
    defineProtocol({ checks: { a: 'true' }, reporters: [42] })
    // @ts-expect-error the options of [name, options] are an object
    defineProtocol({ checks: { a: 'true' }, reporters: [['junit', 'reports/verify.xml']] })
  })
})
