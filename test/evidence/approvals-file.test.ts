// approvals.json is validated on read (its zod schema in src/evidence/approvals.ts): a file verify cannot read — not
// JSON, another shape, a field of the wrong type — stops every command that reads it with one paragraph naming the
// file (exit 2, SPEC §6.2), and nothing is written over it: the approvals it holds are never lost.
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, STACK_LINE } from '../helpers/cli.js'
import { project, removeProjects, verifyInProcess, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

let p: Project
let good: string

beforeAll(async () => {
  // fixtures/validity-manual: `build` (a command) and `review` (manual), approved once for real.
  p = project('validity-manual', { git: true })
  expect((await p.verify('run')).code).toBe(3)
  const approve = await p.verify('approve', ['review', '--by', 'Ann Reviewer'])
  expect(approve.code, diagnose(approve)).toBe(0)
  good = readFileSync(p.approvalsPath, 'utf8')
}, 90_000)

/** The stored file with one change made to its parsed JSON. */
function changed(mutate: (data: { schemaVersion: unknown; approvals: Record<string, Record<string, unknown>> }) => unknown): string {
  const data = JSON.parse(good)
  return JSON.stringify(mutate(data) ?? data)
}

const cases: [string, () => string, RegExp][] = [
  ['not JSON (cut off)', () => good.slice(0, good.length / 2), /not valid JSON/],
  ['empty', () => '', /empty/],
  ['a JSON list', () => '[]', /\(root\)/],
  ['of another schemaVersion', () => changed((d) => void (d.schemaVersion = 2)), /schemaVersion/],
  ['approvals a list', () => changed((d) => ({ ...d, approvals: [] })), /approvals/],
  ['an approval whose `by` is a number', () => changed((d) => void ((d.approvals.review as Record<string, unknown>).by = 42)), /approvals\.review\.by/],
  ['an approval without its fingerprint', () => changed((d) => void delete d.approvals.review?.fingerprint), /approvals\.review\.fingerprint/],
  // JSON.parse makes `__proto__` an own key, which a zod record passes over: it is checked all the same.
  [
    'an approval of a check called `__proto__` without its fields',
    () => good.replace('"approvals": {', '"approvals": { "__proto__": { "by": 42 },'),
    /approvals\.__proto__/,
  ],
  ['an approval whose note is an object', () => changed((d) => void ((d.approvals.review as Record<string, unknown>).note = {})), /approvals\.review\.note/],
]

describe('an approvals.json verify cannot read', { timeout: 90_000 }, () => {
  it.each(cases)('%s: approve, check and run stop (exit 2), say so in one paragraph, and write nothing', async (_name, content, why) => {
    const text = content()
    writeFileSync(p.approvalsPath, text)
    const evidence = readFileSync(p.evidencePath, 'utf8')
    try {
      for (const argv of [['approve', 'review', '--by', 'Bo'], ['check'], ['run']]) {
        const result = await verifyInProcess(p, argv)
        expect(result.code, `${argv.join(' ')}\n${result.stdout}${result.stderr}`).toBe(2)
        const message = result.stderr.trim()
        expect(message.split('\n'), message).toHaveLength(1)
        expect(message).toContain('approvals.json')
        expect(message).toMatch(why)
        expect(message).not.toMatch(STACK_LINE)
        // The file is left as it is: its approvals are not lost to a rewrite.
        expect(readFileSync(p.approvalsPath, 'utf8')).toBe(text)
        expect(readFileSync(p.evidencePath, 'utf8')).toBe(evidence)
      }
    } finally {
      writeFileSync(p.approvalsPath, good)
    }
  })

  it('an approval of another check, with a field this version does not know, is kept as it is when one is recorded', async () => {
    const other = { ...(JSON.parse(good).approvals.review as Record<string, unknown>), checkId: 'retired-review', origin: 'a later version' }
    writeFileSync(
      p.approvalsPath,
      changed((d) => void (d.approvals['retired-review'] = other)),
    )
    try {
      expect((await verifyInProcess(p, ['check'])).code).toBe(0)
      const approve = await verifyInProcess(p, ['approve', 'review', '--by', 'Bo'])
      expect(approve.code, approve.stderr).toBe(0)
      const stored = JSON.parse(readFileSync(p.approvalsPath, 'utf8'))
      expect(stored.approvals.review.by).toBe('Bo')
      expect(stored.approvals['retired-review']).toEqual(other)
    } finally {
      writeFileSync(p.approvalsPath, good)
    }
  })
})
