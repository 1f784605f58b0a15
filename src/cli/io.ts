// The CLI's view of its process, injectable so commands can be tested in process.
import { createInterface } from 'node:readline/promises'
export interface CliIO {
  stdout: (text: string) => void
  stderr: (text: string) => void
  env: NodeJS.ProcessEnv
  cwd: string
  /** stdout is an interactive terminal. */
  isTTY: boolean
  rows?: number
  /** Terminal width, when stdout is one. */
  columns?: number
  /** Asks a person a question on the terminal; absent when stdin is not a terminal. */
  prompt?: (question: string) => Promise<string>
}

// A reader that went away (`verify | head`) must not crash the run: the evidence is still written. Nor does
// an output that cannot be written (`> /dev/full`, a full disk): one line on stderr says so, never a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  let told = false
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || told || stream === process.stderr) return
    told = true
    process.stderr.write(`verify: cannot write to standard output (${error.code ?? error.message}): the output is lost, the evidence file is still written.\n`)
  })
}

export function processIO(): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
    ...(process.stdout.rows ? { rows: process.stdout.rows } : {}),
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    ...(process.stdin.isTTY ? { prompt: ask } : {}),
  }
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    return await rl.question(question)
  } finally {
    rl.close()
  }
}
