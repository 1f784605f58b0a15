// Finds and loads the configuration with c12, follows its layers, then validates and resolves it. Every failure is a
// VerifyConfigError.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative, resolve } from 'node:path'
import type { LoadConfigOptions } from 'c12'
import { VerifyError, VerifyConfigError } from '../errors.js'
import type { ResolvedProtocol } from '../types.js'
import { mergeLayers, type MergedConfig } from './compose.js'
import type { PresetContext } from './define.js'
import { collectLayers, type Layer } from './layers.js'
import { mergeConfigObjects } from './merge.js'
import { resolveMerged, type ProtocolOverrides } from './normalize.js'
import { configInFolder, findConfigDir, isFile, PACKAGE_JSON_KEY, projectRootOf, RC_FILE } from './files.js'
import { configTimeoutMs, guardLoading } from './guard.js'
import { errorSummary, EXPECTED_EXPORT } from './messages.js'
import { selfAlias, transformCacheDir } from './jiti-options.js'

/** Environment variables, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>

export interface LoadOptions {
  /** Where to look for the config (default: the process's cwd). */
  cwd?: string
  /** A config file to load instead of discovering one. */
  configFile?: string
  /** The protocol to resolve (default: "default", or the only one). */
  protocol?: string
  overrides?: ProtocolOverrides
  /** The environment: `VERIFY_ENV` / `CI` / `NODE_ENV` pick `$env` overrides; presets read it. Default process.env. */
  env?: Environment
}

/** A layer as `verify list` shows it. */
export interface LayerInfo {
  label: string
  /** Absolute path of the file it came from; absent for a preset given as a value. */
  file?: string
  /** Labels from the project's config down to this layer. */
  chain: string[]
}

/** The configuration with every layer loaded and merged, before a protocol is picked. */
export interface LoadedLayers {
  merged: MergedConfig
  layers: LayerInfo[]
  /** Absolute path of the config file (or package.json / rc file it came from). */
  configFile: string
  /** The config's folder: where checks run and `.verify/` lives. */
  rootDir: string
  /** The config file relative to the process's cwd, for messages. */
  source: string
  /** Every layer's config object merged (the project's own wins), before validation. */
  raw: Record<string, unknown>
}

export interface LoadedConfig {
  protocol: ResolvedProtocol
  /** Absolute path of the config file (or package.json / rc file it came from). */
  configFile: string
  /** The config's folder: where checks run and `.verify/` lives. */
  rootDir: string
  /** Names of every protocol the config declares (after every layer). */
  protocolNames: string[]
  /** Every layer's config object merged (the project's own wins), before validation. */
  raw: Record<string, unknown>
  /** Every layer, lowest first; the project's config is the last. */
  layers: LayerInfo[]
  /** Check id → labels of the layers that set its fields, lowest first. */
  origins: Record<string, string[]>
}

/** The c12 environment name: `VERIFY_ENV`, else `ci` under CI, else `NODE_ENV`. */
export function envName(env: Environment): string | false {
  if (env.VERIFY_ENV) return env.VERIFY_ENV
  if (env.CI && env.CI !== 'false' && env.CI !== '0') return 'ci'
  return env.NODE_ENV || false
}

function c12Options(env: Environment, context: PresetContext): LoadConfigOptions<Record<string, unknown>> {
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
    jitiOptions: { fsCache: transformCacheDir(context.rootDir, env), moduleCache: false, alias: selfAlias(context.rootDir) },
  }
}

/** Loads the project's config and every layer it extends, and merges them, within the load time limit. */
export async function loadConfigLayers(options: LoadOptions = {}): Promise<LoadedLayers> {
  const timeoutMs = configTimeoutMs(options.env ?? process.env)
  // The file being loaded, for the message when loading ends the wrong way (time limit, process.exit, a stray throw).
  const progress = { file: 'the config' }
  return guardLoading({ timeoutMs, current: () => progress.file }, () => loadLayers(options, progress))
}

async function loadLayers(options: LoadOptions, progress: { file: string }): Promise<LoadedLayers> {
  const env = options.env ?? process.env
  const cwd = resolve(options.cwd ?? process.cwd())
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `--cwd ${cwd} is not a folder`)
  }
  const configFile = options.configFile ? givenConfigFile(resolve(cwd, options.configFile)) : undefined
  // c12 looks for .verifyrc and package.json in the project's folder, which is above `.config/`; without --config the
  // folder is found from cwd upward (a subfolder of the project finds the project's config).
  const found = configFile ? undefined : findConfigDir(cwd)
  const baseDir = configFile ? projectRootOf(configFile) : (found?.dir ?? cwd)
  // Presets see the folder of the config: discovery finds it in `cwd` (c12 does not search upwards).
  const context: PresetContext = { rootDir: baseDir, ...(configFile ? { configFile } : {}), env }
  const { loadConfig } = await import('c12')
  const base = c12Options(env, context)
  const rootOptions: LoadConfigOptions<Record<string, unknown>> = {
    ...base,
    cwd: baseDir,
    ...(configFile ? { configFile } : {}),
    rcFile: RC_FILE,
    packageJson: PACKAGE_JSON_KEY,
  }
  const discovered = configFile ?? configInFolder(baseDir)
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
  if (!file && Object.keys(rootRaw).length === 0) {
    throw new VerifyConfigError(
      'E_CONFIG_NOT_FOUND',
      `No verify config found (looked for verify.config.ts and the other verify.config.* files, .config/verify.*, .verifyrc, and "verify" in package.json in ${searchedIn(found?.searched ?? [cwd])}). Run \`npx verify init\` to write one.`,
    )
  }
  const rootFile = file ?? configInFolder(baseDir) ?? resolve(baseDir, 'package.json')
  const rootDir = projectRootOf(rootFile)
  context.rootDir = rootDir
  context.configFile = rootFile
  const rootLabel = relative(rootDir, rootFile) || basename(rootFile)
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
  const source = relative(process.cwd(), rootFile) || rootFile
  const raw = mergeConfigObjects(...layers.map((layer) => layer.raw).toReversed())
  return {
    merged: mergeLayers(layers),
    layers: layers.map(({ label, file: f, chain }) => ({ label, ...(f ? { file: f } : {}), chain })),
    configFile: rootFile,
    rootDir,
    source,
    raw,
  }
}

/** `/a/b/c`, `/a/b/c and /a/b`, `/a/b/c, /a/b and /a`. */
function searchedIn(dirs: readonly string[]): string {
  return dirs.length <= 1 ? (dirs[0] ?? '') : `${dirs.slice(0, -1).join(', ')} and ${dirs.at(-1)}`
}

/** `--config` as given: a file. A folder is a mistake worth a sentence, not c12's "Cannot find module". */
function givenConfigFile(path: string): string {
  if (!existsSync(path)) throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `No config file at ${path}`)
  if (!statSync(path).isDirectory()) return path
  const inside = configInFolder(path)
  throw new VerifyConfigError(
    'E_CONFIG_NOT_FOUND',
    `The config file ${path} is a folder: ${inside ? `give the file (--config ${inside}), or` : 'it holds no verify.config.* file; give a file, or'} use --cwd ${path} to find the config in it`,
  )
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

/** Loads, validates and resolves the configuration (SPEC §3). Throws VerifyConfigError. */
export async function loadVerifyConfig(options: LoadOptions = {}): Promise<LoadedConfig> {
  const { merged, layers, configFile, rootDir, source, raw } = await loadConfigLayers(options)
  const { protocol, origins } = resolveMerged(merged, { rootDir, source, protocol: options.protocol, overrides: options.overrides })
  // A function's source text is not all of it: the constants and helpers of the files that define it are too.
  const defining = functionSources(layers)
  for (const check of protocol.checks) if (check.kind === 'function') check.definedIn = defining
  protocol.source = {
    cwd: resolve(options.cwd ?? process.cwd()),
    ...(options.configFile ? { configFile: resolve(options.cwd ?? process.cwd(), options.configFile) } : {}),
    ...(options.protocol !== undefined ? { protocol: options.protocol } : {}),
  }
  return { protocol, configFile, rootDir, protocolNames: Object.keys(merged.protocols), raw, layers, origins }
}

/**
 * sha256 of the content of every layer file (the config and its presets): what a function check's closure is made
 * of. Contents only, in a fixed order: the same files loaded from another folder (`--protocol-from`) give the same.
 */
function functionSources(layers: readonly LayerInfo[]): string {
  const contents = layers
    .map((layer) => layer.file)
    .filter((f): f is string => f !== undefined)
    .map((file) => {
      try {
        return createHash('sha256').update(readFileSync(file)).digest('hex')
      } catch {
        return 'unreadable'
      }
    })
    .toSorted()
  return `sha256:${createHash('sha256').update(contents.join('\n')).digest('hex')}`
}
