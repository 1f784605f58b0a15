// Spawned, not in process: the fixture config reads the secrets from process.env as it loads, as a user's config does.
// The secret-leak matrix (SPEC §8): each check of fixtures/validity-secrets exposes one secret in one form — raw,
// base64 at the three alignments and wrapped at 76 columns, URL-encoded, JSON-escaped, split across two writes, with
// a colour code inside, on stderr, in its command line, in a thrown error, in a function's result, under each secret
// name segment, as a match of a `redact` RegExp with its flags — and no form of it may reach anything verify writes
// or prints: evidence, logs, reporters, `verify check`, `verify list`. Beside it, verify's own paths: approvals
// (`--by`, `--note`) and config-load errors. Every secret has its own variable, so a failure names what leaked where.
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stripAnsi } from '../../src/runner/ansi.js'
import { cleanup, diagnose, fixture, runCli, type CliResult } from '../helpers/cli.js'
import { project, removeProjects, type Project } from '../helpers/project.js'

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
  ...(
    [
      ['seg-pass', 'SEG_DB_PASS'],
      ['seg-pwd', 'SEG_MYSQL_PWD'],
      ['seg-passphrase', 'SEG_GPG_PASSPHRASE'],
      ['seg-jwt', 'SEG_ID_JWT'],
    ] as const
  ).map(([id, name], i) => ({ id, exposure: `prints ${name} (name segment ${name.split('_').at(-1)})`, variable: name, secret: `${TOKEN}-${41 + i}` })),
  ...(
    [
      ['base64-wrapped', 'prints its base64 wrapped at 76 columns, a line break inside it'],
      ['base64-wrapped-split', 'prints its base64 wrapped at 76 columns in two writes, split at the line break'],
      ['colored', 'prints it with a colour code inside it (a terminal shows it whole)'],
    ] as const
  ).map(([id, exposure], i) => ({ id, exposure, variable: variable(id), secret: `${TOKEN}-${51 + i}` })),
  { id: 'redact-multiline', exposure: 'prints a line matched by /^password=.*$/m', secret: 'hunter2-multiline' },
  { id: 'redact-ignore-case', exposure: 'prints a match of /SESSION-[A-Z]+-\\d+/i in lower case', secret: 'session-abc-123456' },
  { id: 'redact-unicode', exposure: 'prints a match of a /…/u pattern with \\p{Lu}', secret: 'Ärger-Ümlaut-2024' },
  { id: 'check-env', exposure: 'prints a secret of its own `env`, which is also in its command', secret: 'c0nfig-h3ld-S3cret-42' },
]

/** Where `text` holds base64 wrapped in lines, the lines joined again. */
const unwrapped = (text: string) => text.replace(/\r?\n/g, '')

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
  // Base64 (either alphabet) at any alignment, also wrapped in lines: decode every run of base64 characters from
  // each of 4 offsets.
  for (const run of [...(text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []), ...(unwrapped(text).match(/[A-Za-z0-9+/_-]{8,}/g) ?? [])]) {
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
/**
 * Every other reporter (verbose, junit, markdown, agent, github-actions and its step summary), verbose with colour as a
 * terminal shows it, `verify check`, `verify list` (text and --json), and an approval's files and output.
 */
let others: Sinks = {}
/** Secrets given to `verify approve` as `--by` and `--note`. */
const APPROVER = { variable: 'APPROVER_API_TOKEN', secret: `${TOKEN}-by` }
const NOTE = { variable: 'NOTE_API_TOKEN', secret: `${TOKEN}-note` }
/** The working folder: PWD is no secret, and masking it would mask every path. */
const WORKDIR = '/home/dev/project-x'

beforeAll(async () => {
  p = project('validity-secrets')
  const env: Record<string, string> = { SHORT_API_TOKEN: SHORT, PWD: WORKDIR, [APPROVER.variable]: APPROVER.secret, [NOTE.variable]: NOTE.secret }
  for (const c of CASES) if (c.variable) env[c.variable] = c.secret
  const evidence = (name: string) => ['--evidence', join(p.outside, name, 'evidence.json')]
  const file = (name: string) => join(p.outside, name)
  // The json reporter beside the default one, to a file: the same JSON it prints on stdout, without a run of its own.
  const [plain, rest, color] = await Promise.all([
    p.spawn('run', [...evidence('default'), '--reporter', 'default', '--reporter', `json=${file('report.json')}`], { env, timeoutMs: 60_000 }),
    p.spawn(
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
      { env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file('step-summary.md') }, timeoutMs: 60_000 },
    ),
    p.spawn('run', [...evidence('color'), '--reporter', 'verbose', '--color'], { env, timeoutMs: 60_000 }),
  ])
  for (const result of [plain, rest, color]) expect(result.code, diagnose(result)).toBe(1)
  // An approval whose --by and --note hold secrets, recorded beside a copy of the default run's evidence.
  mkdirSync(file('approved'))
  cpSync(join(p.outside, 'default', 'evidence.json'), file('approved/evidence.json'))
  const approve = await p.spawn('approve', ['manual-approval', '--by', `ops ${APPROVER.secret}`, '--note', `rotated ${NOTE.secret}`, ...evidence('approved')], {
    env,
    timeoutMs: 60_000,
  })
  expect(approve.code, diagnose(approve)).toBe(0)
  const [check, checkJson, approved, list, listJson] = await Promise.all([
    p.spawn('check', evidence('default'), { env, timeoutMs: 60_000 }),
    p.spawn('check', [...evidence('default'), '--json'], { env, timeoutMs: 60_000 }),
    p.spawn('check', evidence('approved'), { env, timeoutMs: 60_000 }),
    p.spawn('list', [], { env, timeoutMs: 60_000 }),
    p.spawn('list', ['--json'], { env, timeoutMs: 60_000 }),
  ])
  expect(list.code, diagnose(list)).toBe(0)
  core = {
    'evidence.json': readFileSync(join(p.outside, 'default', 'evidence.json'), 'utf8'),
    'logs/*.log': readLogs(join(p.outside, 'default', 'logs')),
    ...output('run (default reporter, json to a file)', plain),
    'json report': readFileSync(file('report.json'), 'utf8'),
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
    'run --reporter verbose --color, as a terminal shows it': stripAnsi(color.stdout),
    ...output('list', list),
    ...output('list --json', listJson),
    ...output('approve', approve),
    'approvals.json': read('approved/approvals.json'),
    'evidence.json (approved)': read('approved/evidence.json'),
    ...output('check (approved)', approved),
  }
}, 180_000)

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
    const wrapped = (
      Buffer.from(`${'x'.repeat(50)}${TOKEN}`)
        .toString('base64')
        .match(/.{1,76}/g) ?? []
    ).join('\n')
    expect(leaks(`a\n${wrapped}\nb`, TOKEN)).toEqual(['base64'])
  })

  it.each(CASES)('$id: a check that $exposure leaks nothing into the evidence, the logs or the output (default, json)', ({ id, secret }) => {
    expect(leaksIn(core, secret)).toEqual([])
    // The secret was really exposed, and masked: the check's evidence shows `***` where it was.
    expect(masked(id)).toContain('***')
  })

  it.each(CASES)('$id: nor into any other reporter, report file or `verify check` output', ({ secret }) => {
    expect(leaksIn(others, secret)).toEqual([])
  })

  it.each([APPROVER, NOTE])('$variable: an approval’s --by and --note leak nothing into approvals.json, the evidence or any output', ({ secret }) => {
    expect(leaksIn({ ...core, ...others }, secret)).toEqual([])
    expect(others['approvals.json']).toContain('***')
  })

  it('PWD (the working folder) is not masked: it is no secret, and masking it would mask every path', () => {
    const evidence = JSON.parse(core['evidence.json'] ?? '{}') as { checks: { id: string; evidence: { output: { text: string } } }[] }
    expect(evidence.checks.find((c) => c.id === 'pwd')?.evidence.output.text).toBe(`token=${WORKDIR}\n`)
  })

  it('a secret shorter than 6 characters is not masked: it would occur by chance and mask ordinary text', () => {
    const evidence = JSON.parse(core['evidence.json'] ?? '{}') as { checks: { id: string; evidence: { output: { text: string } } }[] }
    expect(evidence.checks.find((c) => c.id === 'short')?.evidence.output.text).toBe(`token=${SHORT}\n`)
  })
})

describe('config-load errors: the environment’s secrets are masked before any config is loaded', () => {
  const secret = `${TOKEN}-config`
  it.each(['throws', 'extends'])('a config that %s with a secret in its error', async (mode) => {
    for (const command of ['run', 'list', 'check']) {
      const result = await runCli([command], { cwd: fixture('secrets-config-error'), env: { CONFIG_ERROR_API_TOKEN: secret, SECRETS_ERROR: mode } })
      expect(result.code, diagnose(result)).toBe(2)
      expect(leaksIn(output(command, result), secret)).toEqual([])
      expect(result.stderr).toContain('***')
    }
  })
})
