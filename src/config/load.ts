// Step 2 of the config pipeline (discover → load → validate → merge → resolve): loads the project's config file with
// c12 (TypeScript through jiti, JSON, YAML, TOML, `.verifyrc`, package.json's key; `$env` applied), then every layer it
// extends (layers.ts follows `extends`, each file loaded here). Nothing is validated yet, but every failure to load is
// a VerifyConfigError naming the file.
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative, resolve } from 'node:path'
import type { LoadConfigOptions } from 'c12'
import { VerifyError, VerifyConfigError } from '../errors.js'
import type { PresetContext } from './define.js'
import { configInFolder, configNotFound, isFile, PACKAGE_JSON_KEY, projectRootOf, RC_FILE, type Discovery } from './discover.js'
import { configTransform, configTransformStore, releaseTransform, selfAlias, transformCacheDir } from './jiti-options.js'
import { collectLayers, type Layer } from './layers.js'
import { mergeConfigObjects } from './merge.js'
import type { Environment } from '../types.js'
import { errorSummary, EXPECTED_EXPORT } from './messages.js'

export type { Environment }

/** Every layer of the project's config, as loaded. */
export interface LoadedFiles {
  /** Lowest first; the project's config is the last. */
  layers: Layer[]
  /** Absolute path of the config file (or package.json / rc file it came from). */
  rootFile: string
  /** The config's folder: where checks run and `.verify/` lives. */
  rootDir: string
  /** What c12 merged into the config file, for messages: `.verifyrc`, `the "verify" key of package.json`. */
  alongside: string[]
}

/** The c12 environment name: `VERIFY_ENV`, else `ci` under CI, else `NODE_ENV`. */
export function envName(env: Environment): string | false {
  if (env.VERIFY_ENV) return env.VERIFY_ENV
  if (env.CI && env.CI !== 'false' && env.CI !== '0') return 'ci'
  return env.NODE_ENV || false
}

function c12Options(env: Environment, context: PresetContext, writeCaches: boolean): LoadConfigOptions<Record<string, unknown>> {
  return {
    name: 'verify',
    globalRc: false,
    dotenv: false,
    giget: false,
    // Layers are followed by collectLayers, which reports what c12 would only warn about.
    extend: false,
    envName: envName(env),
    omit$Keys: true,
    merger: mergeConfigObjects as NonNullable<LoadConfigOptions<Record<string, unknown>>['merger']>,
    context: context as unknown as NonNullable<LoadConfigOptions['context']>,
    // The transform of each file is cached (content-keyed); the module is evaluated afresh on every load, never taken
    // from a module cache: a config may read the environment or other files, and a stale protocol would approve.
    jitiOptions: {
      // jiti's own cache is written at every load of a file it has not seen at that path: off when nothing may be written.
      fsCache: writeCaches && transformCacheDir(context.rootDir, env),
      moduleCache: false,
      alias: selfAlias(context.rootDir),
      transform: configTransform(configTransformStore(context.rootDir, env, { write: writeCaches })) as NonNullable<
        NonNullable<LoadConfigOptions['jitiOptions']>['transform']
      >,
    },
  }
}

/**
 * Loads the config discovery found and every layer under it. `progress.file` names the file being loaded, for the
 * message when loading ends the wrong way (the time limit, process.exit, a stray throw: guard.ts). With `writeCaches`
 * false, transforms are read from verify's store but nothing is written (LoadOptions.writeCaches).
 */
export async function loadLayers(discovery: Discovery, env: Environment, progress: { file: string }, writeCaches = true): Promise<LoadedFiles> {
  try {
    return await loadEveryLayer(discovery, env, progress, writeCaches)
  } finally {
    releaseTransform()
  }
}

async function loadEveryLayer(discovery: Discovery, env: Environment, progress: { file: string }, writeCaches: boolean): Promise<LoadedFiles> {
  const { cwd, configFile, baseDir, discovered } = discovery
  // Presets see the folder of the config: discovery finds it in `cwd` (c12 does not search upwards).
  const context: PresetContext = { rootDir: baseDir, ...(configFile ? { configFile } : {}), env }
  const { loadConfig } = await import('c12')
  const base = c12Options(env, context, writeCaches)
  const rootOptions: LoadConfigOptions<Record<string, unknown>> = {
    ...base,
    cwd: baseDir,
    // `--config <file>` is that file alone: no .verifyrc or package.json key of its folder merged into it.
    ...(configFile ? { configFile, rcFile: false, packageJson: false } : { rcFile: RC_FILE, packageJson: PACKAGE_JSON_KEY }),
  }
  const where = discovered ? `${relative(baseDir, discovered) || discovered} (${discovered})` : `the config in ${cwd}`
  progress.file = where
  let loaded
  try {
    loaded = await loadConfig<Record<string, unknown>>(rootOptions)
  } catch (error) {
    throw new VerifyConfigError('E_CONFIG_LOAD', `Could not load ${where}: ${loadFailure(error)}`, [], { cause: error })
  }
  checkRcFile(baseDir, loaded.layers ?? [])
  const file =
    configFile ??
    [loaded.configFile].filter((f): f is string => typeof f === 'string' && isFile(f))[0] ??
    (loaded.layers ?? [])
      .filter((layer) => typeof layer.configFile === 'string' && layer.config && Object.keys(layer.config).length > 0)
      .map((layer) => resolve(baseDir, layer.configFile as string))
      .find(isFile)
  const rootRaw = loaded.config ?? {}
  if (!file && Object.keys(rootRaw).length === 0) throw configNotFound(discovery)
  const rootFile = file ?? configInFolder(baseDir) ?? resolve(baseDir, 'package.json')
  const rootDir = projectRootOf(rootFile)
  context.rootDir = rootDir
  context.configFile = rootFile
  // c12 merges a .verifyrc and package.json's key into the config file: a problem found in them is named with them.
  const alongside = (loaded.layers ?? [])
    .filter((layer) => (layer.configFile === RC_FILE || layer.configFile === 'package.json') && Object.keys(layer.config ?? {}).length > 0)
    .map((layer) => (layer.configFile === RC_FILE ? RC_FILE : `the "${PACKAGE_JSON_KEY}" key of package.json`))
    .filter((label) => !(label.includes('package.json') && basename(rootFile) === 'package.json') && !(label === RC_FILE && basename(rootFile) === RC_FILE))
  const fileLabel = relative(rootDir, rootFile) || basename(rootFile)
  const rootLabel = alongside.length > 0 ? `${fileLabel} merged with ${alongside.join(' and ')}` : fileLabel
  // One jiti for every layer: c12 stores the instance it created in the options it was given.
  const shared: LoadConfigOptions<Record<string, unknown>> = { ...base, ...(rootOptions.jiti ? { jiti: rootOptions.jiti } : {}) }
  const layers: Layer[] = await collectLayers(rootRaw, {
    rootDir,
    rootFile,
    rootLabel,
    context,
    envName: envName(env),
    merge: mergeConfigObjects,
    loaders: {
      file: async (path) => {
        progress.file = `${relative(rootDir, path) || path} (${path})`
        let layer
        try {
          layer = await loadConfig<Record<string, unknown>>({ ...shared, cwd: dirname(path), configFile: basename(path), rcFile: false, packageJson: false })
        } catch (error) {
          throw new Error(loadFailure(error), { cause: error })
        }
        // c12 turns a module without a default export (or `export default undefined`) into `{}`: a preset that
        // silently brings nothing.
        if (Object.keys(layer.config ?? {}).length === 0) throw new Error(`it exports no config (no default export, or an empty one): ${EXPECTED_EXPORT}`)
        return layer.config
      },
      remote: (source) => loadRemote(source, base),
    },
  })
  return { layers, rootFile, rootDir, alongside }
}

/**
 * Why a config file failed to load, in one line (and its location). For `export default null`, jiti's default-export
 * interop throws a TypeError reading `then` from its own code: say what the module exports instead.
 */
function loadFailure(error: unknown): string {
  const firstFrame = error instanceof Error ? /\n\s+at (.*)/.exec(error.stack ?? '')?.[1] : undefined
  if (error instanceof Error && error.name === 'TypeError' && error.message.includes("reading 'then'") && firstFrame?.includes('jiti')) {
    return `its default export is null: ${EXPECTED_EXPORT}`
  }
  return errorSummary(error)
}

/** A .verifyrc with text but no setting was not written as rc9 `key=value` lines (likely JSON): say so, not ignore it. */
function checkRcFile(dir: string, layers: readonly { configFile?: string; config?: unknown }[]): void {
  const path = join(dir, RC_FILE)
  if (!isFile(path) || readFileSync(path, 'utf8').trim() === '') return
  const config = layers.find((layer) => layer.configFile === RC_FILE)?.config
  if (config && typeof config === 'object' && Object.keys(config).length > 0) return
  throw new VerifyConfigError(
    'E_CONFIG_INVALID',
    `${path} holds no setting: .verifyrc is read as rc lines \`key=value\` with dotted keys (\`checks.build=npm run build\`, \`timeout=5m\`), not JSON. Write JSON in verify.config.json instead.`,
  )
}

/** Downloads a remote layer with c12 and giget (one hop: its own `extends` are followed by collectLayers). */
async function loadRemote(source: string, base: LoadConfigOptions<Record<string, unknown>>): Promise<{ raw: unknown; file: string }> {
  const { loadConfig } = await import('c12')
  const cwd = await mkdtemp(join(tmpdir(), 'verify-remote-'))
  const warnings: string[] = []
  const warn = console.warn
  // c12 only warns when a source has no config; the warning becomes part of the error instead.
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '))
  try {
    const loaded = await loadConfig<Record<string, unknown>>({
      ...base,
      cwd,
      rcFile: false,
      packageJson: false,
      giget: {},
      extend: { extendKey: '__verifyRemote' },
      overrides: { __verifyRemote: [source] },
    })
    const layer = (loaded.layers ?? []).find((l) => l.source !== undefined && l.config && l.configFile && existsSync(l.configFile))
    if (!layer?.configFile) {
      throw new VerifyError('E_CONFIG_LOAD', `no verify.config.* in the downloaded source${warnings.length ? ` (${warnings.join('; ')})` : ''}`)
    }
    return { raw: layer.config, file: layer.configFile }
  } finally {
    console.warn = warn
    await rm(cwd, { recursive: true, force: true })
  }
}
