// The names c12 (3.x, name `verify`) discovers a config under, in the order it tries them. `verify init`, the loader
// and folder entries of `extends` share them, so none of them can miss a config that c12 would load.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/** c12's SUPPORTED_EXTENSIONS, in its order. */
export const CONFIG_EXTENSIONS = ['.js', '.ts', '.mjs', '.cjs', '.mts', '.cts', '.json', '.jsonc', '.json5', '.yaml', '.yml', '.toml'] as const

/** Config files c12 finds in a folder, relative to it, in the order it tries them (the first found is loaded). */
export const CONFIG_FILES: readonly string[] = [
  ...CONFIG_EXTENSIONS.map((ext) => `verify.config${ext}`),
  ...CONFIG_EXTENSIONS.map((ext) => `verify.config/index${ext}`),
  ...CONFIG_EXTENSIONS.map((ext) => `.config/verify${ext}`),
  ...CONFIG_EXTENSIONS.map((ext) => `.config/verify.config${ext}`),
]

/** The rc file c12 reads next to the config file: rc9 `key=value` lines, not JSON. */
export const RC_FILE = '.verifyrc'

/** The package.json key c12 reads. */
export const PACKAGE_JSON_KEY = 'verify'

export function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile()
}

/** The config file c12 would load from a folder, if any. */
export function configInFolder(dir: string): string | undefined {
  return CONFIG_FILES.map((name) => join(dir, name)).find(isFile)
}

/**
 * The project root of a config file: its folder, except for the places c12 also looks in (`.config/verify.ts`,
 * `verify.config/index.ts`), whose project is the folder above.
 */
export function projectRootOf(configFile: string): string {
  const dir = dirname(configFile)
  return basename(dir) === '.config' || basename(dir) === 'verify.config' ? dirname(dir) : dir
}

/** Does the folder hold something c12 loads as the verify config (a config file, .verifyrc, package.json's key)? */
export function holdsConfig(dir: string): boolean {
  if (configInFolder(dir) || isFile(join(dir, RC_FILE))) return true
  const pkg = join(dir, 'package.json')
  if (!isFile(pkg)) return false
  try {
    const data = JSON.parse(readFileSync(pkg, 'utf8')) as Record<string, unknown> | null
    return typeof data === 'object' && data !== null && data[PACKAGE_JSON_KEY] !== undefined
  } catch {
    return false
  }
}

/**
 * Where the config is, searching from `cwd` upward as git and Vitest do: up to the top of the git repository `cwd` is
 * in, or outside git up to the nearest folder with a package.json. `searched` lists the folders looked in, for the
 * "no config" message.
 */
export function findConfigDir(cwd: string): { dir: string | undefined; searched: string[] } {
  const searched: string[] = []
  const outsideGit = !ancestors(cwd).some((dir) => existsSync(join(dir, '.git')))
  for (const dir of ancestors(cwd)) {
    searched.push(dir)
    if (holdsConfig(dir)) return { dir, searched }
    if (existsSync(join(dir, '.git')) || (outsideGit && isFile(join(dir, 'package.json')))) break
  }
  return { dir: undefined, searched }
}

function ancestors(start: string): string[] {
  const dirs = [start]
  for (let dir = dirname(start); dir !== dirs.at(-1); dir = dirname(dir)) dirs.push(dir)
  return dirs
}
