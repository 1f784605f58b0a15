// Who writes to verify's stdout, where a program may read a hook's answer or a JSON report: the command, and a custom
// reporter while its hook runs (docs/cli.md: `console.log` in `onRunEnd`). Anything else in the process (a config or
// preset as it loads or from its timers, a library) is sent to stderr.

let original: typeof process.stdout.write | null = null

/** Points process.stdout.write at stderr; returns the write that still reaches stdout. Once per process. */
export function takeStdout(): (text: string) => boolean {
  original ??= process.stdout.write
  const write = original.bind(process.stdout) as (text: string) => boolean
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write
  return write
}

/** Runs `fn` with process.stdout.write reaching stdout again (as it does when stdout was never taken). */
export function withStdout<T>(fn: () => T): T {
  if (!original) return fn()
  const taken = process.stdout.write
  process.stdout.write = original
  try {
    return fn()
  } finally {
    process.stdout.write = taken
  }
}
