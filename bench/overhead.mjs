#!/usr/bin/env node
// Overhead of running N trivial checks (`true`), side by side with peers in one run, medians of interleaved rounds.
//   node bench/overhead.mjs [--checks 50] [--rounds 10] [--no-peers]
// Peers (lefthook 2, concurrently 9) are installed on first use into a folder of the system's temp dir, outside
// this repository (lefthook installs git hooks into the repository it finds itself in).
// Also measures: `verify list`-like startup (a run of one check), `--reuse` on an unchanged workspace, and the
// per-check cost at 1000 checks.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { measure, median, run } from './measure.mjs'

const { values } = parseArgs({
  options: { checks: { type: 'string', default: '50' }, rounds: { type: 'string', default: '10' }, peers: { type: 'boolean', default: true } },
  allowNegative: true,
})
const N = Number(values.checks)
const ROUNDS = Number(values.rounds)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin', 'verify.cjs')
const PEERS = join(tmpdir(), 'verify-bench-peers')

function installPeers() {
  if (existsSync(join(PEERS, 'node_modules', '.bin', 'lefthook'))) return
  mkdirSync(PEERS, { recursive: true })
  writeFileSync(join(PEERS, 'package.json'), '{ "private": true }\n')
  execFileSync('npm', ['install', '--no-audit', '--no-fund', 'lefthook@2.2.2', 'concurrently@9'], { cwd: PEERS, stdio: 'inherit' })
}

/** A git repository with a verify config and a lefthook config of `count` trivial checks. */
function project(count) {
  const dir = mkdtempSync(join(tmpdir(), 'verify-bench-'))
  const ids = Array.from({ length: count }, (_, i) => `c${i}`)
  writeFileSync(join(dir, 'verify.config.mjs'), `export default { checks: { ${ids.map((id) => `${id}: 'true'`).join(', ')} } }\n`)
  writeFileSync(join(dir, 'lefthook.yml'), `bench:\n  parallel: true\n  commands:\n${ids.map((id) => `    ${id}:\n      run: 'true'\n`).join('')}`)
  writeFileSync(join(dir, '.gitignore'), '.verify/\n')
  execFileSync('git', ['init', '-q'], { cwd: dir })
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'add', '-A'], { cwd: dir })
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'bench'], { cwd: dir })
  return dir
}

const ENV = { ...process.env, CI: '1', NO_COLOR: '1' }
const contender = (name, cmd, args, cwd) => ({ name, cmd, args, cwd, env: ENV })

const dir = project(N)
const one = project(1)
const big = project(1000)
try {
  const node = process.execPath
  const contenders = [contender(`verify (${N} checks)`, node, [BIN, 'run', '--no-interactive'], dir)]
  if (values.peers) {
    installPeers()
    contenders.push(contender(`lefthook 2 (${N} commands)`, join(PEERS, 'node_modules', '.bin', 'lefthook'), ['run', 'bench', '--no-auto-install'], dir))
    contenders.push(
      contender(
        `concurrently 9 (${N} commands)`,
        node,
        [join(PEERS, 'node_modules', 'concurrently', 'dist', 'bin', 'concurrently.js'), '--raw', ...Array(N).fill('true')],
        dir,
      ),
    )
  }
  contenders.push(contender('verify (1 check)', node, [BIN, 'run', '--no-interactive'], one))
  contenders.push(contender(`verify --reuse (${N} checks, unchanged)`, node, [BIN, 'run', '--reuse', '--no-interactive'], dir))
  contenders.push(contender('node -e 0 (floor)', node, ['-e', '0'], dir))
  const medians = Object.fromEntries([...measure(contenders, ROUNDS)].map(([name, stats]) => [name, stats.wall]))
  const bigMs = median(Array.from({ length: 3 }, () => run(contender('1000', node, [BIN, 'run', '--no-interactive'], big)).wall))

  const base = medians[`verify (${N} checks)`]
  console.log(`machine: ${process.platform} ${process.arch}, node ${process.version}, ${ROUNDS} rounds, medians`)
  for (const [name, ms] of Object.entries(medians)) {
    console.log(`${name.padEnd(40)} ${ms.toFixed(0).padStart(6)} ms   ${(ms / base).toFixed(2)}× verify`)
  }
  const perCheck = (base - medians['verify (1 check)']) / (N - 1)
  console.log(`per-check overhead at ${N}: ${perCheck.toFixed(2)} ms`)
  console.log(`verify (1000 checks): ${bigMs.toFixed(0)} ms → ${((bigMs - medians['verify (1 check)']) / 999).toFixed(2)} ms per check`)
} finally {
  for (const d of [dir, one, big]) rmSync(d, { recursive: true, force: true })
}
