// Digests that bind evidence to the definition it ran under: a weakened or edited check invalidates its evidence.
import { relative } from 'node:path'
import type { ResolvedCheck, ResolvedProtocol } from '../types.js'
import { canonicalJson, sha256 } from './canonical.js'
import { isCredentialName } from './redact.js'

/** What a check proves: its type, what it runs, how its result is judged and how often it may try. Names and timeouts are left out. */
export function checkDigest(check: ResolvedCheck, protocol: Pick<ResolvedProtocol, 'rootDir'>): string {
  const { rootDir } = protocol
  return sha256(
    canonicalJson({
      evidenceType: check.evidenceType,
      kind: check.kind,
      command: check.command,
      // The package.json scripts the command runs are what it runs. Only when it runs any, so other digests stay as they were.
      ...(check.scripts ? { scripts: check.scripts } : {}),
      run: check.run,
      definedIn: check.definedIn,
      manual: check.manual,
      cwd: relative(rootDir, check.cwd) || '.',
      // Credentials rotate (CI tokens differ per job): only their names are part of the definition.
      env: Object.fromEntries(Object.entries(check.env).map(([name, value]) => [name, isCredentialName(name) ? '(secret)' : value])),
      inputs: check.inputs,
      tests: check.tests,
      expect: check.expect,
      // A check that may fail and try again proves less than one that must pass at once. Only when set, so digests of
      // checks that never retry stay as they were.
      ...(check.retries > 0 ? { retries: check.retries } : {}),
    }),
  )
}

/** The protocol as a contract: its checks, which are required, and strictness. */
export function protocolDigest(protocol: ResolvedProtocol): string {
  return sha256(
    canonicalJson({
      name: protocol.name,
      strictMode: protocol.strictMode,
      // Only when set, so digests of protocols that never name it stay as they were.
      ...(protocol.approvals === 'tty' ? { approvals: 'tty' } : {}),
      checks: protocol.checks.map((check) => ({
        id: check.id,
        required: check.required,
        dependsOn: check.dependsOn,
        digest: checkDigest(check, protocol),
      })),
    }),
  )
}
