// When a runner's option counts as the check's own (src/integrations/command-words.ts, commandGives): only when the check's
// command gives that option the same value, never because the value is some other word of the command.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { commandGives, commandWords, optionLeftOut, optionNotGiven } from '../../src/integrations/command-words.js'
import { narrowedRunReason } from '../../src/integrations/jest/reporter.js'
import type { ResolvedCheck } from '../../src/types.js'

const check = (command: string | string[]) => ({ id: 'test', command, cwd: '/project' }) as unknown as ResolvedCheck

describe('commandGives', () => {
  it("a word of the command that is not the option's value does not count (`npm test` and `--dir test`)", () => {
    expect(commandGives(check('npm test'), ['dir'], 'test', '/project')).toBe(false)
    expect(commandGives(check('vitest run test/unit'), ['dir'], 'test/unit', '/project')).toBe(false)
  })

  it('the same option with the same value counts, typed either way, or a path to the same place', () => {
    expect(commandGives(check('vitest run --dir test'), ['dir'], 'test', '/project')).toBe(true)
    expect(commandGives(check('vitest run --dir=test'), ['dir'], './test', '/project')).toBe(true)
    expect(commandGives(check(['jest', '-c', 'jest.ci.js']), ['c', 'config'], '/project/jest.ci.js', '/elsewhere')).toBe(true)
    expect(commandGives(check('jest --test-path-ignore-patterns e2e'), ['testPathIgnorePatterns'], 'e2e', '/project')).toBe(true)
  })

  it('another option, another value, or no command does not count', () => {
    expect(commandGives(check('vitest run --root test'), ['dir'], 'test', '/project')).toBe(false)
    expect(commandGives(check('vitest run --dir src'), ['dir'], 'test', '/project')).toBe(false)
    expect(commandGives({ id: 'test', cwd: '/project' } as unknown as ResolvedCheck, ['dir'], 'test', '/project')).toBe(false)
  })
})

describe('commandWords', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verify-command-words-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ scripts: { test: 'jest --passWithNoTests', unit: 'npm run inner', inner: 'vitest run --dir test', loop: 'npm run loop' } }),
  )
  const at = (command: string) => ({ id: 'test', command, cwd: dir }) as unknown as ResolvedCheck

  it("adds the words of the package.json script the command runs, so that a runner's options from there are the check's", () => {
    expect(commandWords(at('npm test'))).toEqual(['npm', 'test', ';', 'jest', '--passWithNoTests'])
    expect(commandWords(at('pnpm run unit'))).toContain('--dir')
    expect(commandGives(at('yarn unit'), ['dir'], 'test', dir)).toBe(true)
    expect(narrowedRunReason('/x/node_modules/jest/bin/jest.js', ['--passWithNoTests'], dir, at('npm test'))).toBeNull()
    expect(narrowedRunReason('/x/node_modules/jest/bin/jest.js', ['--testTimeout', '99999'], dir, at('npm test'))).toMatch(/--testTimeout 99999/)
  })

  it('stops at a script that runs itself', () => {
    expect(commandWords(at('npm run loop')).length).toBeLessThan(20)
  })
})

const harmless = (name: string) => name === 'reporter'
const needed = (name: string) => !harmless(name)

describe('a runner command line against the check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verify-runner-line-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ scripts: { test: 'npm run typecheck && vitest run --coverage', typecheck: 'tsc -p tsconfig.json', lint: 'eslint --max-warnings 0 .' } }),
  )
  const at = (command: string) => ({ id: 'test', command, cwd: dir }) as unknown as ResolvedCheck
  const VITEST = /(?:^|[\\/])vitest(?:\.mjs)?$/
  const aliases = [['coverage', 'coverage.enabled']]

  it("`--coverage false` turns off the check's `--coverage`: not the check's own", () => {
    expect(optionNotGiven(['run', '--coverage', 'false'], at('vitest run --coverage'), harmless)).toBe('--coverage false')
    expect(optionNotGiven(['--passWithNoTests', 'run'], at('vitest run --passWithNoTests'), harmless)).toBeNull()
    // Alone before the end of its command, too.
    expect(optionNotGiven(['--passWithNoTests', 'run'], at('vitest run --passWithNoTests && echo done'), harmless)).toBeNull()
  })

  it("options of another command of the script (tsc's -p, before `&&`) are not the runner's", () => {
    expect(optionLeftOut(['run', '--coverage'], at('npm test'), VITEST, needed, aliases)).toBeNull()
    expect(optionLeftOut(['run'], at('npm test'), VITEST, needed, aliases)).toBe('--coverage')
    expect(optionLeftOut(['run'], at('npm run lint && vitest run'), VITEST, needed, aliases)).toBeNull()
  })

  it('what the command passes on to the script joins its runner: a run without it leaves it out', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { plain: 'vitest run', nested: 'npm run plain' } }))
    expect(optionLeftOut(['run'], at('npm run plain -- --coverage'), VITEST, needed, aliases)).toBe('--coverage')
    expect(optionLeftOut(['run'], at('pnpm plain --coverage'), VITEST, needed, aliases)).toBe('--coverage')
    expect(optionLeftOut(['run'], at('npm run nested -- --coverage'), VITEST, needed, aliases)).toBe('--coverage')
    expect(optionLeftOut(['run', '--coverage'], at('npm run plain -- --coverage'), VITEST, needed, aliases)).toBeNull()
  })

  it('an option given under another of its names is given', () => {
    expect(optionLeftOut(['run', '--coverage.enabled=true'], at('vitest run --coverage'), VITEST, needed, aliases)).toBeNull()
  })
})
