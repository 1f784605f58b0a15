// `verify schema [config|evidence]`: print a JSON Schema generated from the zod schemas.
import { VerifyUsageError } from '../errors.js'
import { parse } from './args.js'
import { ExitCode } from './exit-code.js'
import { SCHEMA_FLAGS } from './flags.js'
import type { CliIO } from './io.js'

const KINDS = ['config', 'evidence'] as const

export async function schemaCommand(argv: string[], io: CliIO): Promise<number> {
  const { positionals } = parse('schema', argv, SCHEMA_FLAGS)
  const kind = positionals[0] ?? 'config'
  if (positionals.length > 1 || !(KINDS as readonly string[]).includes(kind)) {
    throw new VerifyUsageError(`verify schema takes one of: ${KINDS.join(', ')}; got: ${positionals.join(' ')}`)
  }
  const { configJsonSchema, evidenceJsonSchema } = await import('../config/json-schema.js')
  io.stdout(`${JSON.stringify(kind === 'config' ? configJsonSchema() : evidenceJsonSchema(), null, 2)}\n`)
  return ExitCode.approved
}
