// The summary and verdict of one run, whole or one shard's share (SPEC §6.2, §12): what its evidence file records and
// the verdict its job answers with. The CLI, the reporters and the emergency write on a second signal all ask here.
import type { CheckResult, EvidenceFile, Summary, Verdict } from '../types.js'
import { summarize, type SummaryOptions } from './summary.js'

/** One shard's share of the protocol (`--shard i/n`). */
export interface Share {
  index: number
  total: number
  checks: ReadonlySet<string>
}

export interface RunSummaryOptions extends Pick<SummaryOptions, 'interrupted' | 'logDir'> {
  /** The run was one shard's share. */
  shard?: Share | undefined
  /** Warnings said before the summary's own (the run's circumstances) and after them (what was found later). */
  warnings?: { lead?: readonly string[]; trail?: readonly string[] }
}

export interface RunSummary {
  /** What the evidence file records. */
  summary: Summary
  /** What the run answers with (its exit code): a shard's, for its own share. */
  verdict: Verdict
  /** A shard's record of its share, for the evidence file's `shard` field. */
  shard?: NonNullable<EvidenceFile['shard']>
}

/** The summary of a share's own checks: its issues are its own (other shards' checks are not this job's to fix). */
export function shareSummary(results: readonly CheckResult[], strictMode: boolean, checks: ReadonlySet<string>, options: SummaryOptions = {}): Summary {
  return summarize(
    results.filter((r) => checks.has(r.id)),
    strictMode,
    options,
  )
}

/**
 * A whole run: the summary of its results. A shard: the file speaks for the protocol and a share never approves it,
 * while its issues and advice are its share's; the job answers with its share's verdict (an empty share, with more
 * shards than groups of checks, has nothing to fail).
 */
export function summarizeRun(results: readonly CheckResult[], strictMode: boolean, options: RunSummaryOptions = {}): RunSummary {
  const { shard } = options
  const base = { interrupted: options.interrupted, logDir: options.logDir }
  const summary = summarize(results, strictMode, { ...base, partial: shard !== undefined })
  summary.warnings = [...(options.warnings?.lead ?? []), ...summary.warnings, ...(options.warnings?.trail ?? [])]
  if (!shard) return { summary, verdict: summary.verdict }
  const merge = "`verify merge` the shards' evidence for the protocol's verdict."
  if (shard.checks.size === 0) {
    // More shards than groups of checks that run together: this one has nothing to run, and nothing to fail.
    const said = `Shard ${shard.index}/${shard.total} has none of the ${results.length} checks (more shards than groups of checks that run together): nothing to run. ${merge}`
    return {
      summary: { ...summary, issues: [], recommendations: [], warnings: [said, ...summary.warnings] },
      verdict: 'approved',
      shard: { index: shard.index, total: shard.total, checks: [], verdict: 'approved' },
    }
  }
  const own = shareSummary(results, strictMode, shard.checks, base)
  const said = `Shard ${shard.index}/${shard.total} ran ${shard.checks.size} of ${results.length} checks: verdict ${own.verdict} for its share. ${merge}`
  return {
    summary: { ...summary, issues: own.issues, recommendations: own.recommendations, warnings: [said, ...summary.warnings] },
    verdict: own.verdict,
    shard: { index: shard.index, total: shard.total, checks: [...shard.checks], verdict: own.verdict },
  }
}
