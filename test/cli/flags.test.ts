// Every command's flags are declared once (src/cli/flags.ts): the parser, the help's option lists and the words that
// take a value are derived from the same table, so none of them can miss a flag the others know.
import { describe, expect, it } from 'vitest'
import { parse } from '../../src/cli/args.js'
import { COMMAND_FLAGS, RUN_FLAGS, VALUE_FLAGS } from '../../src/cli/flags.js'
import { APPROVE_HELP, CHECK_HELP, HOOK_HELP, INIT_HELP, LIST_HELP, MERGE_HELP, RUN_HELP } from '../../src/cli/help.js'

const HELP: Record<string, string> = {
  run: RUN_HELP,
  check: CHECK_HELP,
  approve: APPROVE_HELP,
  merge: MERGE_HELP,
  list: LIST_HELP,
  init: INIT_HELP,
  hook: HOOK_HELP,
}

describe('the flag tables', () => {
  for (const [command, help] of Object.entries(HELP)) {
    it(`verify ${command} --help lists every flag the command accepts`, () => {
      for (const [name, flag] of Object.entries(COMMAND_FLAGS[command] ?? {})) {
        if (flag.hidden) continue
        const shown = flag.usage ?? `--${name}${flag.value ? ` ${flag.value}` : ''}`
        expect(help).toContain(`  ${shown} `)
        expect(help).toContain(flag.help[0])
      }
    })
  }

  it('every flag that takes the next word as its value is a value flag for main.ts, and no switch is', () => {
    for (const table of Object.values(COMMAND_FLAGS)) {
      for (const [name, flag] of Object.entries(table)) expect(VALUE_FLAGS.has(`--${name}`)).toBe(flag.type === 'string' && !flag.inline)
    }
    expect(VALUE_FLAGS).toContain('--protocol-from')
    expect(VALUE_FLAGS).not.toContain('--wait')
  })

  it('--wait alone waits without a limit and leaves the next word a positional; --wait=<d> takes d', () => {
    const alone = parse('run', ['--wait', 'deploy'], RUN_FLAGS)
    expect(alone.values.wait).toBe('')
    expect(alone.positionals).toEqual(['deploy'])
    expect(parse('run', ['--wait=5s'], RUN_FLAGS).values.wait).toBe('5s')
  })

  it('a repeatable flag collects every occurrence; a negated switch reads false', () => {
    const { values } = parse('run', ['--only', 'a', '--only', 'b,c', '--no-color', '--no-interactive'], RUN_FLAGS)
    expect(values.only).toEqual(['a', 'b,c'])
    expect(values.color).toBe(false)
    expect(values.interactive).toBe(false)
  })
})

describe('flag values that name nothing', () => {
  it.each([['--evidence='], ['--cwd', ''], ['--config=']])('%s is refused, not taken for the default', (...words) => {
    expect(() => parse('run', words, RUN_FLAGS)).toThrow(/^--(evidence|cwd|config) was given an empty value\. Run `verify run --help`/)
  })

  it('a switch given a value is named as it was typed', () => {
    expect(() => parse('run', ['--no-color=false'], RUN_FLAGS)).toThrow(/^--no-color takes no value\./)
    expect(() => parse('run', ['--color=yes'], RUN_FLAGS)).toThrow(/^--color takes no value\./)
  })

  it('a value that starts with a dash says it read as an option, and how to give it', () => {
    expect(() => parse('run', ['--concurrency', '-1'], RUN_FLAGS)).toThrow(
      '--concurrency needs a value; "-1" reads as an option (write --concurrency=-1 to give it as the value).',
    )
    expect(() => parse('run', ['--concurrency'], RUN_FLAGS)).toThrow(/^--concurrency needs a value\. Run/)
  })
})
