// Which reporters a run uses: `--reporter name[=file]` flags, or the default.
import { resolve } from 'node:path'
import type { CliIO } from '../cli/io.js'
import { VerifyUsageError } from '../errors.js'
import { isReporterName, REPORTERS } from './index.js'
import type { Reporter } from './types.js'

export function useColor(io: CliIO, flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false
  if (io.env.FORCE_COLOR !== undefined) return io.env.FORCE_COLOR !== '0'
  return io.isTTY
}

/** Builds the reporters named on the command line (`name` or `name=<file>`); `default` when none is named. */
export async function createReporters(specs: readonly string[] | undefined, io: CliIO, color: boolean): Promise<Reporter[]> {
  const ci = Boolean(io.env.CI) && io.env.CI !== 'false'
  return (specs ?? ['default']).map((spec) => {
    const [name = '', file] = spec.split(/=(.*)/s)
    if (!isReporterName(name)) {
      throw new VerifyUsageError(`Unknown reporter "${name}". Reporters: ${Object.keys(REPORTERS).join(', ')}.`)
    }
    return REPORTERS[name]({
      write: io.stdout,
      ...(file ? { file: resolve(io.cwd, file) } : {}),
      color,
      isTTY: io.isTTY,
      ci,
      cwd: io.cwd,
      ...(io.rows ? { rows: io.rows } : {}),
    })
  })
}
