// The CLI's view of its process, injectable so commands can be tested in process.
export interface CliIO {
  stdout: (text: string) => void
  stderr: (text: string) => void
  env: NodeJS.ProcessEnv
  cwd: string
  /** stdout is an interactive terminal. */
  isTTY: boolean
  rows?: number
}

export function processIO(): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
    ...(process.stdout.rows ? { rows: process.stdout.rows } : {}),
  }
}
