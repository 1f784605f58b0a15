#!/usr/bin/env node
// Cost of running a function check in a process of its own (docs/function-checks.md): N trivial function checks
// (`run: () => true`) from a TypeScript config against N trivial commands (`true`), one at a time, medians of rounds.
//   node bench/function-checks.mjs [--checks 10] [--rounds 5]
// Also reports the durationMs verify records for one function check (node start + config load + run).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { median } from './measure.mjs'

const { values } = parseArgs({ options: { checks: { type: 'string', default: '10' }, rounds: { type: 'string', default: '5' } } })
const N = Number(values.checks)
const ROUNDS = Number(values.rounds)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin', 'verify.cjs')

/** A project whose config has `count` checks built by `entry(i)`. */
function project(count, entry) {
  const dir = mkdtempSync(join(tmpdir(), 'verify-bench-fn-'))
  const checks = Array.from({ length: count }, (_, i) => `    c${i}: ${entry(i)},`).join('\n')
  writeFileSync(join(dir, 'verify.config.ts'), `export default {\n  checks: {\n${checks}\n  },\n}\n`)
  return dir
}

function time(dir) {
  const evidence = join(dir, 'evidence.json')
  const start = process.hrtime.bigint()
  const result = spawnSync(process.execPath, [BIN, 'run', '--sequential', '--no-interactive', '--evidence', evidence], {
    cwd: dir,
    stdio: 'ignore',
    env: { ...process.env, CI: '1', NO_COLOR: '1' },
  })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (result.status !== 0) throw new Error(`verify exited ${result.status} in ${dir}`)
  const recorded = JSON.parse(readFileSync(evidence, 'utf8')).checks.map((c) => c.evidence.durationMs)
  return { ms, recorded }
}

const functions = project(N, () => '{ run: () => true }')
const commands = project(N, () => "'true'")
try {
  const samples = { functions: [], commands: [], recorded: [] }
  for (let round = 0; round <= ROUNDS; round++) {
    const f = time(functions)
    const c = time(commands)
    if (round === 0) continue // warms caches (jiti's transform cache among them)
    samples.functions.push(f.ms)
    samples.commands.push(c.ms)
    samples.recorded.push(...f.recorded)
  }
  const perCheck = (median(samples.functions) - median(samples.commands)) / N
  console.log(
    `machine: ${process.platform} ${process.arch}, node ${process.version}, ${ROUNDS} rounds, medians, load ${(await import('node:os')).loadavg()[0].toFixed(1)}`,
  )
  console.log(`${N} function checks, sequential: ${median(samples.functions).toFixed(0)} ms`)
  console.log(`${N} commands \`true\`, sequential: ${median(samples.commands).toFixed(0)} ms`)
  console.log(`extra cost of a function check over a command: ${perCheck.toFixed(0)} ms`)
  console.log(`durationMs recorded for one function check: ${median(samples.recorded).toFixed(0)} ms`)
} finally {
  for (const dir of [functions, commands]) rmSync(dir, { recursive: true, force: true })
}
