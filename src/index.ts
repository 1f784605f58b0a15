// The public API of verify-protocol: what a config, a preset, a reporter or a library caller uses. The engine's
// plumbing (fingerprints, the store, the summary's parts) stays inside; the CLI is the way to run, check and merge.
// Library code never prints and never exits: it returns values.

// The DSL (verify.config.ts, presets).
export { defineCheck, defineConfig, defineProtocol, DEFAULT_EVIDENCE_TYPE, STANDARD_CHECKS, STANDARD_EVIDENCE_TYPES } from './config/define.js'
export type {
  AllChecks,
  CheckDefinition,
  CheckEntry,
  ConfigDefinition,
  EnvOverrides,
  EvidenceType,
  Extends,
  InheritedIds,
  LayerOptions,
  LayerValue,
  NamedProtocol,
  Preset,
  PresetContext,
  ProtocolDefinition,
  ProtocolOptions,
  StandardCheck,
  StandardEvidenceType,
} from './config/define.js'
export type { Duration } from './duration.js'

// Loading a config as the CLI does (docs/configuration.md, "Library use").
export { loadConfigLayers, loadVerifyConfig } from './config/index.js'
export type { LayerInfo, LoadedConfig, LoadedLayers, LoadOptions } from './config/index.js'
export { resolveMerged, resolveProtocol } from './config/resolve.js'
export type { ProtocolOverrides, ResolvedWithOrigins, ResolveOptions } from './config/resolve.js'

// The seed's entry points (SPEC §3.4): build a protocol, run it, judge evidence, summarise.
export { createProtocol, runSingleCheck, runVerification } from './api.js'
export type { CheckWithId, RunSingleCheckOptions } from './api.js'
export { createChecklist } from './runner/schedule.js'
export type { RunOptions } from './runner/schedule.js'
export { checkEvidence } from './verdict/check-evidence.js'
export type { EvidenceContext, EvidenceValidity } from './verdict/check-evidence.js'
export { generateSummary } from './verdict/summary.js'

// The schemas of a config file, of the evidence file (SPEC §5) and of approvals.json: zod, and as JSON Schema (what
// `verify schema` prints). The evidence types (EvidenceFile, CheckResult, Summary …) are inferred from them.
export { approvalsJsonSchema, configFileSchema, configJsonSchema, evidenceJsonSchema } from './config/json-schema.js'
export { evidenceFileSchema } from './evidence/schema.js'
export { approvalsFileSchema } from './evidence/approvals.js'
export type { Approval, ApprovalsFile } from './evidence/approvals.js'

// Errors, by class and code.
export { VerifyConfigError, VerifyError, VerifyUsageError } from './errors.js'
export type { VerifyErrorCode } from './errors.js'

// The reporter interface, and the shapes a run produces.
export type { Reporter, RunOutcome } from './reporters/types.js'
export type * from './types.js'
