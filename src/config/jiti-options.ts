// Step 2 (load), helper: the options verify gives jiti, which loads config files: where the transform cache lives, and
// the aliases that let a config use the modules the bundled CLI already holds.
//
// When the bundled CLI loads a config that imports `verify-protocol`, and that import reaches this very package, the
// config gets the bundle's copy of the public API (dist/cli-api.js, whose modules the CLI already holds) instead of
// loading the library's ~100 modules a second time. Same package, same version, same code: only loading is saved; and
// the functions beyond the DSL and the schemas (the runner, the fingerprint, loading) load on their first call.
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { installCacheDir, PACKAGE_ROOT, privateCacheFolder, TOOL } from '../version.js'
import { transformStore, type TransformOptions, type TransformStore } from './transform-store.js'
import { resolvePackage } from './locate.js'

/** jiti aliases (specifier → file) for a config in `rootDir`; none when not bundled or the import reaches another copy. */
export function selfAlias(rootDir: string): Record<string, string> {
  // Only the bundle has dist/cli-api.js beside the module holding this code (tsc's output and the sources do not).
  const api = new URL('./cli-api.js', import.meta.url)
  if (api.protocol !== 'file:' || !existsSync(api)) return {}
  const packageDir = fileURLToPath(new URL('..', import.meta.url))
  const reached = resolvePackage(TOOL.name, rootDir)
  const library = new URL('./index.js', import.meta.url)
  if (!('file' in reached) || !existsSync(library) || reached.file !== realpathSync(library)) return {}
  // jiti matches an alias as a prefix (`verify-protocol/presets/node` would become `cli-api.js/presets/node`): every
  // other export of the package is aliased to the file it names, as Node resolves it from the package itself — as the
  // build resolved it (dist/cli-exports.json), else resolved now.
  const built = builtExports(new URL('./cli-exports.json', import.meta.url), packageDir)
  const alias: Record<string, string> = { [TOOL.name]: fileURLToPath(api) }
  const { exports } = JSON.parse(readFileSync(`${packageDir}package.json`, 'utf8')) as { exports?: unknown }
  if (exports && typeof exports === 'object' && !Array.isArray(exports)) {
    for (const key of Object.keys(exports)) {
      if (key === '.' || key.includes('*')) continue
      const specifier = `${TOOL.name}/${key.slice(2)}`
      const file = built[specifier] ?? resolved(specifier, packageDir)
      if (file) alias[specifier] = file
    }
  }
  return alias
}

/** The build's resolutions of the package's exports (paths from the package), made absolute; {} when absent. */
function builtExports(file: URL, packageDir: string): Record<string, string> {
  try {
    const read = JSON.parse(readFileSync(file, 'utf8')) as unknown
    if (!read || typeof read !== 'object') return {}
    const paths: Record<string, string> = {}
    for (const [specifier, path] of Object.entries(read)) if (typeof path === 'string') paths[specifier] = join(packageDir, path)
    return paths
  } catch {
    return {}
  }
}

function resolved(specifier: string, packageDir: string): string | undefined {
  const found = resolvePackage(specifier, packageDir)
  return 'file' in found ? found.file : undefined
}

/**
 * Where jiti keeps the TypeScript transform of each config file and preset: a pure function of the file's content (jiti
 * stores the source's hash with it and transforms again when it differs). Under the project's node_modules/.cache (never
 * in the workspace's fingerprinted files, wiped by `npm ci`); without one, beside verify's own install
 * (installCacheDir); never in the temp dir, where a transform left by one job would be run as the config of every
 * later job with the same source. `false` (no cache) when JITI_FS_CACHE or JITI_CACHE says so, as jiti would on its own.
 */
export function transformCacheDir(rootDir: string, env: Readonly<Record<string, string | undefined>>): string | false {
  const setting = env.JITI_FS_CACHE ?? env.JITI_CACHE
  if (setting !== undefined && ['0', 'false'].includes(setting.toLowerCase())) return false
  const modules = join(rootDir, 'node_modules')
  if (existsSync(modules)) return join(modules, '.cache', 'verify-protocol', 'jiti')
  // A project without node_modules (verify run by npx, or installed globally): beside verify's own install, if any.
  const beside = installCacheDir('jiti')
  return existsSync(dirname(dirname(dirname(beside)))) ? beside : false
}

type Transform = (options: TransformOptions) => { code: string; error?: unknown }

let babel: { file: string; transform: Transform } | null = null

/**
 * jiti's TypeScript transform, given to jiti as its `transform`: the output `store` kept for the same source and options
 * (transform-store.ts), else babel's, required on the first file that needs it (a fresh clone, after `npm ci`) as
 * jiti itself would. Unlike jiti's own, it can be let go.
 */
export function configTransform(store: TransformStore | null): Transform {
  return (options) => {
    const kept = store?.get(options)
    if (kept !== undefined) return { code: kept }
    if (!babel) {
      const require = createRequire(import.meta.url)
      const file = join(dirname(require.resolve('jiti/package.json')), 'dist', 'babel.cjs')
      babel = { file, transform: require(file) as Transform }
    }
    const result = babel.transform(options)
    if (store && result.error === undefined && typeof result.code === 'string') store.put(options, result.code)
    return result
  }
}

/**
 * Where a load keeps config transforms by their content: verify's own cache folder, unless jiti's cache is off
 * (`transformCacheDir` gives false); null when that folder cannot be used safely.
 */
export function configTransformStore(
  rootDir: string,
  env: Readonly<Record<string, string | undefined>>,
  { write = true }: { write?: boolean } = {},
): TransformStore | null {
  if (transformCacheDir(rootDir, env) === false) return null
  const folder = privateCacheFolder('transforms', 'jiti', PACKAGE_ROOT, { create: write })
  if (folder === null) return null
  try {
    jitiVersion ??= (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('jiti/package.json'), 'utf8')) as { version: string }).version
  } catch {
    return null // a jiti this package cannot resolve: babel would not load either, and jiti says so
  }
  const rebuild = env.JITI_REBUILD_FS_CACHE
  return transformStore(folder, `jiti ${jitiVersion}`, {
    rebuild: rebuild !== undefined && !['', '0', 'false'].includes(rebuild.toLowerCase()),
    readOnly: !write,
  })
}

let jitiVersion: string | undefined

/**
 * Lets babel go once the config is loaded: loaded, it holds about 30 MiB that a run would otherwise keep to its end,
 * a fifth of verify's 150 MiB budget while a check floods its output. The next load that needs it requires it again.
 */
export function releaseTransform(): void {
  if (!babel) return
  delete createRequire(import.meta.url).cache[babel.file]
  babel = null
}
