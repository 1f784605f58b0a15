// Finds and loads the configuration with c12, then validates and resolves it. Every failure is a VerifyConfigError.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, relative, resolve } from 'node:path'
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
  // Parsers put the location on the first line ("Unexpected token (3:5)"); the rest is a code frame.
  return (text.split('\n')[0] ?? text).trim()
}

function hasVerifyKey(packageJson: string): boolean {
  try {
    const data = JSON.parse(readFileSync(packageJson, 'utf8')) as Record<string, unknown>
    return data.verify !== undefined
  } catch {
    return false
  }
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
    const where = configFile ?? CONFIG_NAMES.map((name) => resolve(cwd, name)).find((file) => existsSync(file)) ?? cwd
    throw new VerifyConfigError('E_CONFIG_LOAD', `Could not load ${where}: ${message(error)}`, [], { cause: error })
  }
  // c12 names rc and package.json layers relative to the folder it searched; a package.json counts only with "verify".
  const searched = configFile ? dirname(configFile) : cwd
  const layers: { configFile?: string | undefined; cwd?: string | undefined }[] = [{ configFile: loaded.configFile, cwd: searched }, ...(loaded.layers ?? [])]
  const candidates = layers.flatMap((layer) => (layer.configFile ? [resolve(layer.cwd ?? searched, layer.configFile)] : []))
  const found = candidates.find((file) => existsSync(file) && statSync(file).isFile() && (basename(file) !== 'package.json' || hasVerifyKey(file)))
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
