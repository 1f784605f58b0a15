// Type tests of composition: defineConfig checks each protocol's dependsOn against its own checks and those it
// inherits; presets and STANDARD_CHECKS compose with their ids intact.
import { describe, expectTypeOf, it } from 'vitest'
import {
  defineConfig,
  defineProtocol,
  STANDARD_CHECKS,
  type CheckContext,
  type ConfigDefinition,
  type PresetContext,
  type ProtocolDefinition,
} from 'verify-protocol'
import node, { type NodeCheckId } from 'verify-protocol/presets/node'
import strict, { errorFreeCheck, strictPreset, todoCheck } from 'verify-protocol/presets/strict'
import typescript from 'verify-protocol/presets/typescript'

describe('defineConfig: dependsOn per protocol', () => {
  it('accepts ids of the protocol itself, and of the protocols it extends, transitively', () => {
    const config = defineConfig({
      protocols: {
        default: { checks: { build: 'npm run build', test: { command: 'vitest', dependsOn: ['build'] } } },
        deploy: { extends: 'default', checks: { e2e: { command: 'playwright test', dependsOn: ['test', 'build'] } } },
        release: { extends: 'deploy', checks: { tag: { command: 'git tag', dependsOn: ['e2e', 'build'] } } },
      },
    })
    expectTypeOf(config).toExtend<ConfigDefinition>()
    expectTypeOf<keyof typeof config.protocols>().toEqualTypeOf<'default' | 'deploy' | 'release'>()
  })

  it('rejects an id the protocol does not have', () => {
    defineConfig({
      protocols: {
        // @ts-expect-error 'biuld' is not a check of "default"
        default: { checks: { build: 'npm run build', test: { command: 'vitest', dependsOn: ['biuld'] } } },
      },
    })
  })

  it('rejects an id of a sibling protocol it does not extend', () => {
    defineConfig({
      protocols: {
        default: { checks: { build: 'npm run build' } },
        // @ts-expect-error "docs" does not extend "default": build is not one of its checks
        docs: { checks: { links: { command: 'lychee .', dependsOn: ['build'] } } },
      },
    })
  })

  it('rejects `extends` naming a protocol that is not declared, or itself', () => {
    defineConfig({
      protocols: {
        default: { checks: { build: 'npm run build' } },
        // @ts-expect-error 'prod' is not a protocol of this config
        deploy: { extends: 'prod', checks: { e2e: 'playwright test' } },
      },
    })
    defineConfig({
      protocols: {
        // @ts-expect-error a protocol cannot extend itself
        default: { extends: 'default', checks: { build: 'npm run build' } },
      },
    })
  })

  it('keeps the run function typed inside protocols', () => {
    defineConfig({
      protocols: {
        default: {
          checks: {
            build: 'make',
            smoke: {
              dependsOn: ['build'],
              run: async ({ cwd, signal }) => {
                expectTypeOf(cwd).toBeString()
                expectTypeOf(signal).toEqualTypeOf<AbortSignal>()
                return { passed: true }
              },
            },
          },
        },
      },
    })
  })

  it('accepts the wildcard and any id when the config extends a path or package', () => {
    defineConfig({
      extends: ['verify-protocol/presets/node'],
      protocols: { default: { checks: { audit: { command: 'npm audit', dependsOn: ['build', '*'] } } } },
    })
  })
})

const later = async (context: PresetContext) => defineProtocol({ checks: { audit: { command: `npm audit --prefix ${context.rootDir}` } } })

describe('defineProtocol with extends', () => {
  it('a typed preset value brings its ids: dependsOn on them is checked', () => {
    const protocol = defineProtocol({ extends: [node, strict], checks: { e2e: { command: 'playwright test', dependsOn: ['build', 'todo'] } } })
    expectTypeOf(protocol).toEqualTypeOf<ProtocolDefinition<'e2e', NodeCheckId | 'todo' | 'error-free'>>()
    // @ts-expect-error 'deploy' is neither a check of this protocol nor of its presets
    defineProtocol({ extends: [node], checks: { e2e: { command: 'playwright test', dependsOn: ['deploy'] } } })
  })

  it('an async preset function brings its ids too', () => {
    defineProtocol({ extends: [later], checks: { release: { command: 'x', dependsOn: ['audit'] } } })
    // @ts-expect-error 'build' is not a check of the async preset
    defineProtocol({ extends: [later], checks: { release: { command: 'x', dependsOn: ['build'] } } })
  })

  it('a path or package name could bring any id', () => {
    defineProtocol({ extends: ['verify-protocol/presets/node'], checks: { e2e: { command: 'x', dependsOn: ['build'] } } })
    defineProtocol({ extends: './presets/team', checks: { e2e: { command: 'x', dependsOn: ['anything'] } } })
  })

  it('overrides an inherited check with only the fields that change', () => {
    defineProtocol({ extends: [node], checks: { test: { timeout: '10m' }, lint: false } })
  })

  it('takes $env overrides merged by id', () => {
    defineProtocol({ checks: { test: 'vitest' }, $env: { ci: { failFast: true, checks: { test: { timeout: '20m' } } } } })
    // @ts-expect-error a $env override is validated like the config
    defineProtocol({ checks: { test: 'vitest' }, $env: { ci: { failFast: 'yes' } } })
  })
})

describe('presets and STANDARD_CHECKS compose with types intact', () => {
  it('preset modules are typed functions of the project, or layers', () => {
    expectTypeOf(node).parameter(0).toEqualTypeOf<Partial<PresetContext> | undefined>()
    expectTypeOf<keyof ReturnType<typeof node>['checks']>().toEqualTypeOf<'build' | 'typecheck' | 'lint' | 'test'>()
    expectTypeOf<keyof ReturnType<typeof typescript>['checks']>().toEqualTypeOf<'typecheck'>()
    expectTypeOf(strict.strictMode).toEqualTypeOf<true>()
    expectTypeOf<keyof typeof strict.checks>().toEqualTypeOf<'todo' | 'error-free'>()
    expectTypeOf(strictPreset).returns.toEqualTypeOf<typeof strict>()
  })

  it("spreading a preset's checks keeps their ids for dependsOn", () => {
    const protocol = defineProtocol({
      strictMode: strict.strictMode,
      checks: {
        ...strict.checks,
        build: { ...STANDARD_CHECKS.BUILD, command: 'pnpm build' },
        lint: { ...STANDARD_CHECKS.LINT, required: false },
        release: { command: 'npm publish --dry-run', dependsOn: ['build', 'todo', 'error-free'] },
      },
    })
    expectTypeOf<keyof typeof protocol.checks>().toEqualTypeOf<'todo' | 'error-free' | 'build' | 'lint' | 'release'>()
  })

  it('the strict checks can be configured and placed under other ids', () => {
    defineProtocol({
      checks: {
        markers: todoCheck({ markers: ['TODO', 'HACK'], ignore: ['fixtures/**'] }),
        'clean-output': errorFreeCheck({ ignore: [/expected failure/] }),
        build: 'make',
      },
    })
  })

  it('a function check receives the CheckContext', () => {
    expectTypeOf(todoCheck().run).toEqualTypeOf<((context: CheckContext) => ReturnType<NonNullable<ReturnType<typeof todoCheck>['run']>>) | undefined>()
  })
})
