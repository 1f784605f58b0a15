// The config pipeline, in reading order: discover.ts (where the config is) → load.ts (c12 loads it and every layer it
// extends: layers.ts, under guard.ts) → validate.ts (each layer against schema.ts) → merge.ts (layers into one config)
// → resolve.ts (one protocol, with every default). Every failure is a VerifyConfigError.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import type { ResolvedProtocol } from '../types.js'
import { discoverConfig } from './discover.js'
import { configTimeoutMs, guardLoading } from './guard.js'
import { loadLayers, type Environment } from './load.js'
import { mergeConfigObjects, mergeLayers, type MergedConfig } from './merge.js'
import { resolveMerged, type ProtocolOverrides } from './resolve.js'

export type { Environment } from './load.js'

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
  /**
   * false: the config's transforms kept from earlier loads are used, but none is written (a watching test runner runs
   * again at a change under its roots, node_modules included, where they are kept). Default true.
   */
  writeCaches?: boolean
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

/** Discovers and loads the config and every layer it extends, validated and merged, within the load time limit. */
export async function loadConfigLayers(options: LoadOptions = {}): Promise<LoadedLayers> {
  const env = options.env ?? process.env
  const timeoutMs = configTimeoutMs(env)
  // The file being loaded, for the message when loading ends the wrong way (time limit, process.exit, a stray throw).
  const progress = { file: 'the config' }
  // Validation runs under the guard too: a config object's getters are the config's code.
  return guardLoading({ timeoutMs, current: () => progress.file }, async () => {
    const { layers, rootFile, rootDir, alongside } = await loadLayers(discoverConfig(options), env, progress, options.writeCaches ?? true)
    const shown = relative(process.cwd(), rootFile) || rootFile
    return {
      merged: mergeLayers(layers),
      layers: layers.map(({ label, file, chain }) => ({ label, ...(file ? { file } : {}), chain })),
      configFile: rootFile,
      rootDir,
      source: alongside.length > 0 ? `${shown} merged with ${alongside.join(' and ')}` : shown,
      raw: mergeConfigObjects(...layers.map((layer) => layer.raw).toReversed()),
    }
  })
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
