// Times workspaceFingerprint on a 10,000-file git repo against `git status` on the same tree (interleaved runs,
// medians; SPEC §13 wants the fingerprint under 2x), and the non-git fallback on the same files.
// Run: npx tsx bench/fingerprint.mjs [fileCount]
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { inputsFingerprint, workspaceFingerprint } from '../src/evidence/fingerprint.ts'

const fileCount = Number(process.argv[2] ?? 10_000)
const runs = 9
const execFileAsync = promisify(execFile)
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: process.platform === 'win32' ? 'NUL' : '/dev/null',
}
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 })

async function time(fn) {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

// CPU time of this process and of the children it waited for (Linux: /proc/self/stat, clock ticks of 10 ms),
// which load from other processes on the machine does not inflate the way it inflates wall time.
function cpuMs() {
  const own = process.cpuUsage()
  let children = 0
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
    children = (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    children = Number.NaN
  }
  return (own.user + own.system) / 1000 + children
}

/**
 * Medians of `fns` timed in turn, run after run, so that load on the machine hits them alike; and each one's mean
 * CPU time (its own and its child processes').
 */
async function interleaved(...fns) {
  const times = fns.map(() => [])
  const cpu = fns.map(() => 0)
  for (let i = 0; i < runs; i++) {
    for (const [j, fn] of fns.entries()) {
      const before = cpuMs()
      times[j].push(await time(fn))
      cpu[j] += cpuMs() - before
    }
  }
  return { wall: times.map((list) => list.toSorted((a, b) => a - b)[Math.floor(runs / 2)]), cpu: cpu.map((total) => total / runs) }
}

async function median(fn) {
  const times = []
  for (let i = 0; i < runs; i++) times.push(await time(fn))
  times.sort((a, b) => a - b)
  return times[Math.floor(runs / 2)]
}

const ms = (value) => `${value.toFixed(1)} ms`
const base = mkdtempSync(join(tmpdir(), 'verify-bench-'))
try {
  const root = join(base, 'repo')
  // 10 × 10 × 100 files: a/b/file, like a mid-sized monorepo's source tree.
  for (let i = 0; i < fileCount; i++) {
    const dir = join(root, `pkg${i % 10}`, `dir${Math.floor(i / 10) % 10}`, `sub${Math.floor(i / 100) % 10}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i}\n`)
  }
  writeFileSync(join(root, '.gitignore'), 'node_modules/\ndist/\n')
  git(root, 'init', '-q', '-b', 'main')
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'initial')
  for (let i = 0; i < 5; i++) writeFileSync(join(root, 'pkg0', 'dir0', 'sub0', `file${i * 1000}.ts`), `// modified ${i}\n`)
  for (let i = 0; i < 5; i++) writeFileSync(join(root, `untracked${i}.ts`), `untracked ${i}\n`)
  mkdirSync(join(root, 'dist'))
  writeFileSync(join(root, 'dist', 'ignored.js'), 'ignored\n')

  console.log(`repo: ${fileCount} committed files, 5 modified, 5 untracked (${git(root, '--version').trim()}, node ${process.version})`)

  const cold = await time(() => workspaceFingerprint(root))
  const status = () => execFileAsync('git', ['status', '--porcelain'], { cwd: root, env, maxBuffer: 1 << 28 })
  const {
    wall: [warm, statusTime],
    cpu: [warmCpu, statusCpu],
  } = await interleaved(() => workspaceFingerprint(root), status)
  const info = await workspaceFingerprint(root)
  const inputs = await median(() => inputsFingerprint(root, ['pkg3/**'], info))
  console.log(`workspaceFingerprint cold (first call in process): ${ms(cold)}`)
  console.log(`workspaceFingerprint warm (median of ${runs}):        ${ms(warm)}`)
  console.log(`git status --porcelain (median, interleaved):       ${ms(statusTime)}`)
  console.log(`  ratio fingerprint / git status, wall time:        ${(warm / statusTime).toFixed(2)}x (target < 2x)`)
  console.log(`  CPU time (mean, with child processes): fingerprint ${ms(warmCpu)}, git status ${ms(statusCpu)}: ${(warmCpu / statusCpu).toFixed(2)}x`)
  console.log(`inputsFingerprint ['pkg3/**'] (median of ${runs}, listing cached per workspace): ${ms(inputs)}`)

  // Worst case for the stat cache: every file's mtime changed since git last wrote the index.
  const later = new Date(Date.now() + 5_000)
  for (let i = 0; i < fileCount; i++) {
    const dir = join(root, `pkg${i % 10}`, `dir${Math.floor(i / 10) % 10}`, `sub${Math.floor(i / 100) % 10}`)
    utimesSync(join(dir, `file${i}.ts`), later, later)
  }
  const stale = await median(() => workspaceFingerprint(root))
  console.log(`workspaceFingerprint, index stat cache stale for all files (median): ${ms(stale)}`)

  const plain = join(base, 'plain')
  cpSync(root, plain, { recursive: true, filter: (source) => !source.endsWith('.git') })
  const plainCold = await time(() => workspaceFingerprint(plain))
  const plainWarm = await median(() => workspaceFingerprint(plain))
  console.log(`non-git fallback cold: ${ms(plainCold)}, warm (median of ${runs}): ${ms(plainWarm)}`)
} finally {
  rmSync(base, { recursive: true, force: true })
}
