import { describe, expect, it } from 'vitest'
import type { CheckEntry } from '../../src/config/define.js'
import { mergeCheck, mergeCheckLayers } from '../../src/config/merge.js'

const run = async () => true

/** Ids that are still checks after the merge (a removed check may linger as `false`). */
const liveIds = (merged: Record<string, CheckEntry>) =>
  Object.entries(merged)
    .filter(([, entry]) => entry !== false)
    .map(([id]) => id)

describe('mergeCheck', () => {
  it('keeps the base fields the override does not set', () => {
    const merged = mergeCheck(
      { name: 'Build', command: 'npm run build', timeout: '2m', evidenceType: 'build_success', env: { A: '1' } },
      { required: false, timeout: '5m' },
    )
    expect(merged).toEqual({ name: 'Build', command: 'npm run build', timeout: '5m', evidenceType: 'build_success', env: { A: '1' }, required: false })
  })

  it('replaces the kind: a `run` override drops the base command', () => {
    const merged = mergeCheck({ command: 'npm test', timeout: '1m' }, { run })
    expect(merged).toEqual({ run, timeout: '1m' })
    expect(merged).not.toHaveProperty('command')
  })

  it('replaces the kind: a `manual` override drops the base command, a `command` override drops manual', () => {
    expect(mergeCheck({ command: 'npm test', name: 'T' }, { manual: 'look at it' })).toEqual({ manual: 'look at it', name: 'T' })
    expect(mergeCheck({ manual: true, name: 'T' }, { command: ['node', 'x.js'] })).toEqual({ command: ['node', 'x.js'], name: 'T' })
  })

  it('a string override replaces the command and keeps timeout and evidenceType', () => {
    const merged = mergeCheck({ command: 'npm run lint', timeout: '30s', evidenceType: 'lint_clean', required: false }, 'eslint .')
    expect(merged).toEqual({ command: 'eslint .', timeout: '30s', evidenceType: 'lint_clean', required: false })
  })

  it('a string override of a function check drops the function', () => {
    expect(mergeCheck({ run: () => true, name: 'Smoke' }, 'node smoke.js')).toEqual({ command: 'node smoke.js', name: 'Smoke' })
  })

  it('an object override of a string base keeps the command', () => {
    expect(mergeCheck('npm run build', { timeout: '3m' })).toEqual({ command: 'npm run build', timeout: '3m' })
  })

  it('ignores fields the override sets to undefined', () => {
    expect(mergeCheck({ command: 'x', timeout: '1m' }, { timeout: undefined, required: false })).toEqual({ command: 'x', timeout: '1m', required: false })
  })

  it('`false` removes; a check over `false` starts from scratch', () => {
    expect(mergeCheck({ command: 'x' }, false)).toBe(false)
    expect(mergeCheck(false, { command: 'y' })).toEqual({ command: 'y' })
  })

  it('replaces arrays instead of concatenating them', () => {
    const merged = mergeCheck({ command: 'x', dependsOn: ['build'], inputs: ['src/**'] }, { dependsOn: ['build', 'lint'], inputs: ['lib/**'] })
    expect(merged).toMatchObject({ dependsOn: ['build', 'lint'], inputs: ['lib/**'] })
  })

  it('does not mutate its inputs', () => {
    const base = { command: 'a', timeout: '1m' as const }
    const override = { run: () => true }
    mergeCheck(base, override)
    expect(base).toEqual({ command: 'a', timeout: '1m' })
    expect(Object.keys(override)).toEqual(['run'])
  })
})

describe('mergeCheckLayers', () => {
  it('keeps the base ids in their order and appends new ids of each later layer in theirs', () => {
    const merged = mergeCheckLayers([
      { build: 'b', lint: 'l', test: 't' },
      { e2e: 'e', test: { timeout: '1m' }, docs: 'd' },
      { audit: 'a', build: 'b2' },
    ])
    expect(Object.keys(merged)).toEqual(['build', 'lint', 'test', 'e2e', 'docs', 'audit'])
    expect(merged.build).toEqual({ command: 'b2' })
    expect(merged.test).toEqual({ command: 't', timeout: '1m' })
  })

  it('merges fields by id across layers (no duplicated checks)', () => {
    const merged = mergeCheckLayers([
      { test: { command: 'vitest', timeout: '5m', evidenceType: 'test_pass' } },
      { test: { required: false } },
      { test: 'vitest run --coverage' },
    ])
    expect(Object.keys(merged)).toEqual(['test'])
    expect(merged.test).toEqual({ command: 'vitest run --coverage', timeout: '5m', evidenceType: 'test_pass', required: false })
  })

  it('`false` removes an inherited check, and it stays removed', () => {
    const merged = mergeCheckLayers([{ build: 'b', lint: 'l', test: 't' }, { lint: false }, { test: { timeout: '1m' } }])
    expect(liveIds(merged)).toEqual(['build', 'test'])
  })

  it('a later layer can re-add a removed check, without the fields it had before removal', () => {
    const merged = mergeCheckLayers([{ lint: { command: 'eslint .', timeout: '1m', required: false } }, { lint: false }, { lint: { command: 'oxlint' } }])
    expect(liveIds(merged)).toEqual(['lint'])
    expect(merged.lint).toEqual({ command: 'oxlint' })
  })

  it('returns an empty object for no layers and is stable for one', () => {
    expect(mergeCheckLayers([])).toEqual({})
    expect(mergeCheckLayers([{ b: 'x', a: 'y' }])).toEqual({ b: 'x', a: 'y' })
    expect(Object.keys(mergeCheckLayers([{ b: 'x', a: 'y' }]))).toEqual(['b', 'a'])
  })
})
