// When a runner's option counts as the check's own (src/integrations/test-run.ts, commandGives): only when the check's
// command gives that option the same value, never because the value is some other word of the command.
import { describe, expect, it } from 'vitest'
import { commandGives } from '../../src/integrations/test-run.js'
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
