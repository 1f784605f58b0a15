// A function check loaded from a config runs in a Node process of its own (function-child.ts), started and supervised
// by spawnSupervised exactly like a command: its own process group, stdin closed, output captured and masked, the
// timeout (or cancellation) ends the whole group with SIGTERM → grace → SIGKILL. Its result comes back in a file.
import { createReadStream, existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ProtocolSource, ResolvedCheck } from '../types.js'
import type { OutputCapture } from './capture.js'
import type { FunctionRunResult } from './function-check.js'
import { outputFileOf, REQUEST_ENV, type FunctionOutcome, type FunctionRequest } from './function-result.js'
import { spawnSupervised } from './spawn.js'

export interface FunctionProcessOptions {
  env: Record<string, string>
  runId: string
  signal?: AbortSignal
  capture: OutputCapture
  source: ProtocolSource
  checkDigest: string
  loadEnv: Record<string, string>
  graceMs: number
}

/**
 * node's arguments that start the child. Built, that is the bundle's child (dist/function-child.js: one file with a
 * code cache), also for the library's modules in dist/runner/, whose own child loads some 200 modules one by one and
 * took twice as long to start; the library's child only where the bundle is missing. From the sources, the TypeScript
 * with tsx.
 */
function childArguments(): string[] {
  const here = import.meta.url
  if (here.endsWith('.ts')) return ['--import', pathToFileURL(createRequire(here).resolve('tsx')).href, fileURLToPath(new URL('./function-child.ts', here))]
  const bundled = fileURLToPath(new URL('../function-child.js', here))
  if (here.endsWith('/runner/function-process.js') && existsSync(bundled)) return [bundled]
  return [fileURLToPath(new URL('./function-child.js', here))]
}

/** The variables the check's environment set differently from the one the config was loaded with. */
function changedEnv(env: Record<string, string>, loadEnv: Record<string, string>): Record<string, string | null> {
  const changed: Record<string, string | null> = {}
  for (const [key, value] of Object.entries(env)) if (loadEnv[key] !== value) changed[key] = loadEnv[key] ?? null
  for (const key of Object.keys(loadEnv)) if (!(key in env)) changed[key] = loadEnv[key] as string
  return changed
}

async function readOutcome(file: string): Promise<FunctionOutcome | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as FunctionOutcome
  } catch {
    return null
  }
}

export async function runFunctionProcess(check: ResolvedCheck, options: FunctionProcessOptions): Promise<FunctionRunResult> {
  // Named with this process's pid: what a killed verify leaves is swept by a later one (evidence/git-tree.ts).
  const dir = await mkdtemp(join(tmpdir(), `verify-function-${process.pid}-`))
  const request: FunctionRequest = {
    source: options.source,
    checkId: check.id,
    runId: options.runId,
    checkDigest: options.checkDigest,
    ...(check.definedIn ? { definedIn: check.definedIn } : {}),
    loadEnv: changedEnv(options.env, options.loadEnv),
    resultFile: join(dir, 'result.json'),
  }
  try {
    const spawned = await spawnSupervised({
      command: [process.execPath, ...childArguments()],
      cwd: check.cwd,
      env: { ...options.env, [REQUEST_ENV]: JSON.stringify(request) },
      timeoutMs: check.timeoutMs,
      graceMs: options.graceMs,
      ...(options.signal ? { signal: options.signal } : {}),
      capture: options.capture,
    })
    // Stopped by verify: whatever the function reported while it was being stopped does not count.
    if (spawned.error || spawned.timedOut || spawned.cancelled) return { ...spawned, exitCode: null }
    const outcome = await readOutcome(request.resultFile)
    if (!outcome) {
      const how = spawned.signal ? `killed by ${spawned.signal}` : `exit code ${spawned.exitCode}`
      return { ...spawned, exitCode: null, error: `the function check's process ended without a result (${how})` }
    }
    if ('error' in outcome) return { ...spawned, exitCode: null, error: outcome.error }
    // The returned output, in chunks: a function that returns 100 MB of it does not make verify hold 100 MB.
    try {
      for await (const chunk of createReadStream(outputFileOf(request.resultFile))) options.capture.write(chunk as Buffer, 'stdout')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    return { ...spawned, exitCode: outcome.passed ? 0 : 1, ...(outcome.metadata ? { metadata: outcome.metadata } : {}) }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
