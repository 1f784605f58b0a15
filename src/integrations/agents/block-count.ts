// Consecutive blocks per agent session and event, kept in `.verify/hook-blocks.json` so the gate stays bounded: a
// protocol the agent cannot satisfy must not keep it looping forever. Several subagents may stop at once: every update
// is a read-modify-write under a lock folder, and the file itself is replaced atomically.
import { createHash } from 'node:crypto'
import { mkdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { writeJsonAtomic } from '../../evidence/store.js'

interface Entry {
  count: number
  updatedAt: string
}

type State = Map<string, Entry>

// Entries untouched this long belong to sessions that are over.
const FORGET_MS = 7 * 24 * 60 * 60 * 1000
// A lock older than this was left by a hook that died holding it.
const STALE_LOCK_MS = 10_000
const LOCK_WAIT_MS = 15_000

export function blockKey(agent: string, session: string, event: string): string {
  return createHash('sha256').update(`${agent}\0${session}\0${event}`).digest('hex').slice(0, 32)
}

async function readState(file: string): Promise<State> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as { blocks?: Record<string, Entry> }
    const entries = Object.entries(data.blocks ?? {}).filter(([, e]) => e && Number.isInteger(e.count) && e.count >= 0 && typeof e.updatedAt === 'string')
    return new Map(entries)
  } catch {
    // Missing or unreadable: no block counted yet. A corrupt counter can only shorten the loop, never lengthen it
    // past the cap of a fresh count.
    return new Map()
  }
}

async function withLock<T>(lockDir: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      await mkdir(lockDir)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const age = await stat(lockDir).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      )
      if (age > STALE_LOCK_MS) await rm(lockDir, { recursive: true, force: true })
      else if (Date.now() > deadline) throw new Error(`the block counter ${lockDir} stayed locked for ${LOCK_WAIT_MS / 1000}s`, { cause: error })
      else await sleep(delay)
    }
  }
  try {
    return await work()
  } finally {
    await rm(lockDir, { recursive: true, force: true })
  }
}

/** The counter of one project's `.verify/` folder. */
export class BlockCounter {
  readonly #file: string
  readonly #lock: string

  constructor(verifyDir: string) {
    this.#file = join(verifyDir, 'hook-blocks.json')
    this.#lock = join(verifyDir, 'hook-blocks.lock')
  }

  /** Applies `change` to the key's count and returns the new count; a count idle longer than `forgetAfterMs` is 0. */
  async update(key: string, change: (count: number) => number, forgetAfterMs = FORGET_MS): Promise<number> {
    await mkdir(join(this.#file, '..'), { recursive: true })
    return withLock(this.#lock, async () => {
      const state = await readState(this.#file)
      const now = Date.now()
      for (const [k, entry] of state) if (now - Date.parse(entry.updatedAt) > FORGET_MS) state.delete(k)
      const entry = state.get(key)
      if (entry && now - Date.parse(entry.updatedAt) > forgetAfterMs) state.delete(key)
      const count = Math.max(0, change(state.get(key)?.count ?? 0))
      if (count === 0) state.delete(key)
      else state.set(key, { count, updatedAt: new Date(now).toISOString() })
      await writeJsonAtomic(this.#file, { schemaVersion: 1, blocks: Object.fromEntries(state) })
      return count
    })
  }

  async get(key: string): Promise<number> {
    return (await readState(this.#file)).get(key)?.count ?? 0
  }
}
