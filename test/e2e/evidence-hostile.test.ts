// Evidence that cannot be trusted (SPEC §5, §6.2): empty, truncated, binary, wrong-schema and huge sparse files.
// `verify check` says why in one line and exits 3 (incomplete), fast and without a stack trace; `verify run
// --reuse` runs the checks again and writes a whole, valid file over it. In process, but for the first case, which
// runs the bin.
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readEvidenceFile } from '../../src/evidence/store.js'
import { cleanup, diagnose, STACK_LINE } from '../helpers/cli.js'
import { MIB, scenario } from '../helpers/scenario.js'

afterAll(cleanup)

let valid = ''
beforeAll(async () => {
  const box = scenario({ inProcess: true })
  const result = await box.verify(['marker'])
  expect(result.code, diagnose(result)).toBe(0)
  valid = readFileSync(box.evidencePath, 'utf8')
}, 30_000)

function sparse(file: string, bytes: number): void {
  const fd = openSync(file, 'w')
  ftruncateSync(fd, bytes)
  closeSync(fd)
}

const hostile: [what: string, make: (file: string) => void, reason: RegExp][] = [
  ['empty', (file) => writeFileSync(file, ''), /is empty/],
  ['truncated in the middle', (file) => writeFileSync(file, valid.slice(0, Math.floor(valid.length / 2))), /not valid JSON/],
  ['cut one byte short', (file) => writeFileSync(file, valid.trimEnd().slice(0, -1)), /not valid JSON/],
  ['binary', (file) => writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256))), /not valid JSON/],
  [
    'wrong schema (checks of the wrong shape)',
    (file) => writeFileSync(file, JSON.stringify({ ...JSON.parse(valid), checks: [{ id: 7 }] })),
    /not a valid evidence file \(checks\.0/,
  ],
  ['wrong schema (another tool)', (file) => writeFileSync(file, JSON.stringify({ name: 'other', version: 3 })), /schemaVersion/],
  ['huge sparse (1 GiB, over the cap)', (file) => sparse(file, 1024 * MIB), /over the 64 MiB limit/],
  ['sparse NUL bytes under the cap (32 MiB)', (file) => sparse(file, 32 * MIB), /not valid JSON/],
]

describe('hostile evidence files', { timeout: 60_000 }, () => {
  it.each(hostile)('%s: `verify check` exits 3 with one line; `run --reuse` writes a valid file', async (what, make, reason) => {
    const box = scenario({ inProcess: what !== hostile[0]?.[0] })
    make(box.evidencePath)
    if (statSync(box.evidencePath).size >= 32 * MIB) expect(statSync(box.evidencePath).blocks * 512).toBeLessThan(MIB)
    const started = performance.now()
    const check = await box.verify(['check', 'marker'])
    const checkMs = performance.now() - started
    expect(check.code, diagnose(check)).toBe(3)
    expect(check.stdout).toMatch(reason)
    expect(check.stdout.trim().split('\n')).toHaveLength(1)
    expect(`${check.stdout}${check.stderr}`).not.toMatch(STACK_LINE)
    expect(checkMs).toBeLessThan(10_000)

    rmSync(box.path('marker.ran'), { force: true })
    const reuse = await box.verify(['marker', '--reuse'])
    expect(reuse.code, diagnose(reuse)).toBe(0)
    expect(existsSync(box.path('marker.ran'))).toBe(true)
    const read = await readEvidenceFile(box.evidencePath)
    expect(read.ok).toBe(true)
    expect((await box.verify(['check', 'marker'])).code).toBe(0)
  })
})
