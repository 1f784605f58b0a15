#!/usr/bin/env node
// Peak RSS of a command while one of its checks prints 1 GiB (SPEC §13: verify must stay ≤ 150 MiB).
//
//   node bench/output-rss.mjs                      # measures the default command below
//   node bench/output-rss.mjs [--proc] <command…>  # any command; one argument with spaces runs in a shell
//
// With /usr/bin/time -v the figure is the largest RSS of the command *and its children* (the kernel
// reports the maximum over the waited-for tree), so it is an upper bound for verify alone.
// `--proc` (or no /usr/bin/time) polls /proc/<pid>/status VmHWM of the command's own process instead.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const TARGET_MIB = 150
const DEFAULT_COMMAND = ['node', 'bin/verify.cjs', '--config', 'bench/fixtures/flood/verify.config.ts']
const root = fileURLToPath(new URL('..', import.meta.url))

const args = process.argv.slice(2)
const forceProc = args[0] === '--proc'
if (forceProc) args.shift()
const command = args.length > 0 ? args : DEFAULT_COMMAND
const shell = command.length === 1 && /\s/.test(command[0] ?? '')

const useTime = !forceProc && existsSync('/usr/bin/time')
if (!useTime && !existsSync('/proc/self/status')) {
  console.error('output-rss: needs /usr/bin/time or /proc to measure memory')
  process.exit(2)
}

const started = performance.now()
const result = useTime ? await withTime() : await withProc()
const seconds = ((performance.now() - started) / 1000).toFixed(1)

console.log(`command:  ${command.join(' ')}`)
console.log(`exit:     ${result.signal ?? result.code}   wall: ${seconds} s   method: ${result.method}`)
if (result.peakKiB === null) {
  console.log('peak RSS: unknown (the command ended before it could be measured)')
  process.exit(1)
}
const mib = result.peakKiB / 1024
console.log(`peak RSS: ${mib.toFixed(1)} MiB (target ≤ ${TARGET_MIB} MiB: ${mib <= TARGET_MIB ? 'met' : 'MISSED'})`)
process.exitCode = result.code === 0 ? 0 : 1

// Resolves when the child has exited and its stdio is closed.
function exit(child) {
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => resolve({ code, signal }))
  })
}

async function withTime() {
  const [file, ...rest] = command
  const timed = shell ? ['-v', 'sh', '-c', command[0] ?? ''] : ['-v', file ?? '', ...rest]
  const child = spawn('/usr/bin/time', timed, { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] })
  // time's report comes last on stderr: keep a bounded tail of it, pass the rest through.
  let tail = ''
  child.stderr.setEncoding('utf8').on('data', (text) => {
    process.stderr.write(text)
    tail = (tail + text).slice(-64 * 1024)
  })
  const { code, signal } = await exit(child)
  const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(tail)
  return { code, signal, peakKiB: match ? Number(match[1]) : null, method: '/usr/bin/time -v (tree max)' }
}

async function withProc() {
  const [file, ...rest] = command
  const stdio = ['ignore', 'inherit', 'inherit']
  const child = shell ? spawn(command[0] ?? '', { cwd: root, stdio, shell: true }) : spawn(file ?? '', rest, { cwd: root, stdio })
  const exited = exit(child)
  let peakKiB = null
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      const match = /^VmHWM:\s+(\d+) kB/m.exec(status)
      if (match) peakKiB = Math.max(peakKiB ?? 0, Number(match[1]))
    } catch {
      // Gone between two samples: the last reading stands.
    }
  }
  // VmHWM is the kernel's own high-water mark, so sampling only has to catch it before exit.
  const timer = setInterval(sample, 20)
  const outcome = await exited
  clearInterval(timer)
  return { ...outcome, peakKiB, method: shell ? '/proc VmHWM (of the shell)' : '/proc VmHWM' }
}
