// Where a protocol's evidence lives and how it is sealed: the part of a command's context that needs no terminal,
// shared by the CLI and the test-runner integrations.
import { basename, join, resolve } from 'node:path'
import { loadVerifyConfig, type Environment, type LoadedConfig } from '../config/index.js'
import type { ProtocolOverrides } from '../config/resolve.js'
import { loadProtocolFromRef } from '../config/protocol-from.js'
import { approvalsPathOf, defaultEvidencePath, logDirOf } from '../defaults.js'
import { protocolRedactor, type Redactor } from './redact.js'
import { SIGNING_KEY_ENV } from './sign.js'

export interface EvidenceSessionOptions {
  /** The folder paths are resolved from. */
  cwd: string
  /** The environment secrets and the signing key come from. */
  env: Environment
  /** The environment the config is loaded in (`$env`, presets); default `process.env`. */
  configEnv?: Environment
  /** `--cwd`: where to look for the config, relative to `cwd`. */
  configDir?: string | undefined
  /** `--config`: a config file, relative to `cwd`. */
  configFile?: string | undefined
  /** `--evidence`: the evidence file, relative to `cwd`. */
  evidence?: string | undefined
  protocol?: string | undefined
  /** `--protocol-from <ref>`: the protocol as a trusted git ref defines it, not as the working tree does. */
  protocolFrom?: string | undefined
  overrides?: ProtocolOverrides
  /** false: nothing written to the caches as the config loads (LoadOptions.writeCaches). */
  writeCaches?: boolean
}

export interface EvidenceSession {
  loaded: LoadedConfig
  evidencePath: string
  approvalsPath: string
  logDir: string
  redact: Redactor
  signingKey: string | undefined
}

/** Loads the protocol and works out its evidence file, approvals, logs, secret mask and signing key. */
export async function openEvidenceSession(options: EvidenceSessionOptions): Promise<EvidenceSession> {
  const { cwd, env } = options
  const load = {
    cwd: resolve(cwd, options.configDir ?? '.'),
    ...(options.configFile ? { configFile: resolve(cwd, options.configFile) } : {}),
    ...(options.protocol ? { protocol: options.protocol } : {}),
    overrides: options.overrides ?? {},
    ...(options.configEnv ? { env: options.configEnv } : {}),
    ...(options.writeCaches === false ? { writeCaches: false } : {}),
  }
  const loaded = options.protocolFrom === undefined ? await loadVerifyConfig(load) : await loadProtocolFromRef(options.protocolFrom, load)
  // `--evidence out/` names a folder: the file goes into it under the default name, never as a file named `out`.
  const evidencePath = options.evidence
    ? /[\\/]$/.test(options.evidence)
      ? join(resolve(cwd, options.evidence), basename(defaultEvidencePath(loaded.rootDir)))
      : resolve(cwd, options.evidence)
    : defaultEvidencePath(loaded.rootDir)
  return {
    loaded,
    evidencePath,
    approvalsPath: approvalsPathOf(evidencePath),
    logDir: logDirOf(evidencePath),
    redact: protocolRedactor(env, [loaded.protocol]),
    signingKey: env[SIGNING_KEY_ENV] || undefined,
  }
}
