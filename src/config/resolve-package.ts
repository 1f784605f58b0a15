// Finds the file an `extends` entry names: a path relative to the file that declares it, or an npm package resolved
// from that file's folder the way Node resolves an import (node_modules upwards, self-reference, "exports").
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { CONFIG_EXTENSIONS, configInFolder, isFile } from './files.js'

const ESM_CONDITIONS = ['node', 'import', 'module-sync', 'default']
const CJS_CONDITIONS = ['node', 'require', 'default']

export type Resolution = { file: string } | { error: string }

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory()
}

/** A path as given, with a config extension added, or a folder's verify.config.* / index file. */
function probe(path: string): string | undefined {
  if (isFile(path)) return path
  for (const ext of CONFIG_EXTENSIONS) if (isFile(path + ext)) return path + ext
  if (isDirectory(path)) return configInFolder(path) ?? CONFIG_EXTENSIONS.map((ext) => join(path, `index${ext}`)).find(isFile)
  return undefined
}

/** `./x`, `../x`, `/x`, `.`: a path, resolved against the folder of the file that declares it (not the cwd). */
export function isPathEntry(entry: string): boolean {
  return entry === '.' || entry === '..' || entry.startsWith('./') || entry.startsWith('../') || isAbsolute(entry)
}

/** `gh:org/repo`, `https://…`, any `scheme:` but a Windows drive letter. */
export function isRemoteEntry(entry: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(entry) && !/^[a-z]:[\\/]/i.test(entry)
}

export function resolvePath(entry: string, fromDir: string): Resolution {
  const path = resolve(fromDir, entry)
  const file = probe(path)
  if (file) return { file }
  if (isDirectory(path)) return { error: `the folder ${path} has no verify.config.* file` }
  return { error: `no file or folder at ${path}` }
}

export type Exports = string | null | readonly Exports[] | { [key: string]: Exports }

function target(value: Exports, conditions: readonly string[], star: string | undefined): string | null {
  if (value === null) return null
  if (typeof value === 'string') return star === undefined ? value : value.replaceAll('*', star)
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = target(item, conditions, star)
      if (found !== null) return found
    }
    return null
  }
  for (const [key, next] of Object.entries(value as Record<string, Exports>)) {
    if (!conditions.includes(key)) continue
    const found = target(next, conditions, star)
    if (found !== null) return found
  }
  return null
}

/** The target of a subpath (".", "./presets/node") in a package's "exports", or null when it is not exported. */
export function resolveExports(exports: Exports, subpath: string, conditions: readonly string[] = ESM_CONDITIONS): string | null {
  const map: Record<string, Exports> =
    typeof exports === 'object' && exports !== null && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.'))
      ? (exports as Record<string, Exports>)
      : { '.': exports }
  if (Object.hasOwn(map, subpath)) return target(map[subpath] as Exports, conditions, undefined)
  // Subpath patterns: the longest matching prefix wins.
  const patterns = Object.keys(map)
    .filter((key) => key.includes('*'))
    .toSorted((a, b) => b.indexOf('*') - a.indexOf('*'))
  for (const key of patterns) {
    const [prefix = '', suffix = ''] = key.split('*')
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      return target(map[key] as Exports, conditions, subpath.slice(prefix.length, subpath.length - suffix.length))
    }
  }
  return null
}

interface PackageJson {
  name?: string
  main?: string
  exports?: Exports
}

function readPackage(dir: string): PackageJson | undefined {
  const file = join(dir, 'package.json')
  if (!isFile(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJson
  } catch {
    return undefined
  }
}

function inPackage(dir: string, pkg: PackageJson, name: string, subpath: string): Resolution {
  if (pkg.exports !== undefined) {
    const found = resolveExports(pkg.exports, subpath) ?? resolveExports(pkg.exports, subpath, CJS_CONDITIONS)
    if (found === null) return { error: `the package "${name}" (${dir}) does not export "${subpath}"` }
    const file = resolve(dir, found)
    return isFile(file) ? { file } : { error: `the package "${name}" exports "${subpath}" as ${found}, which does not exist (is it built?)` }
  }
  const file = subpath === '.' ? ((pkg.main ? probe(resolve(dir, pkg.main)) : undefined) ?? probe(dir)) : probe(resolve(dir, subpath))
  return file ? { file } : { error: `the package "${name}" (${dir}) has no "${subpath}" (no exports, main, verify.config.* or index file)` }
}

/**
 * Resolves a package specifier (`@acme/verify-preset`, `verify-protocol/presets/node`) from a folder. The file is the
 * real path, as Node resolves it: under pnpm `node_modules/@acme/preset` is a link into `.pnpm/…`, and the preset's
 * own dependencies are found only from there.
 */
export function resolvePackage(specifier: string, fromDir: string): Resolution {
  const found = findInPackages(specifier, fromDir)
  return 'file' in found ? { file: realpathSync(found.file) } : found
}

function findInPackages(specifier: string, fromDir: string): Resolution {
  const parts = specifier.split('/')
  const nameLength = specifier.startsWith('@') ? 2 : 1
  const name = parts.slice(0, nameLength).join('/')
  const subpath = parts.length > nameLength ? `./${parts.slice(nameLength).join('/')}` : '.'
  let scopeChecked = false
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    // Self-reference: the nearest package.json names this package and has "exports" (as Node allows it).
    const own = scopeChecked ? undefined : readPackage(dir)
    if (own) {
      scopeChecked = true
      if (own.name === name && own.exports !== undefined) return inPackage(dir, own, name, subpath)
    }
    const candidate = join(dir, 'node_modules', name)
    const pkg = readPackage(candidate)
    if (pkg) return inPackage(candidate, pkg, name, subpath)
    if (isDirectory(candidate)) return inPackage(candidate, {}, name, subpath)
    if (dirname(dir) === dir) break
  }
  return { error: `cannot find the package "${name}" from ${fromDir} (is it installed?)` }
}
