// The `github-actions` reporter: each check's output in a log fold, annotations for failing checks (within
// GitHub's per-step limits), and the markdown summary appended to $GITHUB_STEP_SUMMARY (under 1 MiB).
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, statSync } from 'node:fs'
import { formatDuration } from '../duration.js'
import type { CheckResult } from '../types.js'
import { excerpt, howItEnded, stripControl } from './excerpt.js'
import { renderMarkdownSummary } from './markdown-summary.js'
import type { ReporterOptions } from './options.js'
import { ownShare } from './scope.js'
import { FAILING, statusText } from './status.js'
import type { Reporter, RunOutcome } from './types.js'
import { ANNOTATIONS_PER_STEP, STEP_SUMMARY_LIMIT, workflowCommand } from './workflow-commands.js'

// Less room than this left in the step summary: write none rather than a stub.
const MIN_SUMMARY_BYTES = 2048

/**
 * Raw output between `::stop-commands::<token>` and `::<token>::`: the runner ignores every workflow command
 * in it, so a check that prints `::error::` or `::set-output` cannot speak for verify.
 */
export function foldOutput(title: string, text: string): string {
  if (text === '') return `${workflowCommand('group', title)}(no output)\n::endgroup::\n`
  let token = randomBytes(16).toString('hex')
  while (text.includes(token)) token = randomBytes(16).toString('hex')
  const body = text.endsWith('\n') ? text : `${text}\n`
  return `${workflowCommand('group', title)}::stop-commands::${token}\n${body}::${token}::\n::endgroup::\n`
}

function annotationMessage(result: CheckResult): string {
  const lines = [`${statusText(result.status)}: ${howItEnded(result)}`]
  if (result.evidence?.command) lines.push(`$ ${result.evidence.command}`)
  const { matches, tail } = excerpt(result.evidence?.output.text ?? '', { maxLines: 10, maxMatches: 6, width: 300 })
  lines.push(...matches, ...(matches.length && tail.length ? ['…'] : []), ...tail)
  return lines.join('\n')
}

/** The annotations for a finished run, at most ANNOTATIONS_PER_STEP of each kind, and a notice for the rest. */
export function renderAnnotations(run: RunOutcome): string {
  // A shard annotates its own share: the others' checks are not its failures.
  const outcome = ownShare(run)
  const strict = outcome.checklist.protocol.strictMode
  const failing = outcome.checklist.results.filter((r) => FAILING.has(r.status))
  const errors = failing.filter((r) => r.required || strict)
  const warnings = failing.filter((r) => !(r.required || strict))
  const out: string[] = []
  const left: string[] = []
  const emit = (kind: 'error' | 'warning', results: CheckResult[]) => {
    for (const result of results.slice(0, ANNOTATIONS_PER_STEP)) out.push(workflowCommand(kind, annotationMessage(result), { title: result.name }))
    if (results.length > ANNOTATIONS_PER_STEP) left.push(`${results.length - ANNOTATIONS_PER_STEP} ${kind === 'error' ? 'failing' : 'optional failing'} checks`)
  }
  emit('error', errors)
  emit('warning', warnings)
  const { verdict, issues } = outcome.summary
  if (verdict === 'incomplete' && errors.length === 0) {
    out.push(workflowCommand('error', issues.slice(0, 10).join('\n') || 'No check ran', { title: 'verify: incomplete' }))
  }
  if (left.length) {
    const message = `${left.join(' and ')} are not annotated: GitHub shows at most ${ANNOTATIONS_PER_STEP} annotations of a kind per step. The job summary and the log folds above list every check.`
    out.push(workflowCommand('notice', message, { title: 'verify: more annotations left out' }))
  }
  return out.join('')
}

/** Appends the summary to `file`, keeping the whole file under GitHub's limit; says why when it cannot. */
function appendSummary(outcome: RunOutcome, file: string, options: ReporterOptions): string | null {
  try {
    const existing = existsSync(file) ? statSync(file).size : 0
    const room = STEP_SUMMARY_LIMIT - 1 - existing - (existing > 0 ? 1 : 0)
    if (room < MIN_SUMMARY_BYTES) return `The step summary already holds ${existing} bytes: no room for verify's summary under GitHub's 1 MiB limit.`
    const text = renderMarkdownSummary(outcome, { maxBytes: room, limitLabel: "GitHub's 1 MiB limit", cwd: options.cwd })
    appendFileSync(file, existing > 0 ? `\n${text}` : text)
    return null
  } catch (error) {
    return `Could not write the step summary to ${file}: ${error instanceof Error ? error.message : String(error)}`
  }
}

export function createGitHubActionsReporter(options: ReporterOptions): Reporter {
  return {
    onCheckEnd(_check, result) {
      const evidence = result.evidence
      // Checks that never ran (skipped, cancelled, manual) have no output to fold.
      if (!evidence || evidence.reused) return
      const title = `${result.id} · ${statusText(result.status)} · ${formatDuration(evidence.durationMs)}`
      // The full output, control characters and all, is in the log file; the job log gets readable text.
      options.write(foldOutput(title, stripControl(evidence.output.text)))
    },
    onRunEnd(outcome) {
      options.write(renderAnnotations(outcome))
      const file = options.file ?? options.env.GITHUB_STEP_SUMMARY
      if (!file) return
      const problem = appendSummary(outcome, file, options)
      if (problem) options.write(workflowCommand('warning', problem, { title: 'verify: step summary' }))
    },
  }
}
