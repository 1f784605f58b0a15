// `verify run`, step 4 — report: the evidence is saved (masked, signed with a key, atomically), the reporters print
// the run, the reports' own files are recorded as verify's outputs, and the verdict becomes the exit code.
import { describeOutputs } from '../../evidence/outputs.js'
import { EvidenceNotWrittenError } from '../../evidence/room.js'
import { saveEvidence } from '../../evidence/save.js'
import { exitCodeOfSignal, exitCodeOfVerdict } from '../exit-code.js'
import { copiesOf, type Finalised } from './finalise.js'
import type { RunPlan } from './plan.js'

function ignoreUnwritten(error: unknown): void {
  if (!(error instanceof EvidenceNotWrittenError)) throw error
}

/** Saves and reports the run; returns the exit code. Results that could not be saved are still shown, then the error. */
export async function reportRun(plan: RunPlan, finalised: Finalised): Promise<number> {
  const { context, checklist } = plan
  const { record, summary } = finalised
  const file = await saveEvidence(context, record).catch((error: unknown) => {
    if (error instanceof EvidenceNotWrittenError) return error
    throw error
  })
  await plan.reporter.onRunEnd({
    checklist,
    summary,
    file: file instanceof EvidenceNotWrittenError ? file.file : file,
    evidencePath: context.evidencePath,
    interrupted: finalised.interrupted,
    ...(file instanceof EvidenceNotWrittenError ? { notSaved: file.message } : {}),
  })
  if (file instanceof EvidenceNotWrittenError) throw file
  // The other reports exist now: the evidence records what they hold, so later commands leave exactly that out.
  // Not saved, the file just lacks them: they then count as code, which errs on the safe side.
  if (plan.reports.some((report) => !report.copy)) {
    const writes = plan.reports.map((report) => report.file)
    const outputs = await describeOutputs(context.evidencePath, [...plan.workspace.carried, ...writes], copiesOf(plan))
    await saveEvidence(context, { ...record, workspace: { ...record.workspace, outputs } }).catch(ignoreUnwritten)
  }
  // The exit code says what the evidence says: a signal that came once the record was made (while it was saved or
  // printed) found the run over.
  return finalised.interrupted ? exitCodeOfSignal(finalised.interrupted) : exitCodeOfVerdict(finalised.verdict)
}
