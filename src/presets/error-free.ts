// The strict preset's `error-free` check: the complete output logs of this run's other required checks show no
// uncaught error, unhandled rejection, error with a stack trace, or error-level log line — even when those checks
// passed. It runs after them (`dependsOn: ['*']`) and reads the logs verify wrote for them.
import { createReadStream } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { createInterface } from 'node:readline'
import type { CheckDefinition } from '../config/define.js'
import { defaultEvidencePath, logDirOf } from '../defaults.js'
import { MASK, MASKED_VALUES, secretValues } from '../evidence/redact.js'
import type { CheckContext, FunctionCheckResult } from '../types.js'

export interface ErrorPattern {
  /** What the pattern finds, in words. */
  name: string
  pattern: RegExp
}

/** Lines that report an error on their own. */
export const ERROR_LINE_PATTERNS: readonly ErrorPattern[] = [
  { name: 'uncaught exception', pattern: /^\s*(?:Uncaught\b|uncaughtException\b)/ },
  { name: 'unhandled rejection', pattern: /\bUnhandled ?(?:Promise ?)?Rejection|\bunhandledRejection\b/i },
  { name: 'error-level log line', pattern: /^\s*(?:\[ERROR\]|ERROR:|ERROR\s+\[|level=error\b|"level":\s*"error")/ },
  // Vitest marks what a test wrote with console.error (or to stderr) this way.
  { name: 'console.error in a test (vitest)', pattern: /^stderr \| / },
]

/** An error message followed by a stack frame: an error printed with its stack, caught or not. */
const ERROR_HEAD = /^\s*(?:Uncaught )?(?:[A-Z][\w$]*)?(?:Error|Exception)(?: \[[A-Z0-9_]+\])?(?::|$)/
const STACK_FRAME = /^\s+at \S/

export interface ErrorFreeOptions {
  /** Lines matching any of these are not findings (e.g. an error a test provokes on purpose). */
  ignore?: readonly (string | RegExp)[]
  /** Replaces ERROR_LINE_PATTERNS (the stack-trace rule always applies). */
  patterns?: readonly ErrorPattern[]
}

/** What scanLog needs beside the options: the secret values whose masks in a log may stand for an error's words. */
interface ScanSecrets {
  secrets?: readonly string[]
}

export interface ErrorFinding {
  checkId: string
  file: string
  line: number
  text: string
  kind: string
}

/** The log of a check's last attempt: `<id>.log`, or the newest `<id>.attempt-N.log` after retries. */
async function logOf(logDir: string, id: string): Promise<string | undefined> {
  const names = await readdir(logDir).catch(() => [] as string[])
  const candidates = names.filter((name) => name === `${id}.log` || (name.startsWith(`${id}.attempt-`) && name.endsWith('.log')))
  let newest: { file: string; mtime: number } | undefined
  for (const name of candidates) {
    const file = join(logDir, name)
    const mtime = (await stat(file)).mtimeMs
    if (!newest || mtime > newest.mtime) newest = { file, mtime }
  }
  return newest?.file
}

/** Scans one log line by line (logs can be large) for the patterns and for errors followed by a stack frame. */
export async function scanLog(file: string, checkId: string, options: ErrorFreeOptions & ScanSecrets = {}): Promise<ErrorFinding[]> {
  const patterns = options.patterns ?? ERROR_LINE_PATTERNS
  const ignored = (text: string) => (options.ignore ?? []).some((p) => (typeof p === 'string' ? text.includes(p) : p.test(text)))
  // Logs are masked: a secret's value printed as `***` may have been an error's words (a variable that looks secret
  // set to "Unhandled"). A masked line is also read with each secret in its masks; a finding shows the masked line.
  const readings = (text: string): string[] =>
    text.includes(MASK) ? [text, ...(options.secrets ?? []).map((secret) => text.replaceAll(MASK, secret))] : [text]
  const findings: ErrorFinding[] = []
  let previous: { text: string; line: number } | undefined
  let number = 0
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
  for await (const text of lines) {
    number++
    const head = previous
    previous = { text, line: number }
    const shown = readings(text).filter((reading) => !ignored(reading))
    if (shown.length === 0) continue
    const hit = patterns.find((p) => shown.some((reading) => p.pattern.test(reading)))
    if (hit) findings.push({ checkId, file, line: number, text, kind: hit.name })
    else if (
      head &&
      shown.some((reading) => STACK_FRAME.test(reading)) &&
      readings(head.text).some((reading) => ERROR_HEAD.test(reading) && !ignored(reading)) &&
      findings.at(-1)?.line !== head.line
    ) {
      findings.push({ checkId, file, line: head.line, text: head.text, kind: 'error with a stack trace' })
    }
  }
  return findings
}

const SHOWN = 30

/**
 * The `error-free` check. It depends on every other required check (`'*'`), so it runs once they passed, and scans
 * their logs in `VERIFY_LOG_DIR` (else `.verify/logs` in its folder). A check without a log printed nothing; when no
 * log at all is found and verify did not say where they are, it fails: no log, no proof.
 */
export function errorFreeCheck(options: ErrorFreeOptions = {}): CheckDefinition<never> {
  return {
    name: 'Error free',
    description: 'The output of the other required checks shows no uncaught error, unhandled rejection, stack trace or error log line',
    evidenceType: 'error_free',
    dependsOn: ['*'],
    run: async (context: CheckContext): Promise<FunctionCheckResult> => {
      const { cwd, env } = context
      // What the run masks: this check's environment, and the other checks' own `env` (verify's child hands those over).
      const masked = (context as unknown as Record<symbol, unknown>)[MASKED_VALUES]
      const secrets = [...new Set([...secretValues(env), ...(Array.isArray(masked) ? (masked as string[]) : [])])]
      const ids = (env.VERIFY_DEPENDS_ON ?? '').split(',').filter(Boolean)
      const logDir = env.VERIFY_LOG_DIR || logDirOf(defaultEvidencePath(cwd))
      if (ids.length === 0) return { passed: false, output: 'No other required command or function check to scan: error-free proves nothing alone.' }
      const silent: string[] = []
      const findings: ErrorFinding[] = []
      for (const id of ids) {
        const file = await logOf(logDir, id)
        if (file) findings.push(...(await scanLog(file, id, { ...options, secrets })))
        else silent.push(id)
      }
      const where = relative(cwd, logDir) || logDir
      // verify writes a log only for a check that printed something. When verify does not say where the logs are
      // and none is found, they may be elsewhere (`--evidence` elsewhere): that proves nothing.
      const lost = !env.VERIFY_LOG_DIR && silent.length === ids.length
      const metadata = { logDir: where, scanned: ids.length - silent.length, silent, findings: findings.length }
      const out: string[] = []
      if (lost) out.push(`No log of ${ids.join(', ')} in ${where}: the logs may be elsewhere (next to --evidence); nothing could be scanned.`)
      else if (silent.length > 0) out.push(`No output from: ${silent.join(', ')}.`)
      if (findings.length > 0) {
        out.push(`${findings.length} error(s) in the output of ${[...new Set(findings.map((f) => f.checkId))].join(', ')}:`)
        for (const f of findings.slice(0, SHOWN)) out.push(`${f.checkId}.log:${f.line}: [${f.kind}] ${f.text.trim().slice(0, 200)}`)
        if (findings.length > SHOWN) out.push(`… and ${findings.length - SHOWN} more`)
      }
      if (!lost && findings.length === 0) out.push(`No errors in the output of ${ids.join(', ')}.`)
      return { passed: !lost && findings.length === 0, output: out.join('\n'), metadata }
    },
  }
}
