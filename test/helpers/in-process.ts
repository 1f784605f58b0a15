// The CLI run in this test's own process through `cli(argv, io)`: the same dispatch, config loading, runner and
// verdict as the bin, without a Node start and a module load per call. Used by the matrices (evidence validity,
// config errors …); what is about the process itself (signals, supervision, exit on a full pipe) spawns the bin.
import type { CliIO } from '../../src/cli/io.js'
import type { CliOptions, CliResult } from './cli.js'

// Variables that make verify pick another reporter or mode (CI, GitHub Actions, coding agents); the spawned CLI's
// environment drops the same ones (helpers/cli.ts).
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { INHERITED } from '../setup/env.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const AMBIENT = [...INHERITED, 'CI', 'FORCE_COLOR', 'DEBUG']

/** The environment a spawned CLI would get: this process's, minus the ambient modes, plus `extra` (undefined removes). */
export function cliEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const key of AMBIENT) delete env[key]
  env.NO_COLOR = '1'
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/** An in-memory CliIO: what the command writes is collected, nothing reaches the test's own stdout. */
export interface MemoryIO extends CliIO {
  readonly out: { stdout: string; stderr: string }
}

export function memoryIO(cwd: string, env: NodeJS.ProcessEnv, stdin?: string): MemoryIO {
  const out = { stdout: '', stderr: '' }
  return {
    out,
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    env,
    cwd,
    isTTY: false,
    ...(stdin === undefined ? {} : { readStdin: async () => stdin }),
  }
}

/** Runs `verify ...args` in process, with the options and result of the spawned `runCli` (never a signal). */
export async function runCliInProcess(args: readonly string[], options: CliOptions & { stdin?: string } = {}): Promise<CliResult> {
  // The built CLI (dist/, made by the global setup), not the sources: a function check then starts the built child
  // (dist/function-child.js, ~0.1 s) as the bin does, not the sources through tsx (~0.6 s each).
  const { cli } = (await import(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href)) as typeof import('../../src/cli/main.js')
  const started = performance.now()
  const io = memoryIO(options.cwd ?? ROOT, cliEnvironment(options.env), options.stdin)
  const code = await cli([...args], io)
  return { code, signal: null, stdout: io.out.stdout, stderr: io.out.stderr, durationMs: Math.round(performance.now() - started), killedByTest: false }
}
