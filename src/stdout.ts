// Who writes to verify's stdout, where a program may read a hook's answer or a JSON report: the command. Anything
// else in the process (a config or preset as it loads or from its timers, a library) is sent to stderr, until a
// custom reporter is loaded: its hooks write where any Node program writes (docs/cli.md: `console.log` in
// `onRunEnd`), and a run with one has no machine-read stdout of its own.

let original: typeof process.stdout.write | null = null

/** Points process.stdout.write at stderr; returns the write that still reaches stdout. Once per process. */
export function takeStdout(): (text: string) => boolean {
  original ??= process.stdout.write
  const write = original.bind(process.stdout) as (text: string) => boolean
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write
  return write
}

/** Gives process.stdout.write back to stdout for the rest of the process (a custom reporter was loaded). */
export function releaseStdout(): void {
  if (original) process.stdout.write = original
}

/** Runs `fn` (a question on the terminal) with process.stdout.write reaching stdout, then takes it again. */
export async function withStdout<T>(fn: () => Promise<T>): Promise<T> {
  if (!original) return fn()
  const taken = process.stdout.write
  process.stdout.write = original
  try {
    return await fn()
  } finally {
    process.stdout.write = taken
  }
}
