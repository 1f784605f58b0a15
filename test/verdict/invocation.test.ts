// The next commands recommendations name, completed with what the command was given (a protocol, --config, --cwd,
// --evidence), so that they work when pasted.
import { describe, expect, it } from 'vitest'
import { inContext } from '../../src/verdict/invocation.js'

describe('inContext', () => {
  it('leaves the text alone when the command was given nothing', () => {
    expect(inContext('Run `npx verify` again', {})).toBe('Run `npx verify` again')
  })

  it.each([
    ['run `npx verify` again', 'run `npx verify run deploy --config cfgs/ci.config.ts --evidence out/ev.json` again'],
    ['Run `npx verify run deploy` again', 'Run `npx verify run deploy --config cfgs/ci.config.ts --evidence out/ev.json` again'],
    ['Combine them with `npx verify merge ‹files…>`', 'Combine them with `npx verify merge ‹files…> --config cfgs/ci.config.ts`'],
    ['check with `npx verify check --evidence other.json`', 'check with `npx verify check deploy --evidence other.json --config cfgs/ci.config.ts`'],
    [
      'A person approves it with `npx verify approve review --by <name>`',
      'A person approves it with `npx verify approve review --by <name> --protocol deploy --config cfgs/ci.config.ts --evidence out/ev.json`',
    ],
    [
      'Run `npx verify run --only build` to record fresh evidence',
      'Run `npx verify run deploy --only build --config cfgs/ci.config.ts --evidence out/ev.json` to record fresh evidence',
    ],
  ])('%s', (text, expected) => {
    expect(inContext(text, { protocol: 'deploy', config: 'cfgs/ci.config.ts', evidence: 'out/ev.json' })).toBe(expected)
  })

  it('runs a protocol named like a command with `run`', () => {
    expect(inContext('run `npx verify` again', { protocol: 'merge' })).toBe('run `npx verify run merge` again')
  })

  it('quotes a value a shell would split', () => {
    expect(inContext('run `npx verify` again', { cwd: "my project's dir" })).toBe("run `npx verify run --cwd 'my project'\\''s dir'` again")
  })
})
