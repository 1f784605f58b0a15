// The secret-leak matrix (SPEC §8): each check of fixtures/validity-secrets exposes one secret in one form — raw,
// base64 at the three alignments, URL-encoded, JSON-escaped, split across two writes, on stderr, in its command line,
// in a thrown error, in a function's result — and no form of it may reach anything verify writes or prints.
// Every secret has its own variable, so a failure names the form that leaked and where.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, type CliResult } from '../e2e/helpers.js'
import { project, removeProjects, type Project } from './helpers.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

interface Case {
  id: string
  /** What the check does with the secret. */
  exposure: string
  secret: string
  variable?: string
}

const TOKEN = 's3cr3t-V4lue/with+chars'
const PASSWORD = 'db"pa\\ss/w0rd+'
const variable = (id: string, kind = 'API_TOKEN') => `${id.toUpperCase().replaceAll('-', '_')}_${kind}`

const tokenCases: [id: string, exposure: string][] = [
  ['raw', 'prints it raw'],
  ['base64-0', 'prints its base64 (0 bytes before it)'],
  ['base64-1', 'prints its base64 (1 byte before it)'],
  ['base64-2', 'prints its base64 (2 bytes before it)'],
  ['url', 'prints it URL-encoded in a query string'],
  ['json', 'prints it JSON-escaped'],
  ['json-slashes', 'prints it JSON-escaped with `\\/` (PHP json_encode)'],
  ['split', 'prints it in two writes 300 ms apart'],
  ['split-long-line', 'prints it in two writes 300 ms apart at the end of a 9 KB line'],
  ['stderr', 'prints it on stderr'],
  ['argv-command', 'has it in its argv command'],
  ['shell-command', 'has it in its shell command'],
  ['throws', 'throws an error whose message holds it (function check)'],
  ['returns', 'returns it as output and metadata (function check)'],
]

// Distinct values (a two-digit suffix), so that finding one names the case.
const CASES: Case[] = [
  ...tokenCases.map(([id, exposure], i) => ({ id, exposure, variable: variable(id), secret: `${TOKEN}-${String(i + 1).padStart(2, '0')}` })),
  ...(['db-raw', 'db-json', 'db-base64-1'] as const).map((id, i) => ({
    id,
    exposure: `prints a DB_PASSWORD with quotes and backslashes (${id.slice(3)})`,
    variable: variable(id, 'DB_PASSWORD'),
    secret: `${PASSWORD}${31 + i}`,
  })),
  { id: 'redact-string', exposure: 'prints a match of a string `redact` pattern', secret: 'build-01.internal.example' },
  { id: 'redact-regexp', exposure: 'prints a match of a RegExp `redact` pattern', secret: 'tok_a1b2c3d4e5' },
]

const SHORT = 'ab12c'

/** Every form of `secret` found in `text`: raw, URL-encoded, JSON-escaped (also inside JSON, or with `\/`), base64. */
function leaks(text: string, secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1)
  const forms: Record<string, string> = {
    raw: secret,
    'URL-encoded': encodeURIComponent(secret),
    'JSON-escaped': json,
    'JSON-escaped twice': JSON.stringify(json).slice(1, -1),
    'JSON-escaped with \\/': json.replaceAll('/', '\\/'),
    'JSON-escaped with \\/, in JSON': JSON.stringify(json.replaceAll('/', '\\/')).slice(1, -1),
  }
  // A form identical to an earlier one (no character needed escaping) is reported once, under the earlier name.
  const distinct = Object.entries(forms).filter(([, form], i, all) => all.findIndex(([, other]) => other === form) === i)
  const found = distinct.filter(([, form]) => text.includes(form)).map(([name]) => name)
  // Base64 (either alphabet) at any alignment: decode every run of base64 characters from each of 4 offsets.
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    for (let shift = 0; shift < 4; shift++) {
      if (Buffer.from(run.slice(shift), 'base64').includes(secret)) {
        found.push('base64')
        break
      }
    }
  }
  return [...new Set(found)]
}

type Sinks = Record<string, string>

function readLogs(dir: string): string {
  return readdirSync(dir)
    .map((name) => `== ${name}\n${readFileSync(join(dir, name), 'utf8')}`)
    .join('\n')
}

function output(name: string, result: CliResult): Sinks {
  return { [`${name} stdout`]: result.stdout, [`${name} stderr`]: result.stderr }
}

let p: Project
/** What the spec names: the evidence, the logs, and the CLI's output with the default and the json reporter. */
let core: Sinks = {}
/** Every other reporter (verbose, junit, markdown, agent, github-actions and its step summary) and `verify check`. */
let others: Sinks = {}

beforeAll(async () => {
  p = project('validity-secrets')
  const env: Record<string, string> = { SHORT_API_TOKEN: SHORT }
  for (const c of CASES) if (c.variable) env[c.variable] = c.secret
  const evidence = (name: string) => ['--evidence', join(p.outside, name, 'evidence.json')]
  const file = (name: string) => join(p.outside, name)
  const [plain, json, rest] = await Promise.all([
    p.verify('run', evidence('default'), { env }),
    p.verify('run', [...evidence('json'), '--reporter', 'json'], { env }),
    p.verify(
      'run',
      [
        ...evidence('others'),
        '--reporter',
        'verbose',
        '--reporter',
        `junit=${file('report.xml')}`,
        '--reporter',
        `markdown=${file('report.md')}`,
        '--reporter',
        `agent=${file('agent.txt')}`,
      ],
      { env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file('step-summary.md') } },
    ),
  ])
  for (const result of [plain, json, rest]) expect(result.code, diagnose(result)).toBe(1)
  const [check, checkJson] = await Promise.all([
    p.verify('check', evidence('default'), { env }),
    p.verify('check', [...evidence('default'), '--json'], { env }),
  ])
  core = {
    'evidence.json': readFileSync(join(p.outside, 'default', 'evidence.json'), 'utf8'),
    'logs/*.log': readLogs(join(p.outside, 'default', 'logs')),
    ...output('run (default reporter)', plain),
    ...output('run --reporter json', json),
  }
  const read = (name: string) => {
    try {
      return readFileSync(file(name), 'utf8')
    } catch {
      return ''
    }
  }
  others = {
    ...output('run (verbose, junit, markdown, agent, github-actions)', rest),
    'junit report': read('report.xml'),
    'markdown report': read('report.md'),
    'agent report': read('agent.txt'),
    'GitHub step summary': read('step-summary.md'),
    'evidence.json (that run)': readFileSync(join(p.outside, 'others', 'evidence.json'), 'utf8'),
    'logs/*.log (that run)': readLogs(join(p.outside, 'others', 'logs')),
    ...output('check', check),
    ...output('check --json', checkJson),
  }
}, 60_000)

/** What the evidence of the default run shows of a check: its command, output and error. */
function masked(id: string): string {
  type Stored = { id: string; evidence: { command: string | null; output: { text: string }; error: string | null } | null }
  const evidence = (JSON.parse(core['evidence.json'] ?? '{}').checks as Stored[]).find((check) => check.id === id)?.evidence
  return `${evidence?.command ?? ''} ${evidence?.output.text ?? ''} ${evidence?.error ?? ''}`
}

function leaksIn(sinks: Sinks, secret: string): string[] {
  return Object.entries(sinks).flatMap(([sink, text]) => leaks(text, secret).map((form) => `${form} in ${sink}`))
}

describe(`secret-leak matrix: ${CASES.length} cases`, () => {
  it('the matrix is real: every case ran, and the detector finds each secret in the text it was made from', () => {
    const ids = JSON.parse(core['evidence.json'] ?? '{}').checks.map((c: { id: string }) => c.id)
    for (const c of CASES) expect(ids).toContain(c.id)
    for (const c of CASES) expect(leaks(`x ${Buffer.from(`ab${c.secret}`).toString('base64')} y`, c.secret)).toEqual(['base64'])
    for (const c of CASES) expect(leaks(`q=${encodeURIComponent(c.secret)}`, c.secret)).not.toEqual([])
    for (const c of CASES) expect(leaks(JSON.stringify({ c: c.secret }), c.secret)).not.toEqual([])
  })

  it.each(CASES)('$id: a check that $exposure leaks nothing into the evidence, the logs or the output (default, json)', ({ id, secret }) => {
    expect(leaksIn(core, secret)).toEqual([])
    // The secret was really exposed, and masked: the check's evidence shows `***` where it was.
    expect(masked(id)).toContain('***')
  })

  it.each(CASES)('$id: nor into any other reporter, report file or `verify check` output', ({ secret }) => {
    expect(leaksIn(others, secret)).toEqual([])
  })

  it('a secret shorter than 6 characters is not masked: it would occur by chance and mask ordinary text', () => {
    const evidence = JSON.parse(core['evidence.json'] ?? '{}') as { checks: { id: string; evidence: { output: { text: string } } }[] }
    expect(evidence.checks.find((c) => c.id === 'short')?.evidence.output.text).toBe(`token=${SHORT}\n`)
  })
})
