// A check's evidence record as verify writes it, for the tests that judge records without running anything.
import type { Evidence } from '../../src/types.js'

/** A passing build record that ended at `timestamp`, with `patch` applied: input for the acceptance rule's unit tests. */
export function buildRecord(timestamp: string, patch: Partial<Evidence> = {}): Evidence {
  return {
    type: 'build_success',
    passed: true,
    command: 'npm run build',
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 10,
    timestamp,
    fingerprint: 'sha256:workspace',
    checkDigest: 'sha256:check',
    output: { text: '', bytes: 0, truncated: false, sha256: '0'.repeat(64) },
    error: null,
    metadata: {},
    ...patch,
  }
}
