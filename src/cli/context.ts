// What every command that reads or writes evidence needs: the resolved protocol, the paths, the secrets to mask.
import { dirname, join, resolve } from 'node:path'
import { loadVerifyConfig, type LoadedConfig } from '../config/load.js'
import { loadProtocolFromRef } from '../config/protocol-from.js'
import type { ProtocolOverrides } from '../config/normalize.js'
import { createRedactor, secretValues, type Redactor } from '../evidence/redact.js'
import { sealEvidence, SIGNING_KEY_ENV } from '../evidence/sign.js'
import { writeEvidenceMakingRoom } from '../evidence/room.js'
import type { EvidenceFile } from '../types.js'
import type { CliIO } from './io.js'
import { safeIO } from './output.js'

/** Flags shared by every command that loads the config and finds the evidence. */
export const CONFIG_OPTIONS = {
  evidence: { type: 'string' },
  config: { type: 'string' },
  cwd: { type: 'string' },
} as const

export interface CommandContext {
  loaded: LoadedConfig
  evidencePath: string
  approvalsPath: string
  logDir: string
  redact: Redactor
  signingKey: string | undefined
}

export async function commandContext(
  io: CliIO,
  values: { evidence?: string | undefined; config?: string | undefined; cwd?: string | undefined; 'protocol-from'?: string | undefined },
  protocol: string | undefined,
  overrides: ProtocolOverrides = {},
): Promise<CommandContext> {
  const options = {
    cwd: resolve(io.cwd, values.cwd ?? '.'),
    ...(values.config ? { configFile: resolve(io.cwd, values.config) } : {}),
    ...(protocol ? { protocol } : {}),
    overrides,
  }
  // `--protocol-from <ref>`: the protocol as a trusted ref defines it, not as the change under test does.
  const from = values['protocol-from']
  const loaded = from === undefined ? await loadVerifyConfig(options) : await loadProtocolFromRef(from, options)
  const evidencePath = values.evidence ? resolve(io.cwd, values.evidence) : join(loaded.rootDir, '.verify', 'evidence.json')
  const signingKey = io.env[SIGNING_KEY_ENV] || undefined
  return {
    loaded,
    evidencePath,
    approvalsPath: join(dirname(evidencePath), 'approvals.json'),
    logDir: join(dirname(evidencePath), 'logs'),
    // Secrets given to checks through their own `env` are masked like those of the environment.
    redact: createRedactor(secretValues(Object.assign({}, io.env, ...loaded.protocol.checks.map((c) => c.env))), loaded.protocol.redact),
    signingKey,
  }
}

/** Masks secrets everywhere in the file, signs it when a key is set, and writes it atomically (this run's logs give way on a full disk). */
export async function saveEvidence(context: CommandContext, file: EvidenceFile): Promise<EvidenceFile> {
  return writeEvidenceMakingRoom(context.evidencePath, file, (f) => sealEvidence(f, context.redact, context.signingKey), context.logDir)
}

/** The IO with every printed byte masked with `redact` and defused (see output.ts). */
export function maskedIO(io: CliIO, redact: Redactor): CliIO {
  return safeIO(io, redact)
}
