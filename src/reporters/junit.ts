// The `junit` reporter: one <testcase> per check, for GitLab, Jenkins, Azure and any CI that reads JUnit XML.
import { hostname } from 'node:os'
import type { CheckResult } from '../types.js'
import { howItEnded, outputTail } from './excerpt.js'
import type { ReporterOptions } from './options.js'
import { ownShare } from './scope.js'
import { FAILING, flakyNote, reusedNote, statusText } from './status.js'
import { writeReport } from './output.js'
import { guardXml } from './safe-text.js'
import type { Reporter, RunOutcome } from './types.js'

const TAIL_LINES = 100

// XML 1.0 allows tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD and U+10000–U+10FFFF; with the `u` flag a lone
// surrogate is a code point of its own, so it matches too.
const ILLEGAL_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu

/**
 * Escapes text content; characters XML cannot carry at all are dropped. Printed on stdout in a CI log, no line of it
 * reads as a workflow command (see guardXml): a parser reads the same text.
 */
export function xmlText(text: string): string {
  return guardXml(text.replace(ILLEGAL_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'))
}

/** Escapes an attribute value (double-quoted); line breaks and tabs are kept as character references. */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;')
}

const attrs = (values: Record<string, string | number>) =>
  Object.entries(values)
    .map(([key, value]) => ` ${key}="${xmlAttr(String(value))}"`)
    .join('')

const seconds = (ms: number) => (ms / 1000).toFixed(3)

function testcase(result: CheckResult, classname: string): string {
  const name = result.name === result.id ? result.id : `${result.name} (${result.id})`
  const head = `    <testcase${attrs({ classname, name, time: seconds(result.evidence?.durationMs ?? 0) })}`
  const reused = reusedNote(result)
  const flaky = flakyNote(result)
  const note = reused ? `${reused}: evidence of an earlier run, still valid` : flaky
  if (result.status === 'passed') return note ? `${head}>\n      <system-out>${xmlText(note)}</system-out>\n    </testcase>` : `${head}/>`
  if (FAILING.has(result.status)) {
    const message = `${howItEnded(result)}${result.required ? '' : ' (optional check)'}`
    const command = result.evidence?.command ? `$ ${result.evidence.command}\n` : ''
    const body = xmlText(command + outputTail(result, TAIL_LINES, 2000).join('\n'))
    return `${head}>\n      <failure${attrs({ message, type: result.status })}>${body}</failure>\n    </testcase>`
  }
  const message = `${statusText(result.status)}${result.reason ? `: ${result.reason}` : ''}`
  return `${head}>\n      <skipped${attrs({ message })}/>\n    </testcase>`
}

/** The run as a JUnit XML document: well-formed whatever the checks printed. */
export function renderJUnit(run: RunOutcome): string {
  // A shard's report lists its own checks: the shards' reports together list each check once.
  const outcome = ownShare(run)
  const { checklist, summary } = outcome
  const shard = outcome.file.shard
  const results = checklist.results
  const name = checklist.protocol.name
  const failures = results.filter((r) => FAILING.has(r.status)).length
  const skipped = results.filter((r) => r.status !== 'passed' && !FAILING.has(r.status)).length
  const ms = Date.parse(checklist.finishedAt ?? '') - Date.parse(checklist.startedAt ?? '')
  const time = seconds(Number.isFinite(ms) ? ms : results.reduce((sum, r) => sum + (r.evidence?.durationMs ?? 0), 0))
  const counts = { tests: results.length, failures, errors: 0, skipped, time }
  const timestamp = checklist.startedAt ?? new Date().toISOString()
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'verify', ...counts })}>`,
    `  <testsuite${attrs({ name, ...counts, timestamp, hostname: hostname() })}>`,
    '    <properties>',
    `      <property${attrs({ name: 'verdict', value: summary.verdict })}/>`,
    `      <property${attrs({ name: 'runId', value: checklist.runId })}/>`,
    ...(shard ? [`      <property${attrs({ name: 'shard', value: `${shard.index}/${shard.total}` })}/>`] : []),
    '    </properties>',
    ...results.map((r) => testcase(r, name)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

export function createJUnitReporter(options: ReporterOptions): Reporter {
  return {
    onRunEnd(outcome) {
      writeReport(options, renderJUnit(outcome))
    },
  }
}
