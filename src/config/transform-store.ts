// Step 2 (load), helper: the TypeScript transforms of config files, kept by their content. jiti keeps its own by the
// file's path, so the same source at another path was transformed again, babel loaded first (about 0.25 s of CPU): a
// second clone or worktree, a copied project, and the checkout `--protocol-from` makes in a new temporary folder at
// every run. Kept here by the SHA-256 of the source and of every transform option but the file's name (its extension
// counts). An output that holds the file's folder (`import.meta.url`) or names the file (an inline source map) depends
// on where the file is: it is not kept.
//
// A kept transform is code that the next load runs: the folder is verify's own (version.ts, privateCacheFolder), as easy
// to write as verify's installed files and no easier, never the temp dir. Each file carries the SHA-256 of its code,
// so a damaged one is transformed again.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** What jiti hands its `transform`: the source, the file's name and the options of the transform. */
export interface TransformOptions {
  source: string
  filename?: string
  [option: string]: unknown
}

/** More files than the configs of a few projects make: the folder is emptied before it grows without bound. */
const MAX_FILES = 400

export interface TransformStore {
  /** The kept output for these options, if any. */
  get(options: TransformOptions): string | undefined
  /** Keeps `code`, the output for these options, when it does not depend on where the file is. */
  put(options: TransformOptions, code: string): void
}

/**
 * A store in `folder` for the transforms of `transformer` (its name and version: another version transforms anew).
 * `readOnly`: what is kept is served, nothing is written.
 */
export function transformStore(folder: string, transformer: string, mode: { rebuild?: boolean; readOnly?: boolean } = {}): TransformStore {
  const fileOf = (options: TransformOptions): string | null => {
    const key = keyOf(options, transformer)
    return key === null ? null : join(folder, `${key}.js`)
  }
  return {
    get(transform) {
      // Asked to transform anew (JITI_REBUILD_FS_CACHE), as jiti's own cache is: what is kept is replaced, never served.
      const file = mode.rebuild ? null : fileOf(transform)
      if (file === null) return undefined
      try {
        return verified(readFileSync(file, 'utf8'))
      } catch {
        return undefined // not kept yet
      }
    },
    put(options, code) {
      const file = mode.readOnly ? null : fileOf(options)
      if (file === null || mapsSource(options) || dependsOnPlace(code, options.filename)) return
      // Written aside and renamed: a load meanwhile reads the old file or the new, never half of one.
      const temporary = `${file}.${process.pid}.tmp`
      try {
        if (readdirSync(folder).length >= MAX_FILES) for (const name of readdirSync(folder)) rmSync(join(folder, name), { force: true })
        writeFileSync(temporary, `${sha256(code)}\n${code}`, { mode: 0o600 })
        renameSync(temporary, file)
      } catch {
        // A full disk or a folder removed meanwhile: the next load transforms again.
      } finally {
        rmSync(temporary, { force: true })
      }
    },
  }
}

/**
 * The key of a transform: the source, every option but the file's name, and the name's extension (with JSX on, jiti
 * reads `.tsx` otherwise than `.ts`); null when an option is no plain data.
 */
function keyOf(options: TransformOptions, transformer: string): string | null {
  const { source, filename = '', ...rest } = options
  if (typeof source !== 'string' || !isPlainData(rest)) return null
  return sha256(`${transformer}\0${extname(filename)}\0${stableJson(rest)}\0${source}`)
}

/** An inline source map names the file (in base64, where no search for the folder finds it). */
function mapsSource(options: TransformOptions): boolean {
  const babel = options.babel
  return typeof babel === 'object' && babel !== null && 'sourceMaps' in babel && Boolean((babel as { sourceMaps?: unknown }).sourceMaps)
}

/** Strings, numbers, booleans, null, and arrays and plain objects of them: what JSON keeps whole. */
function isPlainData(value: unknown): boolean {
  if (value === null || value === undefined || ['string', 'boolean'].includes(typeof value)) return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (Array.isArray(value)) return value.every(isPlainData)
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false
  return Object.values(value).every(isPlainData)
}

/** JSON with object keys sorted, so that the same options give the same key whatever their order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
    return `{${entries
      .toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** Does the output hold the file's folder (as a path, inside a string literal, or as a URL)? */
function dependsOnPlace(code: string, filename: string | undefined): boolean {
  if (filename === undefined) return true
  const folder = dirname(filename)
  if (folder.length <= 1) return true
  return [folder, JSON.stringify(folder).slice(1, -1), pathToFileURL(folder).href].some((form) => code.includes(form))
}

function verified(text: string): string | undefined {
  const newline = text.indexOf('\n')
  const code = text.slice(newline + 1)
  return newline === 64 && text.slice(0, 64) === sha256(code) ? code : undefined
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')
