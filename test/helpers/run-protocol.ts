// Running a protocol through the runner in this process: resolved from a raw definition in a folder, run without logs
// against a fixed workspace, results by id. Shared by the runner's scheduling tests.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll } from 'vitest'
import type { ProtocolDefinition } from '../../src/config/define.js'
import { resolveProtocol, type ProtocolOverrides } from '../../src/config/resolve.js'
import { runVerification } from '../../src/api.js'
import { createChecklist, type RunOptions } from '../../src/runner/schedule.js'
import type { CheckResult, Checklist, FunctionCheckResult } from '../../src/types.js'

export const WORKSPACE = { fingerprint: 'sha256:test', git: null }

export async function runIn(rootDir: string, raw: ProtocolDefinition, options: RunOptions & { overrides?: ProtocolOverrides } = {}) {
  const { overrides, ...runOptions } = options
  const protocol = resolveProtocol(raw, { rootDir, ...(overrides ? { overrides } : {}) })
  const checklist = createChecklist(protocol)
  const summary = await runVerification(checklist, { logDir: null, workspace: WORKSPACE, ...runOptions })
  const byId = (id: string): CheckResult => {
    const found = checklist.results.find((r) => r.id === id)
    if (!found) throw new Error(`no result for ${id}`)
    return found
  }
  return { summary, checklist, byId }
}

/**
 * A folder of the calling test file's own, removed after it (with shared workers a folder made once per module would
 * outlive only the first file), and `verify`, which runs a protocol in it.
 */
export function protocolRunner() {
  const rootDir = mkdtempSync(join(tmpdir(), 'verify-schedule-'))
  afterAll(() => rmSync(rootDir, { recursive: true, force: true }))
  const verify = (raw: ProtocolDefinition, options: RunOptions & { overrides?: ProtocolOverrides } = {}) => runIn(rootDir, raw, options)
  return { rootDir, verify }
}

export const statuses = (checklist: Checklist) => Object.fromEntries(checklist.results.map((r) => [r.id, r.status]))

/** A function check that records when it starts and ends. */
export function traced(log: string[], id: string, ms = 20, result: boolean | FunctionCheckResult = true) {
  return async () => {
    log.push(`${id}:start`)
    await delay(ms)
    log.push(`${id}:end`)
    return result
  }
}

/** Function checks that count how many of them run at once. */
export function gauge() {
  let now = 0
  const state = { max: 0 }
  const run = async () => {
    now++
    state.max = Math.max(state.max, now)
    await delay(25)
    now--
    return true
  }
  return { state, run }
}

export const node = (script: string) => [process.execPath, '-e', script]
