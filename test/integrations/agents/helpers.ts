// Driving `verify hook <agent>` as an agent does: the stop event as JSON on stdin, the answer read from stdout.
// In process through `cli(argv, io)`, or spawned from the built CLI where the process boundary is the point.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { cli } from '../../../src/cli/main.js'
import type { CliIO } from '../../../src/cli/io.js'
import { BIN } from '../../helpers/cli.js'
import { INHERITED } from '../../setup/env.js'
import type { Project } from '../../helpers/project.js'

export interface HookResult {
  code: number
  stdout: string
  stderr: string
  /** stdout parsed: what the agent reads. */
  answer: Record<string, unknown>
  durationMs: number
}

function parseAnswer(stdout: string): Record<string, unknown> {
  // Nothing on stdout (a usage error of the hook line itself): the test looks at the exit code and stderr.
  if (stdout === '') return {}
  const lines = stdout.trim().split('\n')
  if (lines.length !== 1) throw new Error(`the hook must print exactly one JSON line, got:\n${stdout}`)
  return JSON.parse(lines[0] as string) as Record<string, unknown>
}

/** A Claude Code style stop event for the project. */
export function stopEvent(p: Project, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: 'session-1',
    transcript_path: '/tmp/none.jsonl',
    cwd: p.dir,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: 'Done.',
    ...extra,
  }
}

/** Runs the hook in process with `input` on stdin (a string is sent as is). */
export async function hookInProcess(args: readonly string[], input: unknown, env: Record<string, string> = {}, cwd = process.cwd()): Promise<HookResult> {
  let stdout = ''
  let stderr = ''
  const io: CliIO = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { ...process.env, NO_COLOR: '1', ...env },
    cwd,
    isTTY: false,
    readStdin: async () => (typeof input === 'string' ? input : JSON.stringify(input)),
  }
  const started = performance.now()
  const code = await cli(['hook', ...args], io)
  return { code, stdout, stderr, answer: parseAnswer(stdout), durationMs: performance.now() - started }
}

/** Spawns `node bin/verify.cjs hook …args` with `input` on stdin; killed at the deadline. */
export function hookSpawned(
  args: readonly string[],
  input: unknown,
  env: Record<string, string> = {},
  cwd = process.cwd(),
  timeoutMs = 20_000,
): Promise<HookResult> {
  const environment: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...env }
  for (const name of [...INHERITED, 'CI']) if (!(name in env)) delete environment[name]
  const started = performance.now()
  const child = spawn(process.execPath, [BIN, 'hook', ...args], { cwd, env: environment, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t))
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t))
  child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input))
  const deadline = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(deadline)
      try {
        resolve({ code: code ?? -1, stdout, stderr, answer: parseAnswer(stdout), durationMs: performance.now() - started })
      } catch (error) {
        reject(new Error(`${(error as Error).message}\nstderr: ${stderr}`))
      }
    })
  })
}

/** The consecutive-block counts the project holds. */
export function blockCounts(p: Project): number[] {
  const file = join(p.dir, '.verify', 'hook-blocks.json')
  if (!existsSync(file)) return []
  const data = JSON.parse(readFileSync(file, 'utf8')) as { blocks: Record<string, { count: number }> }
  return Object.values(data.blocks).map((b) => b.count)
}
