// The CLI's view of its process, injectable so commands can be tested in process.
import { createInterface } from 'node:readline/promises'
import type { ReporterHost } from '../reporters/options.js'
import { takeStdout, withStdout } from '../stdout.js'
import { readStream } from './stdin.js'

/** The process as commands see it: where reporters write (ReporterHost), plus what only the CLI needs. */
export interface CliIO extends ReporterHost {
  /** Asks a person a question on the terminal; null when the input was closed (Ctrl-D). Absent without a terminal. */
  prompt?: (question: string) => Promise<string | null>
  /** All of stdin as text, bounded in size and time (`verify hook` reads the agent's JSON with it). */
  readStdin?: (maxBytes: number, timeoutMs: number) => Promise<string>
  /** Bytes written and not yet taken by the reader (a slow pipe); live output is held to a budget by it. */
  backlog?: () => number
}

/**
 * What a stdout that cannot be written (`> /dev/full`, a full disk) costs the command that runs: `main` sets it once the
 * command is known. `fails`: the output was the command's result (`list`, `schema`, a hook's answer), so the exit code
 * becomes 2; otherwise the command's own exit code stands (a run's verdict, with its evidence written).
 */
export const lostOutput = { consequence: 'the output is lost (exit 2)', fails: true, happened: false }

// A reader that went away (`verify | head`) must not crash the run: the evidence is still written. Nor does
// an output that cannot be written: one line on stderr says so, never a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || lostOutput.happened || stream === process.stderr) return
    lostOutput.happened = true
    process.stderr.write(`verify: cannot write to standard output (${error.code ?? error.message}): ${lostOutput.consequence}.\n`)
  })
}

/** The process's streams as commands see them: only the command (and custom reporters) reach stdout (stdout.ts). */
export function processIO(): CliIO {
  const write = takeStdout()
  return {
    stdout: (text) => write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
    ...(process.stdout.rows ? { rows: process.stdout.rows } : {}),
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    ...(process.stdin.isTTY ? { prompt: ask } : {}),
    readStdin: (maxBytes, timeoutMs) => readStream(process.stdin, maxBytes, timeoutMs),
    backlog: () => Math.max(process.stdout.writableLength, process.stderr.writableLength),
  }
}

// The question goes to the terminal on stdout, where a person looks (stdout.ts sends other writes to stderr).
function ask(question: string): Promise<string | null> {
  return withStdout(() => askOnce(question))
}

async function askOnce(question: string): Promise<string | null> {
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    return await rl.question(question)
  } catch (error) {
    // Ctrl-D closes the input: no answer, which is not an interrupt (Ctrl-C still is one).
    if ((error as Error).name === 'AbortError' && /Ctrl\+D/.test((error as Error).message)) {
      process.stdout.write('\n')
      return null
    }
    throw error
  } finally {
    rl.close()
  }
}
