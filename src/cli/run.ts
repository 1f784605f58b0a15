// `verify run [protocol]`: plan → execute → finalise → report, each in its own module under run/. The lock taken by
// the plan and the supervision of the process are released on every way out.
import type { CliIO } from './io.js'
import { executeRun, supervise } from './run/execute.js'
import { finaliseRun } from './run/finalise.js'
import { planRun, type RunExtras } from './run/plan.js'
import { reportRun } from './run/report.js'

export type { RunExtras } from './run/plan.js'

export async function runCommand(argv: string[], rawIO: CliIO, extras: RunExtras = {}): Promise<number> {
  const plan = await planRun(argv, rawIO, extras)
  const supervision = supervise(plan, rawIO, extras)
  try {
    const runWarnings = await executeRun(plan, supervision, rawIO)
    const finalised = await finaliseRun(plan, supervision, runWarnings)
    return await reportRun(plan, finalised)
  } finally {
    supervision.end()
    plan.lock.release()
  }
}
