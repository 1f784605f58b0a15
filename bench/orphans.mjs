#!/usr/bin/env node
// Counts processes that outlive verify, by pid, in the supervision scenarios (timeout with grandchildren, a check
// that ignores SIGTERM, leftovers of passing checks, fail-fast, SIGINT/SIGTERM/SIGHUP to verify). Not a test: a
// figure for reports. The e2e tests (test/e2e/supervision.test.ts) assert the same thing.
//   node bench/orphans.mjs
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin', 'verify.cjs')
const FIXTURE = join(ROOT, 'fixtures', 'supervision')

function alive(pid) {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // A zombie waiting for its parent to reap it is dead for our purpose.
  try {
    return !/^\S+\s+\S+\s+Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'))
  } catch {
    return false
  }
}

function pids(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pid') || f.endsWith('.pids'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split(/\s+/).filter(Boolean).map(Number))
}

async function scenario(name, args, signal) {
  const dir = mkdtempSync(join(tmpdir(), 'verify-orphans-'))
  const child = spawn(process.execPath, [BIN, 'run', ...args, '--cwd', FIXTURE, '--evidence', join(dir, 'evidence.json'), '--no-color'], {
    env: { ...process.env, E2E_TMP: dir, CI: '1' },
    stdio: 'ignore',
  })
  if (signal) {
    const deadline = Date.now() + 10_000
    while (!existsSync(join(dir, 'long.pids')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    await new Promise((r) => setTimeout(r, 300))
    child.kill(signal)
  }
  const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? s)))
  await new Promise((r) => setTimeout(r, 300))
  const all = pids(dir)
  const survivors = all.filter(alive)
  for (const pid of survivors) process.kill(pid, 'SIGKILL')
  rmSync(dir, { recursive: true, force: true })
  console.log(`${name.padEnd(28)} exit ${String(code).padEnd(4)} processes started ${String(all.length).padStart(2)}  survivors ${survivors.length}`)
  return survivors.length
}

let total = 0
total += await scenario('timeout (tree + SIGTERM-proof)', ['timeouts'])
total += await scenario('leftovers of passing checks', ['leftovers'])
total += await scenario('fail-fast', ['failfast', '--fail-fast'])
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) total += await scenario(`${signal} to verify`, ['interrupt'], signal)
console.log(`survivors in all scenarios: ${total}`)
process.exitCode = total === 0 ? 0 : 1
