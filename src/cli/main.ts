// The `verify` command line: dispatch to a command, turn known errors into one paragraph and an exit code.
import { writeSync } from 'node:fs'
import { VerifyConfigError, VerifyError } from '../errors.js'
import { untrusted } from '../reporters/safe-text.js'
import { flushOutput } from '../runner/flush.js'
import { TOOL } from '../version.js'
import { ExitCode } from './exit-code.js'
import { VALUE_FLAGS } from './flags.js'
import { APPROVE_HELP, CHECK_HELP, HELP, HOOK_HELP, INIT_HELP, LIST_HELP, MERGE_HELP, RUN_HELP, SCHEMA_HELP } from './help.js'
import { lostOutput, processIO, type CliIO } from './io.js'
import { safeIO } from './output.js'
import { closest } from '../suggest.js'

type Command = (argv: string[], io: CliIO) => Promise<number>

// What a stdout that cannot be written leaves standing, per command (see lostOutput): a run's or a check's exit code is
// the verdict and stands; a hook's answer is the gate itself, so without it the stop is blocked.
const KEEPS_EXIT_CODE: Record<string, string> = {
  run: 'the output is lost; the evidence is still written and the exit code is the verdict',
  check: 'the output is lost; the exit code is still the verdict',
  approve: 'the output is lost; the approval is still recorded',
  merge: 'the output is lost; the merged evidence is still written',
  init: 'the output is lost; the files it wrote are kept',
}
const HOOK_ANSWER_LOST = 'the answer to the agent is lost, so the stop is blocked (exit 2)'

function expectLostOutput(command: string | undefined): void {
  const kept = command === undefined ? undefined : KEEPS_EXIT_CODE[command]
  Object.assign(
    lostOutput,
    kept ? { consequence: kept, fails: false } : { consequence: command === 'hook' ? HOOK_ANSWER_LOST : 'the output is lost (exit 2)', fails: true },
  )
}

// Each command is imported only when it runs: `verify list` must not pay for the runner's modules.
const COMMANDS: Record<string, { run: Command; help: string }> = {
  run: { run: async (argv, io) => (await import('./run.js')).runCommand(argv, io), help: RUN_HELP },
  check: { run: async (argv, io) => (await import('./check.js')).checkCommand(argv, io), help: CHECK_HELP },
  approve: { run: async (argv, io) => (await import('./approve.js')).approveCommand(argv, io), help: APPROVE_HELP },
  merge: { run: async (argv, io) => (await import('./merge.js')).mergeCommand(argv, io), help: MERGE_HELP },
  list: { run: async (argv, io) => (await import('./list.js')).listCommand(argv, io), help: LIST_HELP },
  init: { run: async (argv, io) => (await import('./init.js')).initCommand(argv, io), help: INIT_HELP },
  schema: { run: async (argv, io) => (await import('./schema.js')).schemaCommand(argv, io), help: SCHEMA_HELP },
  hook: { run: async (argv, io) => (await import('./hook.js')).hookCommand(argv, io), help: HOOK_HELP },
}

/** Where the command is: the first word that is not a flag or a flag's value (`verify --no-color check` works). */
function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string
    if (word === '--') return -1
    if (word.startsWith('-')) {
      if (VALUE_FLAGS.has(word)) i++
      continue
    }
    return Object.hasOwn(COMMANDS, word) ? i : -1
  }
  return -1
}

/** `verify lsit`: a word that named no protocol, and is a typo of a command. */
function mistypedCommand(argv: readonly string[], error: unknown): string | undefined {
  if (!(error instanceof VerifyError) || error.code !== 'E_PROTOCOL_NOT_FOUND') return undefined
  const word = argv.find((w, i) => !w.startsWith('-') && (i === 0 || !VALUE_FLAGS.has(argv[i - 1] as string)))
  return word ? closest(word, Object.keys(COMMANDS)) : undefined
}

/**
 * Formats an error for people: what went wrong and every problem found, never a stack trace. Messages quote config
 * files, evidence and thrown errors: untrusted text.
 */
export function formatError(error: unknown): string {
  if (error instanceof VerifyConfigError) {
    const problems = error.problems.map((p) => `  - ${untrusted(p, 'lines')}`).join('\n')
    return `verify: ${untrusted(error.message, 'lines')}${problems ? `\n${problems}` : ''}\n`
  }
  if (error instanceof VerifyError) return `verify: ${untrusted(error.message, 'lines')}\n`
  const message = error instanceof Error ? error.message : String(error)
  return `verify: unexpected error: ${untrusted(message, 'lines')}\n  (set DEBUG=verify for details)\n`
}

/** Runs the CLI with the given arguments and returns the exit code. Never exits the process itself. */
export async function cli(argv: string[], rawIO: CliIO = processIO()): Promise<number> {
  // Masks the environment's secrets from the first byte: a config that fails to load is reported before its own
  // secrets are known.
  const io = safeIO(rawIO)
  const [first] = argv
  if (first === '--version' || first === '-v') {
    io.stdout(`${TOOL.version}\n`)
    return ExitCode.approved
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(HELP)
    return ExitCode.approved
  }
  const at = commandIndex(argv)
  const name = at >= 0 ? (argv[at] as string) : 'run'
  const command = COMMANDS[name] as (typeof COMMANDS)[string]
  const args = at >= 0 ? argv.filter((_, i) => i !== at) : argv
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(command.help)
    return ExitCode.approved
  }
  expectLostOutput(name)
  try {
    await import('../runner/zod-mode.js')
    return await command.run(args, io)
  } catch (error) {
    // Ctrl-C at a question (`verify init`, `verify approve`) is an interrupt, not an error.
    if (error instanceof Error && error.name === 'AbortError' && /Ctrl\+C/.test(error.message)) {
      io.stderr(`verify: interrupted (Ctrl-C) at a question: nothing more was done.\n`)
      return ExitCode.SIGINT
    }
    io.stderr(formatError(error))
    const typo = at < 0 ? mistypedCommand(argv, error) : undefined
    if (typo) io.stderr(`  Did you mean \`verify ${typo}\`? (commands: ${Object.keys(COMMANDS).join(', ')})\n`)
    if (io.env.DEBUG?.includes('verify') && error instanceof Error && error.stack) io.stderr(`${untrusted(error.stack, 'lines')}\n`)
    return ExitCode.usage
  }
}

/**
 * The bin's entry. Exits explicitly, once stdout and stderr are flushed: a timer left by a config must not keep verify
 * alive, and exiting with writes still queued for a pipe would cut the output.
 */
export async function main(argv: string[]): Promise<void> {
  let finished = false
  // Something verify loaded (a config's timer, a reporter) ended the process before the verdict: never a success.
  process.on('exit', (code) => {
    if (finished || code !== 0) return
    process.exitCode = ExitCode.usage
    try {
      writeSync(
        2,
        'verify: the process was ended (process.exit or nothing left to wait for) before verify finished: something it loaded — the config, a preset, a reporter — ended it. Exit code 2, no verdict.\n',
      )
    } catch {
      // stderr is gone: the exit code still says it.
    }
  })
  const code = await cli(argv)
  await flushOutput()
  finished = true
  // The output was the result and did not reach the reader: never a success (nor a hook's silent pass).
  process.exit(lostOutput.happened && lostOutput.fails ? ExitCode.usage : code)
}
