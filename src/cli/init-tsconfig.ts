// `verify init` and the project's tsconfig.json: `defineProtocol` types `dependsOn` so that a wrong check id is a
// compiler error, but only where the compiler sees verify.config.ts. When the tsconfig's `include` leaves it out, init
// offers to add it, editing the file with a JSONC editor so the comments and layout a person wrote stay.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyEdits, modify, parse, type ParseError } from 'jsonc-parser'
import picomatch from 'picomatch'

export type TsconfigState =
  | { kind: 'none' }
  | { kind: 'included' }
  /** The file's `include` leaves the config out; `add` puts it in. */
  | { kind: 'left-out'; add: () => void }
  /** Left out, and adding it would not be right (a `rootDir`, or a file verify cannot edit safely); why, in words. */
  | { kind: 'cannot-add'; why: string }

interface Tsconfig {
  files?: unknown
  include?: unknown
  exclude?: unknown
  extends?: unknown
  compilerOptions?: { rootDir?: unknown }
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [])

// tsconfig patterns name folders as well as files: `src` means everything under it.
function matches(patterns: readonly string[], file: string): boolean {
  return patterns.some((pattern) => {
    const clean = pattern.replace(/^\.\//, '').replace(/\/$/, '')
    return picomatch.isMatch(file, clean, { dot: true }) || picomatch.isMatch(file, `${clean}/**`, { dot: true })
  })
}

/** Is `configFile` (relative to dir) part of the program tsconfig.json describes, and can init add it? */
export function tsconfigState(dir: string, configFile: string): TsconfigState {
  const path = join(dir, 'tsconfig.json')
  if (!existsSync(path)) return { kind: 'none' }
  const text = readFileSync(path, 'utf8')
  const errors: ParseError[] = []
  const data = parse(text, errors, { allowTrailingComma: true }) as Tsconfig | undefined
  if (errors.length > 0 || !data || typeof data !== 'object' || Array.isArray(data))
    return { kind: 'cannot-add', why: 'tsconfig.json could not be read as JSON with comments' }
  for (const key of ['files', 'include', 'exclude'] as const) {
    if (data[key] !== undefined && !Array.isArray(data[key])) return { kind: 'cannot-add', why: `tsconfig.json's "${key}" is not a list` }
  }
  const files = strings(data.files)
  const include = strings(data.include)
  if (files.includes(configFile) || files.includes(`./${configFile}`)) return { kind: 'included' }
  // Without `files` and `include`, TypeScript includes every file under the folder (an `extends` may narrow it).
  const listed = data.include !== undefined || data.files !== undefined
  if (!listed && data.extends === undefined)
    return matches(strings(data.exclude), configFile) ? { kind: 'cannot-add', why: 'tsconfig.json excludes it' } : { kind: 'included' }
  if (include.length > 0 && matches(include, configFile) && !matches(strings(data.exclude), configFile)) return { kind: 'included' }
  if (!listed) return { kind: 'cannot-add', why: 'tsconfig.json takes its files from the config it extends' }
  if (typeof data.compilerOptions?.rootDir === 'string') {
    return { kind: 'cannot-add', why: `tsconfig.json sets rootDir "${data.compilerOptions.rootDir}", which would then not hold every file` }
  }
  const key = data.include !== undefined ? 'include' : 'files'
  return {
    kind: 'left-out',
    add: () => {
      const edits = modify(text, [key, -1], configFile, { isArrayInsertion: true, formattingOptions: { insertSpaces: true, tabSize: 2 } })
      writeFileSync(path, applyEdits(text, edits))
    },
  }
}
