// Step 1 of the config pipeline (discover → load → validate → merge → resolve): where the project's config is. The
// names c12 (3.x, name `verify`) discovers a config under, in the order it tries them — `verify init`, the loader and
// folder entries of `extends` share them, so none of them can miss a config that c12 would load — and the search from
// the working folder upward.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { VerifyConfigError } from '../errors.js'

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
  let text: string
  try {
    text = readFileSync(pkg, 'utf8')
  } catch {
    return false
  }
  try {
    const data = JSON.parse(text) as Record<string, unknown> | null
    return typeof data === 'object' && data !== null && data[PACKAGE_JSON_KEY] !== undefined
  } catch (error) {
    // A config in a package.json that does not parse is a broken config, not a missing one.
    if (new RegExp(`"${PACKAGE_JSON_KEY}"\\s*:`).test(text)) {
      throw new VerifyConfigError('E_CONFIG_LOAD', `${pkg} holds a "${PACKAGE_JSON_KEY}" key but is not valid JSON (${(error as Error).message}): fix the JSON`)
    }
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

/** Where the pipeline loads the config from. */
export interface Discovery {
  /** The folder the config was looked for from (absolute). */
  cwd: string
  /** The config file given instead of discovery (`--config`), absolute. */
  configFile?: string
  /** The project's folder: where c12 looks for the config file, `.verifyrc` and package.json. */
  baseDir: string
  /** The config file c12 finds there, if any (the config may also be in `.verifyrc` or package.json). */
  discovered?: string
  /** The folders looked in, for the "no config" message. */
  searched: string[]
}

/** Finds the project's folder from `cwd` upward, or takes the `--config` file given. Throws VerifyConfigError. */
export function discoverConfig(options: { cwd?: string; configFile?: string }): Discovery {
  const cwd = resolve(options.cwd ?? process.cwd())
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `--cwd ${cwd} is not a folder`)
  }
  const configFile = options.configFile ? givenConfigFile(resolve(cwd, options.configFile)) : undefined
  // c12 looks for .verifyrc and package.json in the project's folder, which is above `.config/`; without --config the
  // folder is found from cwd upward (a subfolder of the project finds the project's config).
  const found = configFile ? undefined : findConfigDir(cwd)
  const baseDir = configFile ? projectRootOf(configFile) : (found?.dir ?? cwd)
  const discovered = configFile ?? configInFolder(baseDir)
  return { cwd, ...(configFile ? { configFile } : {}), baseDir, ...(discovered ? { discovered } : {}), searched: found?.searched ?? [cwd] }
}

/** The error when c12 found no config where discovery looked. */
export function configNotFound(discovery: Discovery): VerifyConfigError {
  return new VerifyConfigError(
    'E_CONFIG_NOT_FOUND',
    `No verify config found (looked for verify.config.ts and the other verify.config.* files, .config/verify.*, .verifyrc, and "verify" in package.json in ${searchedIn(discovery.searched)}). Run \`npx verify init\` to write one.`,
  )
}

/** `/a/b/c`, `/a/b/c and /a/b`, `/a/b/c, /a/b and /a`. */
function searchedIn(dirs: readonly string[]): string {
  return dirs.length <= 1 ? (dirs[0] ?? '') : `${dirs.slice(0, -1).join(', ')} and ${dirs.at(-1)}`
}

/** `--config` as given: a file. A folder is a mistake worth a sentence, not c12's "Cannot find module". */
function givenConfigFile(path: string): string {
  if (!existsSync(path)) throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `No config file at ${path}`)
  const info = statSync(path)
  if (info.isFile()) return path
  // Reading a FIFO blocks until something writes it, a device may never end: neither is a config.
  if (!info.isDirectory())
    throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `The config file ${path} is not a regular file (a FIFO, a device or a socket): give a file`)
  const inside = configInFolder(path)
  throw new VerifyConfigError(
    'E_CONFIG_NOT_FOUND',
    `The config file ${path} is a folder: ${inside ? `give the file (--config ${inside}), or` : 'it holds no verify.config.* file; give a file, or'} use --cwd ${path} to find the config in it`,
  )
}
