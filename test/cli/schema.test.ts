// `verify schema [config|evidence|approvals]`: JSON Schemas generated from the zod schemas. The evidence and approvals
// schemas must accept every file the tool writes (generated here by running the CLI on fixtures) and reject broken ones.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, fixture, runCli, sandbox } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'
import { validate } from '../helpers/json-schema.js'

afterAll(cleanup)

let evidenceSchema: Record<string, unknown>
let configSchema: Record<string, unknown>
let approvalsSchema: Record<string, unknown>

beforeAll(async () => {
  const [evidence, config, approvals, plain] = await Promise.all([
    runCli(['schema', 'evidence']),
    runCliInProcess(['schema', 'config']),
    runCliInProcess(['schema', 'approvals']),
    runCliInProcess(['schema']),
  ])
  for (const result of [evidence, config, approvals, plain]) expect(result.code, diagnose(result)).toBe(0)
  evidenceSchema = JSON.parse(evidence.stdout) as Record<string, unknown>
  configSchema = JSON.parse(config.stdout) as Record<string, unknown>
  approvalsSchema = JSON.parse(approvals.stdout) as Record<string, unknown>
  expect(plain.stdout).toBe(config.stdout)
})

describe('verify schema evidence', () => {
  it('is a JSON Schema 2020-12 document of an object with the stable fields of SPEC §5', () => {
    expect(evidenceSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    expect(evidenceSchema.required).toEqual(
      expect.arrayContaining(['schemaVersion', 'tool', 'protocol', 'workspace', 'startedAt', 'finishedAt', 'checks', 'summary']),
    )
  })

  // Every kind of run the CLI can record: passes, failures, errors, manual, skips, signing, reuse.
  const runs: [string, string[], Record<string, string>?][] = [
    ['all-pass', []],
    ['required-failure', []],
    ['optional-failure', []],
    ['errors', []],
    ['manual', []],
    ['deps', []],
    ['compose-package', []],
    ['all-pass', [], { VERIFY_SIGNING_KEY: 'a-signing-key-for-the-schema-test' }],
  ]

  it.each(runs)('validates the evidence of a run on fixtures/%s %j', async (name, args, env) => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['run', ...args], { cwd: fixture(name), ...(env ? { env } : {}) })
    expect([0, 1, 3], diagnose(result)).toContain(result.code)
    const file = JSON.parse(readFileSync(box.evidencePath, 'utf8')) as Record<string, unknown>
    expect(validate(evidenceSchema, file)).toEqual([])
    if (env?.VERIFY_SIGNING_KEY) expect(file.signature).toBeDefined()
  })

  it('validates reused evidence (verify run --reuse)', async () => {
    const box = sandbox({ inProcess: true })
    await box.run(['run'], { cwd: fixture('all-pass') })
    await box.run(['run', '--reuse'], { cwd: fixture('all-pass') })
    const file = JSON.parse(readFileSync(box.evidencePath, 'utf8')) as { checks: { evidence: { reused?: boolean } | null }[] }
    expect(file.checks.some((c) => c.evidence?.reused === true)).toBe(true)
    expect(validate(evidenceSchema, file)).toEqual([])
  })

  it('rejects an evidence file that breaks the contract', async () => {
    const box = sandbox({ inProcess: true })
    await box.run(['run'], { cwd: fixture('all-pass') })
    const good = JSON.parse(readFileSync(box.evidencePath, 'utf8')) as Record<string, unknown>
    const broken = (mutate: (file: any) => void) => {
      const copy = structuredClone(good)
      mutate(copy)
      return validate(evidenceSchema, copy)
    }
    expect(broken((f) => (f.schemaVersion = 2))).not.toEqual([])
    expect(broken((f) => (f.checks[0].status = 'running'))).not.toEqual([])
    expect(broken((f) => delete f.checks[0].evidence.fingerprint)).not.toEqual([])
    expect(broken((f) => (f.summary.verdict = 'maybe'))).not.toEqual([])
    expect(broken((f) => (f.startedAt = 'yesterday'))).not.toEqual([])
    expect(broken((f) => (f.protocol.digest = 'md5:abc'))).not.toEqual([])
  })
})

describe('verify schema approvals', () => {
  it('validates the approvals.json `verify approve` writes, and rejects one that breaks its shape', async () => {
    const box = sandbox()
    await box.run(['run'], { cwd: fixture('manual') })
    const approve = await runCli(['approve', 'review', '--by', 'Ann Reviewer', '--note', 'read it', '--evidence', box.evidencePath], { cwd: fixture('manual') })
    expect(approve.code, diagnose(approve)).toBe(0)
    const file = JSON.parse(readFileSync(join(dirname(box.evidencePath), 'approvals.json'), 'utf8'))
    expect(validate(approvalsSchema, file)).toEqual([])
    // More fields are allowed: the format may grow.
    expect(validate(approvalsSchema, { ...file, later: true })).toEqual([])
    const broken = (mutate: (copy: any) => void) => {
      const copy = structuredClone(file)
      mutate(copy)
      return validate(approvalsSchema, copy)
    }
    expect(broken((f) => (f.schemaVersion = 2))).not.toEqual([])
    expect(broken((f) => (f.approvals = []))).not.toEqual([])
    expect(broken((f) => (f.approvals.review.by = 42))).not.toEqual([])
    expect(broken((f) => delete f.approvals.review.fingerprint)).not.toEqual([])
    expect(broken((f) => (f.approvals.review.note = {}))).not.toEqual([])
  })
})

const valid = (config: unknown) => validate(configSchema, config)

describe('verify schema config', () => {
  it('accepts one protocol or several, with layers and $env', () => {
    expect(valid({ checks: { build: 'npm run build', test: { command: ['vitest', 'run'], timeout: '5m', dependsOn: ['build'] }, lint: false } })).toEqual([])
    expect(valid({ extends: ['verify-protocol/presets/node'], allowRemote: false, $env: { ci: { failFast: true } } })).toEqual([])
    expect(valid({ timeout: 60000, protocols: { default: { checks: { a: 'x' } }, deploy: { extends: 'default', checks: { b: { manual: 'ok?' } } } } })).toEqual(
      [],
    )
  })

  it('rejects unknown keys, bad durations and wrong types', () => {
    expect(valid({ checks: { a: { comand: 'x' } } })).not.toEqual([])
    expect(valid({ checks: { a: { command: 'x', timeout: 'soon' } } })).not.toEqual([])
    expect(valid({ checks: { a: 42 } })).not.toEqual([])
    expect(valid({ stricMode: true, checks: {} })).not.toEqual([])
    expect(valid({ extends: 42, checks: {} })).not.toEqual([])
  })

  it('a check takes exactly one kind; an override of an inherited check may take none, never two', () => {
    expect(valid({ checks: { a: { name: 'no kind' } } })).not.toEqual([])
    expect(valid({ checks: { a: { command: 'x', manual: 'and a person' } } })).not.toEqual([])
    expect(valid({ checks: { a: { manual: false } } })).not.toEqual([])
    expect(valid({ checks: { a: { command: 'x', manual: false }, b: { manual: true }, c: { manual: 'read it' } } })).toEqual([])
    // Over layers, in a protocol that extends another, and in $env: fields over an inherited check.
    expect(valid({ extends: ['./base.json'], checks: { test: { timeout: '20m' } } })).toEqual([])
    expect(valid({ protocols: { default: { checks: { t: 'x' } }, deploy: { extends: 'default', checks: { t: { timeout: '20m' } } } } })).toEqual([])
    expect(valid({ checks: { t: 'x' }, $env: { ci: { checks: { t: { timeout: '20m' } } } } })).toEqual([])
    expect(valid({ extends: ['./base.json'], checks: { test: { command: 'x', manual: 'y' } } })).not.toEqual([])
    expect(valid({ protocols: { default: { checks: { t: { timeout: '1m' } } } } })).not.toEqual([])
  })

  it('rejects what only a TypeScript config can hold: functions and RegExps', () => {
    expect(valid({ checks: { a: { run: 'node smoke.mjs' } } })).not.toEqual([])
    expect(valid({ checks: { a: { command: 'x', expect: { output: { source: 'ok' } } } } })).not.toEqual([])
    expect(valid({ redact: [{ source: 'tok_.*' }], checks: { a: 'x' } })).not.toEqual([])
    expect(valid({ redact: ['tok_'], checks: { a: { command: 'x', expect: { output: 'ok', notOutput: 'FAIL' } } } })).toEqual([])
  })

  it('check ids are kebab-case or snake_case', () => {
    expect(valid({ checks: { 'Bad Id!': 'x' } })).not.toEqual([])
    expect(valid({ protocols: { default: { checks: { camelCase: 'x' } } } })).not.toEqual([])
    expect(valid({ checks: { 'unit-tests': 'x', type_check: 'y', e2e: 'z' } })).toEqual([])
  })

  it('tests read exactly one report', () => {
    expect(valid({ checks: { t: { command: 'x', tests: { junit: 'a.xml', vitestJson: 'b.json' } } } })).not.toEqual([])
    expect(valid({ checks: { t: { command: 'x', tests: { min: 3 } } } })).not.toEqual([])
    expect(valid({ checks: { t: { command: 'x', tests: { vitestJson: 'b.json', min: 3 } } } })).toEqual([])
  })

  it('$env blocks (and $development, $production, $test) hold what the file holds', () => {
    expect(valid({ checks: { a: 'x' }, $env: { ci: { bogus: 1 } } })).not.toEqual([])
    expect(valid({ checks: { a: 'x' }, $env: { ci: { timeout: 'soon' } } })).not.toEqual([])
    expect(valid({ checks: { a: 'x' }, $production: { checks: { 'Bad Id': 'y' } } })).not.toEqual([])
    expect(valid({ checks: { a: 'x' }, $env: { ci: { failFast: true, checks: { a: { retries: 2 }, b: 'y' } } }, $test: { timeout: '1m' } })).toEqual([])
    expect(valid({ protocols: { default: { checks: { a: 'x' } } }, $env: { ci: { protocols: { default: { checks: { a: { retries: 1 } } } } } } })).toEqual([])
  })

  it('describes durations, and the parts only TypeScript configs can hold', () => {
    const text = JSON.stringify(configSchema)
    expect(text).toContain('A duration: milliseconds, or a string like')
    expect(text).toContain('TypeScript / JavaScript configs only')
  })
})

describe('usage', () => {
  it('an unknown schema name is a usage error', async () => {
    const result = await runCliInProcess(['schema', 'reporters'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/config, evidence, approvals/)
  })
})
