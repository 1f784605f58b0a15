// Reads the entries of a git index file (gitformat-index(5), versions 2–4) without starting git: the fingerprint
// needs each entry's path, mode and the flags that make git skip a file, and one process less is a tenth of its
// time. Anything this reader does not know (a split index, another version) gives null: ask git instead.
import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'

export interface IndexEntry {
  path: string
  /** Octal, as git prints it: `100644`, `160000` (a submodule), `040000` (a sparse directory). */
  mode: string
  /** Flagged `--assume-unchanged`. */
  assumeUnchanged: boolean
  /** Flagged `--skip-worktree` (by hand or by a sparse checkout). */
  skipWorktree: boolean
}

const ASSUME_VALID = 0x8000
const EXTENDED = 0x4000
const NAME_MASK = 0x0fff
const SKIP_WORKTREE = 0x4000
const FIXED = 40 // ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields

/** The entries of the index at `file` ([] when it does not exist), or null when its format is not one read here. */
export async function readIndex(file: string, objectBytes: number): Promise<IndexEntry[] | null> {
  const data = await readOrNull(file)
  if (!data) return []
  const parsed = parse(data, objectBytes, true)
  // A split index ("link") keeps most entries in another file.
  return parsed && !parsed.extensions.some((e) => e.signature === 'link') ? parsed.entries : null
}

/**
 * Rewrites the index copy at `file` without its optional extensions: the cache-tree ("TREE"), the untracked cache and
 * the fsmonitor's token are caches, and whoever can write .git/index could leave them stale for git to trust (a
 * cache-tree of the old tree over entries of the new files). `'split'` for a split index, whose entries live in
 * another file; false when the file is not an index read here (it is then not to be used).
 */
export async function withoutCaches(file: string, objectBytes: number): Promise<boolean | 'split'> {
  const data = await readOrNull(file)
  if (!data) return true
  const parsed = parse(data, objectBytes, false)
  if (!parsed) return false
  if (parsed.extensions.some((e) => e.signature === 'link')) return 'split'
  // Upper-case signatures are optional: git works the same without them. The others (a sparse index's "sdir") stay.
  const kept = parsed.extensions.filter((e) => !/^[A-Z]/.test(e.signature)).map((e) => data.subarray(e.start, e.end))
  const body = Buffer.concat([data.subarray(0, parsed.extensionsAt), ...kept])
  const checksum = createHash(objectBytes === 32 ? 'sha256' : 'sha1')
    .update(body)
    .digest()
  await writeFile(file, Buffer.concat([body, checksum]))
  return true
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

interface ParsedIndex {
  entries: IndexEntry[]
  /** Where the entries end. */
  extensionsAt: number
  extensions: { signature: string; start: number; end: number }[]
}

// Truncated or not what it claims: null, and git will say what is wrong.
function parse(data: Buffer, objectBytes: number, collect: boolean): ParsedIndex | null {
  try {
    return parseIndex(data, objectBytes, collect)
  } catch {
    return null
  }
}

function parseIndex(data: Buffer, objectBytes: number, collect: boolean): ParsedIndex | null {
  if (data.toString('latin1', 0, 4) !== 'DIRC') return null
  const version = data.readUInt32BE(4)
  if (version < 2 || version > 4) return null
  const count = data.readUInt32BE(8)
  const entries: IndexEntry[] = []
  let offset = 12
  let previous: Buffer = Buffer.alloc(0)
  let previousLength = 0
  for (let i = 0; i < count; i++) {
    const start = offset
    const mode = data.readUInt32BE(start + 24)
    offset += FIXED + objectBytes
    const flags = data.readUInt16BE(offset)
    offset += 2
    let extended = 0
    if (flags & EXTENDED) {
      if (version < 3) return null
      extended = data.readUInt16BE(offset)
      offset += 2
    }
    let name: Buffer = previous
    if (version === 4) {
      // The path is the previous one minus its last N bytes, plus a NUL-terminated suffix.
      let byte = data[offset++] as number
      let strip = byte & 127
      while (byte & 128) {
        byte = data[offset++] as number
        strip = ((strip + 1) << 7) + (byte & 127)
      }
      const end = data.indexOf(0, offset)
      if (end < 0 || strip > previousLength) return null
      previousLength += end - offset - strip
      if (collect) name = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(offset, end)])
      offset = end + 1
    } else {
      const end = data.indexOf(0, offset)
      if (end < 0) return null
      name = data.subarray(offset, end)
      if ((flags & NAME_MASK) !== NAME_MASK && name.length !== (flags & NAME_MASK)) return null
      // Entries are padded with 1–8 NULs to a multiple of 8 bytes.
      offset = start + ((end - start + 8) & ~7)
    }
    previous = name
    if (!collect) continue
    entries.push({
      path: name.toString('utf8'),
      mode: mode.toString(8).padStart(6, '0'),
      assumeUnchanged: (flags & ASSUME_VALID) !== 0,
      skipWorktree: (extended & SKIP_WORKTREE) !== 0,
    })
  }
  const extensionsAt = offset
  const extensions: ParsedIndex['extensions'] = []
  while (offset + 8 <= data.length - objectBytes) {
    const size = data.readUInt32BE(offset + 4)
    extensions.push({ signature: data.toString('latin1', offset, offset + 4), start: offset, end: offset + 8 + size })
    offset += 8 + size
  }
  if (offset !== data.length - objectBytes) return null
  return { entries, extensionsAt, extensions }
}
