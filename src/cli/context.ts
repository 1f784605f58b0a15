// What every command that reads or writes evidence needs: the resolved protocol, the paths, the secrets to mask.
import type { ProtocolOverrides } from '../config/resolve.js'
import type { Redactor } from '../evidence/redact.js'
import { openEvidenceSession, type EvidenceSession } from '../evidence/session.js'
import type { CliIO } from './io.js'
import { safeIO } from './output.js'

export type CommandContext = EvidenceSession

export async function commandContext(
  io: CliIO,
  values: { evidence?: string | undefined; config?: string | undefined; cwd?: string | undefined; 'protocol-from'?: string | undefined },
  protocol: string | undefined,
  overrides: ProtocolOverrides = {},
): Promise<CommandContext> {
  return openEvidenceSession({
    cwd: io.cwd,
    env: io.env,
    configDir: values.cwd,
    configFile: values.config,
    evidence: values.evidence,
    protocol,
    protocolFrom: values['protocol-from'],
    overrides,
  })
}

/** The IO with every printed byte masked with `redact` and defused (see output.ts). */
export function maskedIO(io: CliIO, redact: Redactor): CliIO {
  return safeIO(io, redact)
}
