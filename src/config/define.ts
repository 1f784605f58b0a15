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

/** In `dependsOn`: every other required command or function check that does not itself use `'*'`. */
export type AllChecks = '*'

/** One check of a protocol. `Ids` are the check ids it may depend on, so `dependsOn` is checked by the compiler. */
export type CheckDefinition<Ids extends string = string> = Omit<CheckSchemaInput, 'dependsOn' | 'evidenceType' | 'command' | 'inputs'> & {
  evidenceType?: EvidenceType
  /** A shell command, or an argv array run without a shell. */
  command?: string | readonly string[]
  /** Ids of checks that must pass before this one starts; `'*'` stands for every other required check. */
  dependsOn?: readonly (Ids | AllChecks)[]
  /** Globs (relative to the config's folder) this check's evidence is bound to, instead of the whole workspace. */
  inputs?: readonly string[]
}

/** A check: a shell command, a definition, or `false` to remove one inherited from a preset. */
export type CheckEntry<Ids extends string = string> = string | CheckDefinition<Ids> | false

/** What a preset written as a function receives when a config extends it. */
export interface PresetContext {
  /** The folder of the project's config file: where its checks run and its package.json is. */
  rootDir: string
  /** The project's config file, when there is one. */
  configFile?: string
  /** The environment `verify` runs in. */
  env: Readonly<Record<string, string | undefined>>
}

/** Options of a protocol, without its checks. */
export type ProtocolOptions = Omit<ProtocolSchemaInput, 'checks' | 'extends'>

/** A config or protocol a layer may be: what `extends` accepts as a value, or a preset module exports. */
export type LayerValue = ProtocolDefinition<string, string> | ConfigDefinition
/** A preset: a layer, or a function of the project that returns one (read at load time, e.g. its package.json). */
export type Preset = LayerValue | ((context: PresetContext) => LayerValue | Promise<LayerValue>)

/**
 * Layers under this config, lowest first: a relative path (file or folder), an npm package (a preset), a remote
 * source (`gh:org/repo`, `https://…`, only with `allowRemote: true`), or a preset imported as a value.
 */
export type Extends = string | readonly (string | Preset)[]

/** Fields of a config file about its layers (SPEC §3.3). */
export interface LayerOptions {
  extends?: Extends
  /** Lets `extends` fetch remote sources (`gh:`, `https:`, …) through giget. Only the project's own config may set it. */
  allowRemote?: boolean
}

type EnvOverride = Partial<ProtocolOptions> & { checks?: Record<string, CheckEntry>; protocols?: Record<string, unknown> }

/** c12's environment-specific overrides, applied when `VERIFY_ENV` (or `ci` under CI, or `NODE_ENV`) names them. */
export interface EnvOverrides {
  $env?: Record<string, EnvOverride>
  $development?: EnvOverride
  $production?: EnvOverride
  $test?: EnvOverride
}

/** Check ids a layer brings. A path or package name could bring any id, so it allows every string. */
type PresetIds<P> = P extends string
  ? string
  : P extends (context: PresetContext) => infer R
    ? PresetIds<Awaited<R>>
    : P extends { protocols: infer Ps }
      ? { [K in keyof Ps]: Ps[K] extends { checks: infer C } ? keyof C & string : never }[keyof Ps]
      : P extends { checks: infer C }
        ? keyof C & string
        : never

/** Check ids inherited through `extends`. */
export type InheritedIds<E> = [E] extends [never] ? never : E extends readonly (infer X)[] ? PresetIds<X> : PresetIds<E>

export interface ProtocolDefinition<Ids extends string = string, Inherited extends string = never> extends ProtocolOptions, LayerOptions, EnvOverrides {
  checks: { [Id in Ids]: CheckEntry<NoInfer<Ids> | Inherited> }
}

/** A protocol inside `defineConfig`: `extends` names another protocol of the same config. */
export type NamedProtocol = ProtocolOptions & { extends?: string; checks: Record<string, CheckEntry> }

type SharedOptions = Omit<ProtocolOptions, 'name'>

export interface ConfigDefinition<Ps extends Record<string, NamedProtocol> = Record<string, NamedProtocol>> extends SharedOptions, LayerOptions, EnvOverrides {
  protocols: Ps
}

type Depth = [0, 0, 0, 0, 0, 0, 0, 0]

/** Ids of the protocols a protocol extends by name, transitively (bounded, so a cycle is not endless). */
type ParentIds<Ps, N extends keyof Ps, D extends unknown[] = []> = D['length'] extends Depth['length']
  ? never
  : Ps[N] extends { extends: infer P extends keyof Ps }
    ? (keyof Ps[P]['checks' & keyof Ps[P]] & string) | ParentIds<Ps, P, [...D, 0]>
    : never

type OwnIds<Ps, N extends keyof Ps> = keyof Ps[N]['checks' & keyof Ps[N]] & string

/** What each protocol of a config must satisfy: `extends` names another protocol; `dependsOn` names a check it has. */
type CheckedProtocols<Ps, X extends string> = {
  [N in keyof Ps]: {
    extends?: Exclude<keyof Ps, N>
    checks: { [Id in OwnIds<Ps, N>]: CheckEntry<OwnIds<Ps, N> | ParentIds<Ps, N> | X> }
  }
}

/** Declares one protocol. Check ids stay literal types, so a wrong id in `dependsOn` is a type error. */
export function defineProtocol<const Ids extends string, const E extends Extends = never>(
  protocol: ProtocolDefinition<Ids, InheritedIds<E>> & { extends?: E },
): ProtocolDefinition<Ids, InheritedIds<E>> {
  return protocol
}

/**
 * Declares several named protocols that share options; `verify run <name>` picks one. Each protocol's `dependsOn`
 * is checked against its own checks, those of the protocols it extends, and those of typed `extends` presets.
 */
export function defineConfig<const Ps extends Record<string, NamedProtocol> & CheckedProtocols<Ps, InheritedIds<E>>, const E extends Extends = never>(
  config: Omit<ConfigDefinition<Ps>, 'protocols' | 'extends'> & { extends?: E; protocols: Ps },
): ConfigDefinition<Ps> {
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
