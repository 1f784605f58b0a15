// `verify check` on evidence it cannot trust (SPEC §6.2, issue 3): a missing, empty, corrupt, foreign, oversize or
// misplaced evidence file is `incomplete` — exit 3 with a one-line reason — never a crash or a stack trace; and
// `verify run --reuse` over such a file simply runs everything.
import { mkdirSync, openSync, closeSync, ftruncateSync, statSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, STACK_LINE } from '../helpers/cli.js'
import { project, removeProjects, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const MIB = 1024 * 1024

let p: Project
let valid: Record<string, unknown>

beforeAll(async () => {
  p = project('validity-corrupt')
  const run = await p.verify('run')
  expect(run.code, diagnose(run)).toBe(0)
  valid = p.evidence() as unknown as Record<string, unknown>
})

const corruptions: [what: string, make: (file: string) => void, reason: RegExp][] = [
  ['missing', () => {}, /no evidence/],
  ['empty', (file) => writeFileSync(file, ''), /empty/],
  ['only whitespace', (file) => writeFileSync(file, '  \n\n'), /empty/],
  ['not JSON', (file) => writeFileSync(file, '{"schemaVersion": 1, "checks": ['), /not valid JSON/],
  ['binary noise', (file) => writeFileSync(file, Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80, 0x81])), /not valid JSON/],
  ['a JSON array', (file) => writeFileSync(file, '[]'), /not a JSON object/],
  ['JSON null', (file) => writeFileSync(file, 'null'), /not a JSON object/],
  ['a JSON string', (file) => writeFileSync(file, '"approved"'), /not a JSON object/],
  ['schemaVersion 2', (file) => writeFileSync(file, JSON.stringify({ ...valid, schemaVersion: 2 })), /schemaVersion 2/],
  ['schemaVersion "1"', (file) => writeFileSync(file, JSON.stringify({ ...valid, schemaVersion: '1' })), /schemaVersion "1"/],
  ['no schemaVersion', (file) => writeFileSync(file, JSON.stringify({ ...valid, schemaVersion: undefined })), /schemaVersion/],
  ['checks not a list', (file) => writeFileSync(file, JSON.stringify({ ...valid, checks: { ok: {} } })), /checks/],
  ['a folder at the path', (file) => mkdirSync(file), /folder/],
  [
    'a sparse file over 64 MiB',
    (file) => {
      const fd = openSync(file, 'w')
      ftruncateSync(fd, 64 * MIB + 1)
      closeSync(fd)
    },
    /64 MiB/,
  ],
]

describe.concurrent('verify check on an unusable evidence file', { timeout: 90_000 }, () => {
  it.each(corruptions)('%s: exit 3, incomplete, with a one-line reason', async (what, make, reason) => {
    const file = p.path(`.verify/${what.replace(/\W+/g, '-')}/evidence.json`)
    mkdirSync(p.path(`.verify/${what.replace(/\W+/g, '-')}`), { recursive: true })
    make(file)
    if (what.startsWith('a sparse')) expect(statSync(file).blocks * 512).toBeLessThan(MIB)
    const result = await p.verify('check', ['--evidence', file])
    expect(result.code, diagnose(result)).toBe(3)
    expect(result.stderr).toBe('')
    const lines = result.stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/INCOMPLETE/)
    expect(lines[0]).toMatch(reason)
    expect(result.stdout).not.toMatch(STACK_LINE)
    // --json says the same, as JSON.
    const json = await p.verify('check', ['--evidence', file, '--json'])
    expect(json.code).toBe(3)
    expect(JSON.parse(json.stdout)).toEqual({ verdict: 'incomplete', reason: expect.stringMatching(reason) })
  })
})

const garbage: [what: string, checks: unknown[]][] = [
  ['evidence that is a string', [{ id: 'ok', status: 'passed', evidence: 'trust me' }]],
  ['evidence with fields of the wrong types', [{ id: 'ok', status: 'passed', evidence: { type: 5, passed: 'yes', timestamp: 7, output: null } }]],
  [
    'evidence without a fingerprint',
    [{ id: 'ok', status: 'passed', evidence: { type: 'command_success', passed: true, timestamp: new Date().toISOString(), output: { text: '' } } }],
  ],
  ['entries that are not objects', [null, 7, 'ok', [], { id: 42 }]],
]

describe.concurrent('verify check on an evidence file with garbage entries', { timeout: 90_000 }, () => {
  // The file is checked against the evidence schema as it is read: garbage inside is refused as a whole, in one line.
  it.each(garbage)('%s: the file is refused (exit 3) in one line, and nothing crashes', async (what, checks) => {
    const file = p.path(`.verify/${what.replace(/\W+/g, '-')}/evidence.json`)
    mkdirSync(p.path(`.verify/${what.replace(/\W+/g, '-')}`), { recursive: true })
    writeFileSync(file, JSON.stringify({ ...valid, checks }))
    const result = await p.verify('check', ['--evidence', file, '--json'])
    expect(result.code, diagnose(result)).toBe(3)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({ verdict: 'incomplete', reason: expect.stringMatching(/is not a valid evidence file \(checks/) })
    expect(result.stdout).not.toMatch(STACK_LINE)
  })

  it('a damaged workspace or signature block is refused, not crashed on', async () => {
    const file = p.path('.verify/damaged-blocks/evidence.json')
    mkdirSync(p.path('.verify/damaged-blocks'), { recursive: true })
    writeFileSync(file, JSON.stringify({ ...valid, workspace: 'nowhere', protocol: null, signature: 'forged' }))
    const result = await p.verify('check', ['--evidence', file, '--require-signature'], { env: { VERIFY_SIGNING_KEY: 'some-signing-key' } })
    expect(result.stderr).toBe('')
    expect(result.stdout).not.toMatch(STACK_LINE)
    // Not an evidence file at all: nothing in it counts, signed or not.
    expect(result.code, diagnose(result)).toBe(3)
    expect(result.stdout).toMatch(/is not a valid evidence file/)
  })
})

describe('verify run --reuse over an unusable evidence file', { timeout: 90_000 }, () => {
  it('runs every check and writes good evidence', async () => {
    const q = project('validity-corrupt')
    q.write('.verify/evidence.json', '{"schemaVersion": 1, "checks": [')
    const run = await q.verify('run', ['--reuse'])
    expect(run.code, diagnose(run)).toBe(0)
    expect(q.executions()).toEqual(['ok'])
    expect(q.check('ok').evidence?.reused).toBeUndefined()
    expect((await q.verify('check')).code).toBe(0)
  })
})
