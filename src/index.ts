// The public API of verify-protocol. Library code never prints and never exits: it returns values.
export {
  defineCheck,
  defineConfig,
  defineProtocol,
  DEFAULT_EVIDENCE_TYPE,
  STANDARD_CHECKS,
  STANDARD_EVIDENCE_TYPES,
} from './config/define.js'
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
export { loadConfigLayers, loadVerifyConfig } from './config/index.js'
export type { LayerInfo, LoadedConfig, LoadedLayers, LoadOptions } from './config/index.js'
export { resolveLayers, resolveMerged, resolveProtocol } from './config/resolve.js'
export type { ProtocolOverrides, ResolvedWithOrigins, ResolveOptions } from './config/resolve.js'
export type { MergedConfig } from './config/merge.js'
export type { LayerInput } from './config/validate.js'
export { createProtocol, runSingleCheck, runVerification } from './api.js'
export type { CheckWithId, RunSingleCheckOptions } from './api.js'
export { createChecklist } from './runner/schedule.js'
export type { RunOptions } from './runner/schedule.js'
export { checkEvidence } from './verdict/check-evidence.js'
export type { EvidenceContext, EvidenceValidity } from './verdict/check-evidence.js'
export { generateSummary, summarize } from './verdict/summary.js'
export { computeVerdict } from './verdict/verdict.js'
export { workspaceFingerprint } from './evidence/fingerprint.js'
export { buildEvidenceFile } from './evidence/record.js'
export { readEvidenceFile, writeEvidenceFile } from './evidence/store.js'
export { parseDuration, formatDuration } from './duration.js'
export type { Duration } from './duration.js'
export { VerifyConfigError, VerifyError, VerifyUsageError } from './errors.js'
export type { VerifyErrorCode } from './errors.js'
export type { Reporter, RunOutcome } from './reporters/types.js'
export type * from './types.js'
