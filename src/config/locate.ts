// Step 2 (load), helper: finds the file an `extends` entry names — a path relative to the file that declares it, or an
// npm package resolved from that file's folder the way Node resolves an import (node_modules upwards, self-reference,
// "exports" through exsolve, Node's own resolver as c12 uses it).
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { resolveModulePath } from 'exsolve'
import { CONFIG_EXTENSIONS, configInFolder, isFile } from './discover.js'

// Node's resolver always takes "default"; "require" is a second try, for presets that ship CommonJS only.
const ESM_CONDITIONS = ['node', 'import', 'module-sync']
const CJS_CONDITIONS = ['node', 'require']

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

interface PackageJson {
  name?: string
  main?: string
  exports?: unknown
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

/**
 * The folder of the package Node would resolve `name` to from `fromDir`: the enclosing package itself when its
 * package.json names it and has "exports" (self-reference), else the nearest `node_modules/<name>` upwards.
 */
function packageDir(name: string, fromDir: string): { dir: string; pkg: PackageJson } | undefined {
  let scopeChecked = false
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const own = scopeChecked ? undefined : readPackage(dir)
    if (own) {
      scopeChecked = true
      if (own.name === name && own.exports != null) return { dir, pkg: own }
    }
    const candidate = join(dir, 'node_modules', name)
    if (isDirectory(candidate)) return { dir: candidate, pkg: readPackage(candidate) ?? {} }
    if (dirname(dir) === dir) return undefined
  }
}

/** What Node's resolver (exsolve) gives for `specifier` from `fromDir`, for import, else for require. */
function nodeResolve(specifier: string, fromDir: string): string | undefined {
  const from = pathToFileURL(join(resolve(fromDir), '/'))
  for (const conditions of [ESM_CONDITIONS, CJS_CONDITIONS]) {
    // No cache: a preset may be installed, built or edited between two loads in one process (a library user).
    const file = resolveModulePath(specifier, { from, conditions, try: true, cache: false })
    if (file !== undefined) return file
  }
  return undefined
}

/** The keys of an "exports" field ("." for the shorthand forms). */
function exportedSubpaths(exports: unknown): string[] {
  const keys = exports !== null && typeof exports === 'object' && !Array.isArray(exports) ? Object.keys(exports) : []
  return keys.some((key) => key.startsWith('.')) ? keys : ['.']
}

/**
 * Resolves a package specifier (`@acme/verify-preset`, `verify-protocol/presets/node`) from a folder. The file is the
 * real path, as Node resolves it: under pnpm `node_modules/@acme/preset` is a link into `.pnpm/…`, and the preset's
 * own dependencies are found only from there. A package without "exports" may also be a folder with a
 * verify.config.* (or index) file, and its `main` or subpath may leave out a config extension such as `.ts`.
 */
export function resolvePackage(specifier: string, fromDir: string): Resolution {
  const parts = specifier.split('/')
  const nameLength = specifier.startsWith('@') ? 2 : 1
  const name = parts.slice(0, nameLength).join('/')
  const subpath = parts.length > nameLength ? `./${parts.slice(nameLength).join('/')}` : '.'
  const found = packageDir(name, fromDir)
  if (!found) return { error: `cannot find the package "${name}" from ${fromDir} (is it installed?)` }
  const { dir, pkg } = found
  if (pkg.exports == null) {
    const file = subpath === '.' ? ((pkg.main ? probe(resolve(dir, pkg.main)) : undefined) ?? probe(dir)) : probe(resolve(dir, subpath))
    return file
      ? { file: realpathSync(file) }
      : { error: `the package "${name}" (${dir}) has no "${subpath}" (no exports, main, verify.config.* or index file)` }
  }
  const file = nodeResolve(specifier, fromDir)
  if (file !== undefined) return { file: realpathSync(file) }
  // Node's resolver says only that it failed: name the causes the package's "exports" leave possible.
  const keys = exportedSubpaths(pkg.exports)
  if (keys.includes(subpath)) {
    return { error: `the package "${name}" (${dir}) exports "${subpath}" as a file which does not exist, or for neither import nor require (is it built?)` }
  }
  if (keys.some((key) => key.includes('*'))) {
    return { error: `the package "${name}" (${dir}) does not export "${subpath}", or exports it as a file which does not exist (is it built?)` }
  }
  return { error: `the package "${name}" (${dir}) does not export "${subpath}"` }
}
