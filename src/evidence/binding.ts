// What a check's evidence is bound to (SPEC §7): the fingerprint of the files its `inputs` match when it names some,
// else of the whole workspace. The runner records it, the acceptance rule and approvals compare against it.
import type { ResolvedCheck, WorkspaceInfo } from '../types.js'
import { inputsFingerprint } from './fingerprint.js'

/** The fingerprint a check's evidence carries for the workspace as it is now. */
export async function checkFingerprint(check: Pick<ResolvedCheck, 'inputs'>, rootDir: string, workspace: WorkspaceInfo): Promise<string> {
  return check.inputs ? inputsFingerprint(rootDir, check.inputs, workspace) : workspace.fingerprint
}
