// The process a function check runs in (SPEC §4), started by function-process.ts with its request in the environment.
// It loads the config again with verify's own loader, finds the check, calls its `run` and writes the outcome to the
// request's result file. Whatever `run` or a module it imports does to this process — exit, throw from a timer, leave a
// rejection unhandled — becomes the check's `error` here; stdout and stderr are the check's output, so nothing else
// is printed. This is a program of its own, which is why it ends itself with process.exit.
import { renameSync, writeFileSync } from 'node:fs'
import './zod-mode.js'
import { loadVerifyConfig } from '../config/index.js'
import { VerifyConfigError } from '../errors.js'
import { checkDigest } from '../evidence/digest.js'
import { MASKED_VALUES, secretValues } from '../evidence/redact.js'
import { flushOutput } from './flush.js'
import { outputFileOf, REQUEST_ENV, returnedOutcome, thrownOutcome, type FunctionOutcome, type FunctionRequest } from './function-result.js'

const internals = process as unknown as { reallyExit: (code?: number) => never }
// Kept before anything can replace them: the only way this process ends on its own (process.exit calls reallyExit).
const exits = { exit: process.exit, reallyExit: internals.reallyExit }

/** Thrown by the trapped process.exit so the code that called it stops there. */
class ExitTrapped extends Error {
  constructor() {
    super('process.exit is not available to a function check')
    this.name = 'ExitTrapped'
  }
}

let outcome: FunctionOutcome | null = null
let finishing = false

/** The first error stands; a returned result counts only when nothing went wrong before it. */
function record(next: FunctionOutcome): void {
  if (outcome && ('error' in outcome || !('error' in next))) return
  outcome = next
}

/** Lets errors raised right after `run` settled count, flushes the output, writes the outcome, ends the process. */
async function finish(): Promise<never> {
  finishing = true
  // However long verify takes to read it all (its log may be slow); a stream that never flushes meets the timeout.
  await flushOutput()
  const request = current as FunctionRequest
  try {
    const result: FunctionOutcome = outcome ?? { error: 'the run function ended without a result' }
    if ('output' in result && result.output) {
      writeFileSync(outputFileOf(request.resultFile), result.output)
      delete result.output
    }
    writeFileSync(`${request.resultFile}.tmp`, JSON.stringify(result))
    renameSync(`${request.resultFile}.tmp`, request.resultFile)
  } catch {
    // No result file: verify reports that the process ended without a result.
    return exit(1)
  }
  return exit(0)
}

function exit(code: number): never {
  process.exit = exits.exit
  internals.reallyExit = exits.reallyExit
  return process.exit(code)
}

function settle(next: FunctionOutcome): void {
  record(next)
  if (!finishing) void finish()
}

function trappedExit(code?: unknown): never {
  settle({
    error: `the run function called process.exit(${code === undefined ? '' : String(code)}): a function check returns its result, it does not end its process`,
  })
  throw new ExitTrapped()
}

function trapExit(): void {
  process.exit = trappedExit
  internals.reallyExit = trappedExit
  process.on('uncaughtException', (error, origin) => {
    if (error instanceof ExitTrapped) return
    settle(
      thrownOutcome(error, origin === 'unhandledRejection' ? 'left a promise rejection unhandled' : 'threw outside its promise (from a timer or a callback)'),
    )
  })
  process.on('unhandledRejection', (reason) => {
    if (reason instanceof ExitTrapped) return
    settle(thrownOutcome(reason, 'left a promise rejection unhandled'))
  })
}

function loadFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const problems = error instanceof VerifyConfigError ? error.problems.map((p) => `; ${p}`).join('') : ''
  return `the config could not be loaded again in the check's own process: ${message}${problems}`
}

/**
 * Runs `load` with process.env as verify loaded the config with (`$env` blocks, presets and the config's own code read
 * it), then gives the check its own environment back.
 */
async function withLoadEnv<T>(changes: Record<string, string | null>, load: () => Promise<T>): Promise<T> {
  const own = Object.fromEntries(Object.keys(changes).map((key) => [key, process.env[key]]))
  setEnv(changes)
  try {
    return await load()
  } finally {
    setEnv(own)
  }
}

function setEnv(values: Record<string, string | null | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === undefined) delete process.env[key]
    else process.env[key] = value
  }
}

const current = JSON.parse(process.env[REQUEST_ENV] ?? 'null') as FunctionRequest | null

async function main(request: FunctionRequest): Promise<void> {
  // The check's environment, as a command would get it: without the request.
  delete process.env[REQUEST_ENV]
  const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))
  let check
  let masked: string[] = []
  try {
    const { protocol } = await withLoadEnv(request.loadEnv, () => loadVerifyConfig({ ...request.source, env: { ...process.env } }))
    check = protocol.checks.find((c) => c.id === request.checkId)
    masked = secretValues(Object.assign({}, env, ...protocol.checks.map((c) => c.env)))
    if (!check?.run || checkDigest(check, protocol) !== request.checkDigest) {
      // The same config files, another definition: something in it is computed anew at each load.
      if (check?.run && request.definedIn !== undefined && check.definedIn === request.definedIn) {
        return settle({
          error: `check "${request.checkId}" came out different when its process loaded the config again, though the config files did not change: a value computed as the config loads (Date.now(), a random port, a temporary folder) is part of its definition (its env, cwd, inputs…). A function check's definition must be the same at every load: compute such values inside \`run\``,
        })
      }
      return settle({ error: `the config changed while verify ran: check "${request.checkId}" is no longer the function verify loaded; run verify again` })
    }
  } catch (error) {
    return settle({ error: loadFailure(error) })
  }
  trapExit()
  const controller = new AbortController()
  // verify stops a check with SIGTERM to its group (timeout, fail-fast, interrupt): the function's signal aborts, and
  // SIGKILL follows after the grace period if it does not settle.
  process.on('SIGTERM', () => controller.abort(new Error('the check was stopped by verify (timeout or cancellation)')))
  // Nothing left to wait on, and no result: `run` returned a promise whose resolve is never called.
  process.once('beforeExit', () => {
    if (!outcome && !finishing)
      settle({ error: 'the run function returned a promise that never settled: nothing was left for it to wait on (is a resolve never called?)' })
  })
  const run = check.run
  const context = { cwd: check.cwd, signal: controller.signal, checkId: check.id, runId: request.runId, env }
  Object.defineProperty(context, MASKED_VALUES, { value: masked, enumerable: false })
  await Promise.resolve()
    .then(() => run(context))
    .then(
      (value) => settle(returnedOutcome(value)),
      // After a trapped exit the function unwinds with ExitTrapped: the exit, recorded first, is the outcome.
      (error: unknown) => settle(thrownOutcome(error)),
    )
}

if (!current) {
  process.stderr.write(`verify: this program runs function checks for verify; it is not meant to be started by hand (no ${REQUEST_ENV})\n`)
  exit(2)
} else {
  void main(current)
}
