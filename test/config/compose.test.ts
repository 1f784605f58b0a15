// Merging layers (SPEC §3.3): options by key, protocols by name, checks by id, origins remembered; `'*'` in dependsOn;
// the merger c12 uses for `$env`, `.verifyrc` and package.json.
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mergeConfigObjects, mergeCheckLayersWithOrigins, mergeLayers } from '../../src/config/merge.js'
import type { LayerInput } from '../../src/config/validate.js'
import { resolveLayers } from '../../src/config/resolve.js'
import { VerifyConfigError } from '../../src/errors.js'
import type { ResolvedProtocol } from '../../src/types.js'

const rootDir = resolve('/project')

function layers(...raws: unknown[]): LayerInput[] {
  return raws.map((raw, i) => ({ label: i === raws.length - 1 ? 'verify.config.ts' : `preset-${i}`, raw, chain: ['verify.config.ts', `preset-${i}`] }))
}

function resolved(input: LayerInput[], protocol?: string): { protocol: ResolvedProtocol; origins: Record<string, string[]> } {
  return resolveLayers(input, { rootDir, ...(protocol ? { protocol } : {}) })
}

function problemsOf(input: LayerInput[], protocol?: string): string[] {
  try {
    resolved(input, protocol)
  } catch (error) {
    expect(error).toBeInstanceOf(VerifyConfigError)
    return (error as VerifyConfigError).problems
  }
  throw new Error('expected a VerifyConfigError')
}

const byId = (protocol: ResolvedProtocol, id: string) => protocol.checks.find((c) => c.id === id)

describe('mergeLayers: single protocols', () => {
  const preset = {
    timeout: '2m',
    checks: {
      build: 'npm run build',
      lint: { command: 'eslint .', timeout: '30s' },
      test: { name: 'Unit tests', command: 'vitest', evidenceType: 'test_pass', timeout: '90s', dependsOn: ['build'] },
    },
  }

  it("a user's `test: { command }` keeps the preset's name, type, timeout and dependsOn", () => {
    const { protocol } = resolved(layers(preset, { checks: { test: { command: 'vitest run --coverage' } } }))
    expect(byId(protocol, 'test')).toMatchObject({
      name: 'Unit tests',
      command: 'vitest run --coverage',
      evidenceType: 'test_pass',
      timeoutMs: 90_000,
      dependsOn: ['build'],
    })
  })

  it('a string override replaces only the command', () => {
    const { protocol } = resolved(layers(preset, { checks: { lint: 'oxlint' } }))
    expect(byId(protocol, 'lint')).toMatchObject({ command: 'oxlint', timeoutMs: 30_000 })
  })

  it('`false` removes an inherited check', () => {
    const { protocol } = resolved(layers(preset, { checks: { lint: false } }))
    expect(protocol.checks.map((c) => c.id)).toEqual(['build', 'test'])
  })

  it('keeps declaration order: lower layers first, then new ids of each later layer', () => {
    const { protocol } = resolved(layers({ checks: { a: 'x', b: 'x' } }, { checks: { c: 'x', a: { timeout: '1m' } } }, { checks: { d: 'x', b: 'y' } }))
    expect(protocol.checks.map((c) => c.id)).toEqual(['a', 'b', 'c', 'd'])
  })

  it('options: a later layer wins key by key; unset keys come from lower layers', () => {
    const { protocol } = resolved(layers({ strictMode: true, timeout: '2m', failFast: true }, { failFast: false, checks: { a: 'x' } }))
    expect(protocol).toMatchObject({ strictMode: true, timeoutMs: 120_000, failFast: false })
  })

  it('the protocol is named by the last layer that names it', () => {
    expect(resolved(layers({ name: 'team', checks: { a: 'x' } }, { checks: { b: 'x' } })).protocol.name).toBe('team')
    expect(resolved(layers({ name: 'team', checks: { a: 'x' } }, { name: 'pre-merge', checks: {} })).protocol.name).toBe('pre-merge')
  })

  it('arrays are replaced, never concatenated: no duplicated dependency or input', () => {
    const { protocol } = resolved(
      layers(
        { checks: { a: 'x', b: 'x', c: { command: 'x', dependsOn: ['a'], inputs: ['src/**'] } } },
        { checks: { c: { dependsOn: ['b'], inputs: ['lib/**'] } } },
      ),
    )
    expect(byId(protocol, 'c')).toMatchObject({ dependsOn: ['b'], inputs: ['lib/**'] })
  })

  it('remembers the layers each check came from', () => {
    const { origins } = resolved(layers(preset, { checks: { test: { command: 'x' }, docs: 'y' } }))
    expect(origins).toEqual({ build: ['preset-0'], lint: ['preset-0'], test: ['preset-0', 'verify.config.ts'], docs: ['verify.config.ts'] })
  })

  it('a check re-added after its removal starts from scratch and from the layer that re-added it', () => {
    const input = layers({ checks: { lint: { command: 'eslint', timeout: '1m' } } }, { checks: { lint: false } }, { checks: { lint: 'oxlint' } })
    const { protocol, origins } = resolved(input)
    expect(byId(protocol, 'lint')).toMatchObject({ command: 'oxlint', timeoutMs: 600_000 })
    expect(origins.lint).toEqual(['verify.config.ts'])
  })
})

describe('mergeLayers: problems', () => {
  it("prefixes a layer's problems with the chain that led to it; the project's own are bare", () => {
    const problems = problemsOf(layers({ stricMode: true, checks: { lint: { comand: 'x' } } }, { checks: { a: { command: 'x', timeout: 'soon' } } }))
    expect(problems).toEqual([
      'verify.config.ts → preset-0: (root): unknown key "stricMode"',
      'verify.config.ts → preset-0: checks.lint: unknown key "comand"',
      expect.stringMatching(/^checks\.a\.timeout: expected a duration/),
    ])
  })

  it('says which layers set a check that is invalid once merged', () => {
    const problems = problemsOf(layers({ checks: { a: 'x' } }, { checks: { test: { timeout: '1m' } } }))
    expect(problems).toEqual([expect.stringMatching(/^checks\.test: a check needs exactly one of .* \(set in verify\.config\.ts\)$/)])
  })

  it('names the layer that removed a check another one depends on', () => {
    const problems = problemsOf(layers({ checks: { build: 'x', test: { command: 'y', dependsOn: ['build'] } } }, { checks: { build: false } }))
    expect(problems).toEqual([expect.stringMatching(/^checks\.test\.dependsOn: "build" was removed \(`build: false` in verify\.config\.ts\)/)])
  })

  it('reports a layer that is not an object, with the others', () => {
    const problems = problemsOf(layers('npm test', { checks: { a: 'x', b: { comand: 'y' } } }))
    expect(problems).toEqual([expect.stringMatching(/^verify\.config\.ts → preset-0: \(root\): expected/), 'checks.b: unknown key "comand"'])
  })
})

describe('mergeLayers: defineConfig layers', () => {
  it('protocols merge by name; a single-protocol layer merges into "default"', () => {
    const merged = mergeLayers(
      layers(
        { timeout: '1m', checks: { build: 'make', lint: 'eslint' } },
        { protocols: { nightly: { checks: { bench: 'x' } } } },
        { failFast: true, protocols: { default: { checks: { lint: false, test: 'vitest' } }, deploy: { extends: 'default', checks: { e2e: 'pw' } } } },
      ),
    )
    expect(Object.keys(merged.protocols)).toEqual(['default', 'nightly', 'deploy'])
    const deploy = resolveLayers(
      layers(
        { timeout: '1m', checks: { build: 'make', lint: 'eslint' } },
        {
          failFast: true,
          protocols: { default: { checks: { lint: false, test: 'vitest' } }, deploy: { extends: 'default', strictMode: true, checks: { e2e: 'pw' } } },
        },
      ),
      { rootDir, protocol: 'deploy' },
    )
    expect(deploy.protocol).toMatchObject({ name: 'deploy', strictMode: true, failFast: true, timeoutMs: 60_000 })
    expect(deploy.protocol.checks.map((c) => c.id)).toEqual(['build', 'test', 'e2e'])
    expect(deploy.origins).toEqual({ build: ['preset-0'], test: ['verify.config.ts'], e2e: ['verify.config.ts'] })
  })

  it('a defineConfig preset is extended by a single protocol: it merges into the protocol of the same name', () => {
    const { protocol } = resolved(
      layers({ protocols: { default: { checks: { build: 'make' } }, release: { checks: { tag: 'git tag' } } } }, { checks: { test: 'vitest' } }),
    )
    expect(protocol.checks.map((c) => c.id)).toEqual(['build', 'test'])
    expect(
      resolved(
        layers({ protocols: { default: { checks: { build: 'make' } }, release: { checks: { tag: 'x' } } } }, { checks: { test: 'y' } }),
        'release',
      ).protocol.checks.map((c) => c.id),
    ).toEqual(['tag'])
  })
})

describe('a named single-protocol preset under a defineConfig', () => {
  const preset = { name: 'acme', description: 'ACME gate', strictMode: true, checks: { audit: 'npm audit' } }
  const project = { protocols: { default: { checks: { build: 'make' } }, release: { extends: 'default', checks: { tag: 'git tag' } } } }

  it('merges into "default" (its name is not a protocol of its own), so no check is dropped', () => {
    const merged = mergeLayers(layers(preset, project))
    expect(Object.keys(merged.protocols)).toEqual(['default', 'release'])
    const { protocol } = resolved(layers(preset, project))
    expect(protocol).toMatchObject({ name: 'default', strictMode: true, description: 'ACME gate' })
    expect(protocol.checks.map((c) => c.id)).toEqual(['audit', 'build'])
    expect(resolved(layers(preset, project), 'release').protocol.checks.map((c) => c.id)).toEqual(['audit', 'build', 'tag'])
  })

  it("the project's own single protocol over a defineConfig preset fills the preset's default", () => {
    const { protocol } = resolved(layers({ protocols: { default: { checks: { build: 'make' } } } }, { name: 'pre-merge', checks: { test: 'vitest' } }))
    expect(protocol.name).toBe('default')
    expect(protocol.checks.map((c) => c.id)).toEqual(['build', 'test'])
  })
})

describe("dependsOn: '*'", () => {
  it('stands for every other required command or function check, in order, and is passed in VERIFY_DEPENDS_ON', () => {
    const { protocol } = resolved(
      layers({
        checks: {
          build: 'x',
          lint: { command: 'x', required: false },
          review: { manual: 'look' },
          smoke: { run: () => true },
          'error-free': { run: () => true, dependsOn: ['*'] },
          test: 'x',
        },
      }),
    )
    const check = byId(protocol, 'error-free')
    expect(check?.dependsOn).toEqual(['build', 'smoke', 'test'])
    expect(check?.env.VERIFY_DEPENDS_ON).toBe('build,smoke,test')
  })

  it('leaves out other wildcard checks and the checks that depend on it, so there is no cycle', () => {
    const { protocol } = resolved(
      layers({
        checks: {
          build: 'x',
          a: { command: 'x', dependsOn: ['*'] },
          b: { command: 'x', dependsOn: ['*', 'a'] },
          report: { command: 'x', dependsOn: ['a'] },
          after: { command: 'x', dependsOn: ['report'] },
        },
      }),
    )
    expect(byId(protocol, 'a')?.dependsOn).toEqual(['build'])
    expect(byId(protocol, 'b')?.dependsOn).toEqual(['a', 'build', 'report', 'after'])
  })

  it('is not an unknown id', () => {
    expect(() => resolved(layers({ checks: { a: { command: 'x', dependsOn: ['*'] } } }))).not.toThrow()
  })
})

describe('mergeCheckLayersWithOrigins', () => {
  it('skips undefined entries (a spread of optional preset checks)', () => {
    const merged = mergeCheckLayersWithOrigins([{ label: 'p', checks: { a: 'x', b: undefined as never } }])
    expect(merged.checks).toEqual({ a: 'x' })
    expect(merged.origins).toEqual({ a: ['p'] })
  })
})

describe('mergeConfigObjects (the merger c12 uses for $env, .verifyrc and package.json)', () => {
  it('the first object wins, like defu', () => {
    expect(mergeConfigObjects({ failFast: true }, { failFast: false, timeout: '1m' })).toEqual({ failFast: true, timeout: '1m' })
  })

  it('replaces arrays instead of concatenating them', () => {
    expect(mergeConfigObjects({ redact: ['a'] }, { redact: ['b', 'c'] })).toEqual({ redact: ['a'] })
    expect(mergeConfigObjects({ checks: { t: { dependsOn: ['lint'] } } }, { checks: { t: { command: 'x', dependsOn: ['build'] } } })).toEqual({
      checks: { t: { command: 'x', dependsOn: ['lint'] } },
    })
  })

  it('merges checks by id: a string keeps the other fields, an object over a string keeps the command, false removes', () => {
    const base = { checks: { test: { command: 'vitest', timeout: '5m' }, lint: 'eslint', build: 'make' } }
    expect(mergeConfigObjects({ checks: { test: 'vitest run', lint: { timeout: '1m' }, build: false } }, base)).toEqual({
      checks: { test: { command: 'vitest run', timeout: '5m' }, lint: { command: 'eslint', timeout: '1m' }, build: false },
    })
  })

  it('merges checks by id inside protocols too', () => {
    const merged = mergeConfigObjects({ protocols: { ci: { checks: { test: { timeout: '9m' } } } } }, { protocols: { ci: { checks: { test: 'vitest' } } } })
    expect(merged).toEqual({ protocols: { ci: { checks: { test: { command: 'vitest', timeout: '9m' } } } } })
  })

  it('skips undefined sources', () => {
    expect(mergeConfigObjects(undefined, { a: 1 }, undefined)).toEqual({ a: 1 })
  })
})
