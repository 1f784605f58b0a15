#!/usr/bin/env node
// `npm run bench`: the performance table of SPEC §13, every figure measured in this one run, side by side.
//   node bench/run.mjs [--quick] [--rounds 9] [--no-build] [--no-peers]
// Builds the CLI, installs the peers (lefthook 2, concurrently 9) into a folder of the system's temp dir (outside this
// repository: lefthook installs git hooks into the repository it finds itself in), then times whole processes in
// interleaved rounds (A B C … A B C …, the first round discarded) and prints medians, min–max and ratios. The machine
// is shared: compare ratios, not absolute times, and rerun when a min–max range is wide. See bench/README.md.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { machine, measure as measureWith, ms, ratio, run as runWith, table, TIME } from './measure.mjs'

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    build: { type: 'boolean', default: true },
    peers: { type: 'boolean', default: true },
  },
  allowNegative: true,
})
const QUICK = values.quick
const ROUNDS = Number(values.rounds ?? (QUICK ? 3 : 9))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin', 'verify.cjs')
const NODE = process.execPath
const PEERS = join(tmpdir(), 'verify-bench-peers')
const LEFTHOOK = join(PEERS, 'node_modules', '.bin', 'lefthook')
const CONCURRENTLY = join(PEERS, 'node_modules', 'concurrently', 'dist', 'bin', 'concurrently.js')
const GIB = 1024 ** 3
const ENV = { ...process.env, CI: '1', NO_COLOR: '1' }
// An opt-out set in the shell would let the hook through without running anything.
delete ENV.VERIFY_HOOK
const run = (contender) => runWith({ env: ENV, ...contender })
const measure = (contenders, rounds) =>
  measureWith(
    contenders.map((c) => ({ env: ENV, ...c })),
    rounds,
  )

function installPeers() {
  if (existsSync(LEFTHOOK) && existsSync(CONCURRENTLY)) return
  mkdirSync(PEERS, { recursive: true })
  writeFileSync(join(PEERS, 'package.json'), '{ "private": true }\n')
  // lefthook's binary comes in a package of its platform (no install script needed).
  execFileSync('npm', ['install', '--no-audit', '--no-fund', 'lefthook@2.2.2', 'concurrently@9'], { cwd: PEERS, stdio: 'inherit' })
}

/**
 * A git repository whose TypeScript config (importing verify-protocol, linked in node_modules as an installed package
 * would be) has `count` trivial checks, and a lefthook config of the same commands.
 */
function project(count, check = () => "'true'") {
  const dir = mkdtempSync(join(tmpdir(), 'verify-bench-'))
  const ids = Array.from({ length: count }, (_, i) => `c${i}`)
  const checks = ids.map((id, i) => `    ${id}: ${check(i)},`).join('\n')
  writeFileSync(
    join(dir, 'verify.config.ts'),
    `import { defineProtocol } from 'verify-protocol'\n\nexport default defineProtocol({\n  maxAge: '1d',\n  checks: {\n${checks}\n  },\n})\n`,
  )
  writeFileSync(join(dir, 'lefthook.yml'), `bench:\n  parallel: true\n  commands:\n${ids.map((id) => `    ${id}:\n      run: 'true'\n`).join('')}`)
  writeFileSync(join(dir, '.gitignore'), '.verify/\nnode_modules/\n')
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules', 'verify-protocol'), 'dir')
  const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { cwd: dir })
  git('init', '-q')
  git('add', '-A')
  git('commit', '-qm', 'bench')
  return dir
}

if (values.build) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
if (values.peers) installPeers()

const dirs = []
const dir = (count, check) => {
  const d = project(count, check)
  dirs.push(d)
  return d
}
try {
  const fifty = dir(50)
  const verify = (args, cwd, extra = {}) => ({ cmd: NODE, args: [BIN, ...args], cwd, ...extra })
  // The evidence `--reuse`, `check` and the hook find: one run of the 50 checks, nothing changed since.
  run(verify(['run'], fifty))
  const hookEvent = JSON.stringify({ session_id: 'bench', cwd: fifty, hook_event_name: 'Stop', stop_hook_active: false })
  const contenders = [
    { name: 'verify run (50 checks)', ...verify(['run', '--no-interactive'], fifty) },
    ...(values.peers
      ? [
          { name: 'lefthook 2 (50 commands)', cmd: LEFTHOOK, args: ['run', 'bench', '--no-auto-install'], cwd: fifty },
          { name: 'concurrently 9 (50 commands)', cmd: NODE, args: [CONCURRENTLY, '--raw', ...Array(50).fill('true')], cwd: fifty },
        ]
      : []),
    { name: 'verify list', ...verify(['list'], fifty) },
    { name: 'verify run --reuse (unchanged)', ...verify(['run', '--reuse', '--no-interactive'], fifty) },
    { name: 'verify check', ...verify(['check'], fifty) },
    { name: 'verify hook claude-code (verified)', ...verify(['hook', 'claude-code'], fifty, { input: hookEvent }) },
    { name: 'verify --version', ...verify(['--version'], fifty) },
    { name: 'node -e 0', cmd: NODE, args: ['-e', '0'], cwd: fifty },
  ]
  const stats = measure(contenders, ROUNDS)
  const s = (name) => stats.get(name)
  const floor = s('node -e 0')
  const targets = [
    ['50 trivial checks (`true`), parallel', 'verify run (50 checks)', 'lefthook 2 (50 commands)', 1.0],
    ['same', 'verify run (50 checks)', 'concurrently 9 (50 commands)', 0.6],
    ['`verify list`, TypeScript config, warm', 'verify list', 'node -e 0', 2.0],
    ['`verify run --reuse`, unchanged workspace', 'verify run --reuse (unchanged)', 'node -e 0', 2.5],
    ['`verify check`', 'verify check', 'node -e 0', 2.5],
    ['`verify hook claude-code`, verified workspace', 'verify hook claude-code (verified)', 'node -e 0', 3.0],
    ['`verify --version`', 'verify --version', 'node -e 0', 1.2],
  ].filter(([, , peer]) => stats.has(peer))
  const rows = targets.map(([what, name, peer, target]) => {
    const a = s(name)
    const b = s(peer)
    const met = a.wall / b.wall <= target
    return [
      what,
      `${ms(a.wall)} (${ms(a.min)}–${ms(a.max)})`,
      `${peer}: ${ms(b.wall)}`,
      ratio(a.wall, b.wall),
      TIME ? ratio(a.cpu, b.cpu) : '-',
      `≤ ${target}× ${met ? 'met' : 'MISSED'}`,
    ]
  })
  console.log(`\nmachine: ${machine()}`)
  console.log(`${ROUNDS} interleaved rounds, medians of whole processes (wall; CPU = user + sys from /usr/bin/time)\n`)
  console.log(table(['what', 'verify (min–max)', 'peer / floor', 'ratio', 'CPU ratio', 'target'], rows))

  // Per-check overhead: the slope between 1 check and N checks, for N up to 1000 (flat when it does not grow with N).
  const counts = QUICK ? [1, 100, 1000] : [1, 50, 200, 1000]
  const scale = counts.map((n) => ({ name: `${n}`, ...verify(['run', '--no-interactive'], dir(n)) }))
  const scaled = measure(scale, QUICK ? 1 : 3)
  const one = scaled.get('1')
  const slopes = counts.slice(1).map((n) => {
    const t = scaled.get(`${n}`)
    return [
      `${n} checks`,
      ms(t.wall),
      `${((t.wall - one.wall) / (n - 1)).toFixed(2)} ms`,
      TIME ? `${((t.cpu - one.cpu) / (n - 1)).toFixed(2)} ms` : '-',
      `${t.rssMiB.toFixed(0)} MiB`,
    ]
  })
  console.log(`\nper-check overhead (the slope from 1 check: ${ms(one.wall)}; target ≤ 2 ms, flat to 1000)\n`)
  console.log(table(['run', 'wall', 'per check (wall)', 'per check (CPU)', 'peak RSS'], slopes))

  // A check printing 1 GiB: verify's peak RSS (the tree's largest process: verify itself; the printer is small)
  // and its time against the bare command.
  const flood = dir(1, () => `'head -c ${GIB} /dev/zero'`)
  const big = measure(
    [
      { name: 'verify', ...verify(['run', '--no-interactive'], flood) },
      { name: 'verify --reporter agent', ...verify(['run', '--no-interactive', '--reporter', 'agent'], flood) },
      { name: 'bare', cmd: 'sh', args: ['-c', `head -c ${GIB} /dev/zero > /dev/null`], cwd: flood },
      { name: 'pipe', cmd: 'sh', args: ['-c', `head -c ${GIB} /dev/zero | cat > /dev/null`], cwd: flood },
    ],
    QUICK ? 1 : 3,
  )
  const evidence = JSON.parse(readFileSync(join(flood, '.verify', 'evidence.json'), 'utf8'))
  const bytes = JSON.stringify(evidence).match(/"bytes":\s*(\d+)/)?.[1] ?? '?'
  const bare = big.get('bare')
  const pipe = big.get('pipe')
  console.log(`\na check printing 1 GiB (head -c ${GIB} /dev/zero; evidence records ${bytes} bytes; target peak RSS ≤ 150 MiB)\n`)
  console.log(
    table(
      ['run', 'wall', 'vs bare', 'vs through a pipe', 'peak RSS'],
      ['verify', 'verify --reporter agent', 'bare', 'pipe'].map((name) => {
        const t = big.get(name)
        return [
          name === 'bare' ? 'head … > /dev/null' : name === 'pipe' ? 'head … | cat > /dev/null' : name,
          ms(t.wall),
          ratio(t.wall, bare.wall),
          ratio(t.wall, pipe.wall),
          `${t.rssMiB.toFixed(0)} MiB`,
        ]
      }),
    ),
  )
  console.log(`\nfloor: node -e 0 ${ms(floor.wall)} wall, ${ms(floor.cpu)} CPU`)
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
