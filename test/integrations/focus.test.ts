// Focused tests, found by reading the source of the files that skipped tests (neither runner tells its reporters).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { focusedFile } from '../../src/integrations/focus.js'

const dir = mkdtempSync(join(tmpdir(), 'verify-focus-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const focused = (source: string) => {
  const file = join(dir, 'a.test.ts')
  writeFileSync(file, source)
  return focusedFile([file])
}

describe('focusedFile', () => {
  it.each([
    ["test.only('x', () => {})"],
    ["it.concurrent.only('x', () => {})"],
    ["describe['only']('x', () => {})"],
    ["fit('x', () => {})"],
    ["test('x', { only: true }, () => {})"],
    ["describe('x', { timeout: 10, only: true }, () => {})"],
    ["test('x', { 'only': 1 }, () => {})"],
    ["const only = true\ntest('mine', { only }, () => {})"],
    ['it(name, { retry: 2, only }, () => {})'],
    ["test('a, b (c)', { only: true }, () => {})"],
    ["const myTest = test.extend({ db: async ({}, use) => use(1) })\nmyTest('focused', { only: true }, () => {})"],
    ["test('a' + n, { only: true }, () => {})"],
    ["test('a', { retry: { count: 1 }, only: true }, () => {})"],
    ["test('a', { retry: { count: 1 }, only }, () => {})"],
  ])('focused: %s', async (source) => {
    expect(await focused(source)).not.toBeNull()
  })

  it.each([
    ["test('x', () => {})"],
    ["test('x', { only: false }, () => {})"],
    ["test.skip('only one', () => {})"],
    ['const commonly = { notonly: true }'],
    // An `only` that is no test option.
    [
      "const select = (ids, { only }) => ids.filter((id) => !only || only.includes(id))\ntest('selects', () => expect(select(['a'], { only: ['a'] })).toEqual(['a']))",
    ],
    ["const options = { only: ['a'], name: 'x' }"],
  ])('not focused: %s', async (source) => {
    expect(await focused(source)).toBeNull()
  })
})
