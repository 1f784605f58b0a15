// Processes that carry a tag in their environment (Linux /proc/<pid>/environ): what a test started through verify
// and must not outlive it. The sandbox's folder is the tag: its runs pass E2E_TMP=<folder> to every check.
import { readdirSync, readFileSync } from 'node:fs'
import { sleep } from '../e2e/helpers.js'

function tagged(entry: string): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) pids.push(Number(name))
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids
}

/** Pids of live processes with `E2E_TMP=<dir>` in their environment, after waiting up to `withinMs` for them to go. */
export async function processesOf(dir: string, withinMs = 500): Promise<number[]> {
  const until = Date.now() + withinMs
  for (;;) {
    const pids = tagged(`E2E_TMP=${dir}`)
    if (pids.length === 0 || Date.now() >= until) return pids
    await sleep(25)
  }
}
