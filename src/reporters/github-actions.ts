// The `github-actions` reporter: each check's output in a log fold, annotations for failing checks (within
// GitHub's per-step limits), and the markdown summary appended to $GITHUB_STEP_SUMMARY (under 1 MiB).
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { formatDuration } from '../duration.js'
import type { CheckResult } from '../types.js'
import { isBlocking } from '../verdict/verdict.js'
import { failingTestLines, failureExcerpt, howItEnded, moreTestsLine, stripControl, type FailureExcerpt } from './excerpt.js'
import { renderMarkdownSummary } from './markdown-summary.js'
import type { ReporterOptions } from './options.js'
import { ownShare } from './scope.js'
import { FAILING, statusText } from './status.js'
import type { Reporter, RunOutcome } from './types.js'
import { plainLine } from './safe-text.js'
import { ANNOTATIONS_PER_STEP, readWorkflowCommand, STEP_SUMMARY_LIMIT, workflowCommand } from './workflow-commands.js'

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

/**
 * A line of output as an annotation shows it: a tool's own workflow command (`::error file=a.ts,line=3::x%0Ay`) is
 * neither executed by the fold it was printed in nor escaped a second time here, but read: `a.ts:3: x y`.
 */
function readable(line: string): string {
  const command = readWorkflowCommand(line)
  if (!command) return line
  const { file, line: at, title } = command.properties
  const where = file ? `${file}${at ? `:${at}` : ''}: ` : ''
  return `${where}${title ? `${title}: ` : ''}${command.message.replace(/\s*[\r\n]+\s*/g, ' ')}`
}

function annotationMessage(result: CheckResult, found: FailureExcerpt): string {
  const lines = [`${statusText(result.status)}: ${howItEnded(result)}`]
  if (result.evidence?.command) lines.push(`$ ${result.evidence.command}`)
  for (const test of found.tests) lines.push(...failingTestLines(test, 300).map((line, i) => (i === 0 ? `✗ ${line}` : `  ${line}`)))
  lines.push(...moreTestsLine(found))
  const { matches, tail } = found
  lines.push(...[...matches, ...(matches.length && tail.length ? ['…'] : []), ...tail].map(readable))
  return lines.join('\n')
}

export interface AnnotationOptions {
  /** The repository's root (GITHUB_WORKSPACE): annotation paths are relative to it. */
  workspace?: string
}

/**
 * `file` and `line` of the first failing test that names its file (from the report, else the output), else of the
 * first `::error file=…` a tool printed; only for a file inside the workspace.
 */
function location(result: CheckResult, found: FailureExcerpt, cwd: string, workspace: string): Record<string, string> {
  const test = found.tests.find((t) => t.file)
  const printed = (result.evidence?.output.text ?? '')
    .split('\n', 20_000)
    .map((l) => readWorkflowCommand(plainLine(l)))
    .find((c) => c?.name === 'error' && c.properties.file)
  const file = test?.file ?? printed?.properties.file
  if (!file) return {}
  const path = relative(workspace, resolve(cwd, plainLine(file)))
  if (path === '' || path.startsWith('..') || isAbsolute(path)) return {}
  const line = test ? test.line : Number(printed?.properties.line)
  return { file: path.split(sep).join('/'), ...(line && Number.isInteger(line) && line > 0 ? { line: String(line) } : {}) }
}

/** The annotations for a finished run, at most ANNOTATIONS_PER_STEP of each kind, and a notice for the rest. */
export function renderAnnotations(run: RunOutcome, options: AnnotationOptions = {}): string {
  // A shard annotates its own share: the others' checks are not its failures.
  const outcome = ownShare(run)
  const strict = outcome.checklist.protocol.strictMode
  const failing = outcome.checklist.results.filter((r) => FAILING.has(r.status))
  const errors = failing.filter((r) => isBlocking(r, strict))
  const warnings = failing.filter((r) => !isBlocking(r, strict))
  const out: string[] = []
  const left: string[] = []
  const emit = (kind: 'error' | 'warning', results: CheckResult[]) => {
    for (const result of results.slice(0, ANNOTATIONS_PER_STEP)) {
      const found = failureExcerpt(result, { maxLines: 10, maxMatches: 6, maxTests: 3, width: 300 })
      const cwd = outcome.checklist.protocol.checks.find((c) => c.id === result.id)?.cwd ?? outcome.checklist.protocol.rootDir
      const where = location(result, found, cwd, options.workspace ?? outcome.checklist.protocol.rootDir)
      out.push(workflowCommand(kind, annotationMessage(result, found), { ...where, title: result.name }))
    }
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
    const info = existsSync(file) ? statSync(file) : null
    // Opening a FIFO for appending blocks until something reads it: at the end of a run, a hang no signal ends.
    if (info && !info.isFile()) return `The step summary ${file} is not a regular file: verify's summary was not written.`
    const existing = info ? info.size : 0
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
  // Folds and annotations are workflow commands by design: the one reporter that writes past the output's guard.
  const command = options.writeControl ?? options.write
  return {
    onCheckEnd(_check, result) {
      const evidence = result.evidence
      // Checks that never ran (skipped, cancelled, manual) have no output to fold.
      if (!evidence || evidence.reused) return
      const title = `${result.id} · ${statusText(result.status)} · ${formatDuration(evidence.durationMs)}`
      // The full output, control characters and all, is in the log file; the job log gets readable text.
      command(foldOutput(title, stripControl(evidence.output.text)))
    },
    onRunEnd(outcome) {
      command(renderAnnotations(outcome, { workspace: options.env.GITHUB_WORKSPACE || options.cwd }))
      const file = options.file ?? options.env.GITHUB_STEP_SUMMARY
      if (!file) return
      const problem = appendSummary(outcome, file, options)
      if (problem) command(workflowCommand('warning', problem, { title: 'verify: step summary' }))
    },
  }
}
