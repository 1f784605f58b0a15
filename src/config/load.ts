// Finds and loads the configuration with c12, then validates and resolves it. Every failure is a VerifyConfigError.
import { existsSync, statSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { VerifyConfigError } from '../errors.js'
import type { ResolvedProtocol } from '../types.js'
import { protocolNames, resolveProtocol, type ProtocolOverrides } from './normalize.js'

export interface LoadOptions {
  /** Where to look for the config (default: the process's cwd). */
  cwd?: string
  /** A config file to load instead of discovering one. */
  configFile?: string
  /** The protocol to resolve (default: "default", or the only one). */
  protocol?: string
  overrides?: ProtocolOverrides
}

export interface LoadedConfig {
  protocol: ResolvedProtocol
  /** Absolute path of the config file (or package.json / rc file it came from). */
  configFile: string
  /** The config's folder: where checks run and `.verify/` lives. */
  rootDir: string
  /** Names of every protocol the config declares. */
  protocolNames: string[]
  /** The merged raw config, before validation. */
  raw: Record<string, unknown>
}

const CONFIG_NAMES = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs', 'json'].map((ext) => `verify.config.${ext}`)

function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.split('\n')[0] ?? text
}

/** Loads the raw config object with c12. */
export async function loadRawConfig(options: LoadOptions = {}): Promise<{ raw: Record<string, unknown>; configFile: string; rootDir: string }> {
  const cwd = resolve(options.cwd ?? process.cwd())
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `--cwd ${cwd} is not a folder`)
  }
  let configFile: string | undefined
  if (options.configFile) {
    configFile = resolve(cwd, options.configFile)
    if (!existsSync(configFile)) throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `No config file at ${configFile}`)
  }
  const { loadConfig } = await import('c12')
  let loaded
  try {
    loaded = await loadConfig<Record<string, unknown>>({
      name: 'verify',
      cwd: configFile ? dirname(configFile) : cwd,
      ...(configFile ? { configFile } : {}),
      rcFile: '.verifyrc',
      packageJson: 'verify',
      globalRc: false,
      dotenv: false,
      giget: false,
      envName: process.env.VERIFY_ENV ?? (process.env.CI ? 'ci' : (process.env.NODE_ENV ?? false)),
      omit$Keys: true,
    })
  } catch (error) {
    const where = configFile ?? cwd
    throw new VerifyConfigError('E_CONFIG_LOAD', `Could not load the config in ${where}: ${message(error)}`, [], { cause: error })
  }
  const found = [loaded.configFile, ...(loaded.layers ?? []).map((layer) => layer.configFile)].find(
    (file): file is string => typeof file === 'string' && existsSync(file) && statSync(file).isFile(),
  )
  const raw = loaded.config ?? {}
  if (!found && Object.keys(raw).length === 0) {
    throw new VerifyConfigError(
      'E_CONFIG_NOT_FOUND',
      `No verify config in ${cwd} (looked for ${CONFIG_NAMES[0]} and the other verify.config.* files, .verifyrc, and "verify" in package.json). Run \`npx verify init\` to write one.`,
    )
  }
  const file = found ?? resolve(cwd, 'package.json')
  // c12 consumes a top-level `extends` as its layers; what is left of it is not part of the protocol.
  delete raw.extends
  return { raw, configFile: file, rootDir: dirname(file) }
}

/** Loads, validates and resolves the configuration (SPEC §3). Throws VerifyConfigError. */
export async function loadVerifyConfig(options: LoadOptions = {}): Promise<LoadedConfig> {
  const { raw, configFile, rootDir } = await loadRawConfig(options)
  const source = relative(process.cwd(), configFile) || configFile
  const protocol = resolveProtocol(raw, { rootDir, source, protocol: options.protocol, overrides: options.overrides })
  return { protocol, configFile, rootDir, protocolNames: protocolNames(raw, source), raw }
}
