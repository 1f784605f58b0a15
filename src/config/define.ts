// The typed DSL: identity functions whose only job is typing. All validation happens at load time.
import type { CheckSchemaInput, ProtocolSchemaInput } from './schema.js'

export const STANDARD_EVIDENCE_TYPES = [
  'build_success',
  'test_pass',
  'lint_clean',
  'functionality_verified',
  'architect_approval',
  'todo_complete',
  'error_free',
] as const

export type StandardEvidenceType = (typeof STANDARD_EVIDENCE_TYPES)[number]

/** Any standard type, or a custom one such as `security_verified`. */
export type EvidenceType = StandardEvidenceType | (string & {})

/** One check of a protocol. `Ids` are the check ids of the protocol, so `dependsOn` is checked by the compiler. */
export type CheckDefinition<Ids extends string = string> = Omit<
  CheckSchemaInput,
  'dependsOn' | 'evidenceType' | 'command' | 'inputs'
> & {
  evidenceType?: EvidenceType
  /** A shell command, or an argv array run without a shell. */
  command?: string | readonly string[]
  /** Ids of checks that must pass before this one starts. */
  dependsOn?: readonly Ids[]
  /** Globs (relative to the config's folder) this check's evidence is bound to, instead of the whole workspace. */
  inputs?: readonly string[]
}

/** A check: a shell command, a definition, or `false` to remove one inherited from a preset. */
export type CheckEntry<Ids extends string = string> = string | CheckDefinition<Ids> | false

export type ProtocolOptions = Omit<ProtocolSchemaInput, 'checks'>

export interface ProtocolDefinition<Ids extends string = string> extends ProtocolOptions {
  checks: { [Id in Ids]: CheckEntry<NoInfer<Ids>> }
}

export interface ConfigDefinition<Names extends string = string> extends Omit<ProtocolOptions, 'extends' | 'name'> {
  protocols: { [Name in Names]: ProtocolDefinition & { extends?: NoInfer<Names> } }
}

/** Declares one protocol. Check ids stay literal types, so a wrong id in `dependsOn` is a type error. */
export function defineProtocol<const Ids extends string>(protocol: ProtocolDefinition<Ids>): ProtocolDefinition<Ids> {
  return protocol
}

/** Declares several named protocols that share options; `verify run <name>` picks one. */
export function defineConfig<const Names extends string>(config: ConfigDefinition<Names>): ConfigDefinition<Names> {
  return config
}

/** Declares one reusable check (for presets and shared modules). */
export function defineCheck<const C extends CheckDefinition>(check: C): C {
  return check
}

/** A standard check with its id, for `createProtocol`'s array form and for spreading into a keyed check. */
export interface StandardCheck {
  readonly id: string
  readonly name: string
  readonly evidenceType: StandardEvidenceType
  readonly required: boolean
  readonly command?: string
  readonly manual?: string
}

/** The seven standard checks. Command checks use the package's npm scripts; the rest need a person. */
export const STANDARD_CHECKS = {
  BUILD: { id: 'build', name: 'Build', evidenceType: 'build_success', required: true, command: 'npm run build' },
  TEST: { id: 'test', name: 'Tests', evidenceType: 'test_pass', required: true, command: 'npm test' },
  LINT: { id: 'lint', name: 'Lint', evidenceType: 'lint_clean', required: true, command: 'npm run lint' },
  FUNCTIONALITY: {
    id: 'functionality',
    name: 'Functionality verified',
    evidenceType: 'functionality_verified',
    required: true,
    manual: 'The change was exercised by hand and behaves as intended',
  },
  ARCHITECT: {
    id: 'architect',
    name: 'Architect approval',
    evidenceType: 'architect_approval',
    required: true,
    manual: 'An architect has reviewed and approved the design',
  },
  TODO: {
    id: 'todo',
    name: 'No open TODOs',
    evidenceType: 'todo_complete',
    required: true,
    manual: 'Every TODO of the task is done',
  },
  ERROR_FREE: {
    id: 'error-free',
    name: 'Error free',
    evidenceType: 'error_free',
    required: true,
    manual: 'No errors were seen while exercising the change',
  },
} as const satisfies Record<string, StandardCheck>

/** Evidence types implied by a standard check id when `evidenceType` is omitted. */
export const DEFAULT_EVIDENCE_TYPES: Readonly<Record<string, StandardEvidenceType>> = {
  build: 'build_success',
  test: 'test_pass',
  tests: 'test_pass',
  lint: 'lint_clean',
  functionality: 'functionality_verified',
  architect: 'architect_approval',
  todo: 'todo_complete',
  'error-free': 'error_free',
  error_free: 'error_free',
}

export const DEFAULT_EVIDENCE_TYPE = 'command_success'
