// What the benchmarks share: one whole process timed, interleaved rounds of several, their medians, and a table.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'

// /usr/bin/time gives each process's CPU time and peak RSS; without it only wall time is shown.
export const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null

/**
 * One whole process: wall ms (from here), CPU ms and peak RSS (from /usr/bin/time, the largest of its tree). With
 * `capture`, its standard output is returned as well; otherwise it is dropped.
 */
export function run({ cmd, args, cwd, input, env, ok = [0], capture = false }) {
  const [file, argv] = TIME ? [TIME, ['-f', '\n%U %S %M', cmd, ...args]] : [cmd, args]
  const start = process.hrtime.bigint()
  const stdout = capture ? 'pipe' : 'ignore'
  const result = spawnSync(file, argv, { cwd, input, stdio: ['pipe', stdout, 'pipe'], env, maxBuffer: 1 << 26 })
  const wall = Number(process.hrtime.bigint() - start) / 1e6
  if (!ok.includes(result.status)) {
    const printed = capture ? `${String(result.stdout).slice(-4000)}\n` : ''
    throw new Error(`${cmd} ${args.join(' ')} exited ${result.status ?? result.signal} in ${cwd}:\n${printed}${result.stderr}`)
  }
  const last = String(result.stderr).trim().split('\n').at(-1) ?? ''
  const [user, sys, rss] = TIME ? last.split(' ').map(Number) : [Number.NaN, Number.NaN, Number.NaN]
  return { wall, cpu: (user + sys) * 1000, rssMiB: rss / 1024, stdout: capture ? String(result.stdout) : '' }
}

export const median = (xs) => {
  const s = xs.toSorted((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/**
 * Interleaved rounds of every contender (A B C … A B C …); the first round warms caches and is discarded unless
 * `warmup` is false. Returns each contender's medians and its samples in round order.
 */
export function measure(contenders, rounds, { warmup = true } = {}) {
  const samples = new Map(contenders.map((c) => [c.name, []]))
  const first = warmup ? 0 : 1
  for (let round = first; round <= rounds; round++) {
    for (const contender of contenders) {
      const sample = run(contender)
      if (round > 0) samples.get(contender.name).push(sample)
      contender.onSample?.(sample, round)
    }
  }
  const stats = new Map()
  for (const [name, xs] of samples) {
    const walls = xs.map((x) => x.wall)
    stats.set(name, {
      wall: median(walls),
      min: Math.min(...walls),
      max: Math.max(...walls),
      cpu: median(xs.map((x) => x.cpu)),
      rssMiB: Math.max(...xs.map((x) => x.rssMiB)),
      samples: xs,
    })
  }
  return stats
}

export const ms = (x) => (Number.isNaN(x) ? '-' : `${x.toFixed(0)} ms`)
export const ratio = (a, b) => `${(a / b).toFixed(2)}×`

export function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')
}

export function machine() {
  const cpu = cpus()
  const gib = totalmem() / 1024 ** 3
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
  return `${process.platform} ${process.arch}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${gib.toFixed(0)} GiB, node ${process.version}, load ${load}`
}
