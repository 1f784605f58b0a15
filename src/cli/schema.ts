// `verify schema [config|evidence|approvals]`: print a JSON Schema generated from the zod schemas.
import { VerifyUsageError } from '../errors.js'
import { parse } from './args.js'
import { ExitCode } from './exit-code.js'
import { SCHEMA_FLAGS } from './flags.js'
import type { CliIO } from './io.js'

const KINDS = ['config', 'evidence', 'approvals'] as const

export async function schemaCommand(argv: string[], io: CliIO): Promise<number> {
  const { positionals } = parse('schema', argv, SCHEMA_FLAGS)
  const kind = positionals[0] ?? 'config'
  if (positionals.length > 1 || !(KINDS as readonly string[]).includes(kind)) {
    throw new VerifyUsageError(`verify schema takes one of: ${KINDS.join(', ')}; got: ${positionals.join(' ')}`)
  }
  const { approvalsJsonSchema, configJsonSchema, evidenceJsonSchema } = await import('../config/json-schema.js')
  const schema = kind === 'config' ? configJsonSchema() : kind === 'evidence' ? evidenceJsonSchema() : approvalsJsonSchema()
  io.stdout(`${JSON.stringify(schema, null, 2)}\n`)
  return ExitCode.approved
}
