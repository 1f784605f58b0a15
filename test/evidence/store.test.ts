import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readEvidenceFile, writeEvidenceFile, writeEvidenceFileSync } from '../../src/evidence/store.js'
import type { EvidenceFile } from '../../src/types.js'

const temporaryDirs: string[] = []

afterEach(() => {
  for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'verify-store-'))
  temporaryDirs.push(dir)
  return dir
}

function evidence(runId = 'run-1'): EvidenceFile {
  return {
    schemaVersion: 1,
    tool: { name: 'verify-protocol', version: '0.1.0' },
    protocol: { name: 'default', digest: `sha256:${'a'.repeat(64)}`, strictMode: false },
    workspace: { fingerprint: `sha256:${'d'.repeat(64)}`, git: { head: null, tree: 'f'.repeat(40), dirty: true } },
    runId,
    startedAt: '2026-11-30T12:00:00.000Z',
    finishedAt: '2026-11-30T12:00:03.210Z',
    checks: [{ id: 'build', name: 'Build', evidenceType: 'build_success', required: true, status: 'skipped', reason: 'no reason', evidence: null }],
    summary: { total: 1, passed: 0, failed: 0, skipped: 1, cancelled: 0, pending: 0, verdict: 'incomplete', issues: [], recommendations: [], warnings: [] },
  }
}

describe('writeEvidenceFile / readEvidenceFile', () => {
  it.each([
    ['async', writeEvidenceFile],
    ['sync', async (path: string, file: EvidenceFile) => writeEvidenceFileSync(path, file)],
  ])('round-trips (%s), creating folders, as indented JSON with a trailing newline', async (_, write) => {
    const path = join(temporaryDir(), '.verify', 'nested', 'evidence.json')
    await write(path, evidence())
    expect(await readEvidenceFile(path)).toEqual({ ok: true, file: evidence() })
    const text = readFileSync(path, 'utf8')
    expect(text).toBe(`${JSON.stringify(evidence(), null, 2)}\n`)
  })

  it('replaces an existing file and leaves no temporary files', async () => {
    const dir = temporaryDir()
    const path = join(dir, 'evidence.json')
    await writeEvidenceFile(path, evidence('run-1'))
    writeEvidenceFileSync(path, evidence('run-2'))
    await writeEvidenceFile(path, evidence('run-3'))
    expect(readdirSync(dir)).toEqual(['evidence.json'])
    expect(await readEvidenceFile(path)).toEqual({ ok: true, file: evidence('run-3') })
  })

  it('never exposes a partial file to concurrent writers and readers', async () => {
    const dir = temporaryDir()
    const path = join(dir, 'evidence.json')
    const runs = Array.from({ length: 20 }, (_, i) => `run-${i}`)
    const results = await Promise.all([...runs.map((run) => writeEvidenceFile(path, evidence(run))), ...runs.map(() => readEvidenceFile(path))])
    for (const read of results.slice(runs.length)) {
      if (read && !read.ok) expect(read.reason).toMatch(/^no evidence at/)
    }
    const final = await readEvidenceFile(path)
    expect(final.ok && runs.includes(final.file.runId)).toBe(true)
    expect(readdirSync(dir)).toEqual(['evidence.json'])
  })

  it('removes the temporary file when the rename fails', async () => {
    const dir = temporaryDir()
    const path = join(dir, 'evidence.json')
    mkdirSync(path)
    writeFileSync(join(path, 'occupied'), '')
    await expect(writeEvidenceFile(path, evidence())).rejects.toThrow()
    expect(() => writeEvidenceFileSync(path, evidence())).toThrow()
    expect(readdirSync(dir)).toEqual(['evidence.json'])
  })
})

async function reasonFor(content: string | null): Promise<string> {
  const path = join(temporaryDir(), 'evidence.json')
  if (content !== null) writeFileSync(path, content)
  const result = await readEvidenceFile(path)
  if (result.ok) throw new Error('expected ok: false')
  expect(result.reason).not.toContain('\n')
  return result.reason
}

describe('readEvidenceFile refusals', () => {
  it('explains a missing file', async () => {
    expect(await reasonFor(null)).toMatch(/^no evidence at .*evidence\.json: run `npx verify` first$/)
  })

  it('explains an empty file', async () => {
    expect(await reasonFor('')).toMatch(/is empty: run `npx verify`/)
  })

  it('explains corrupt JSON', async () => {
    expect(await reasonFor('{"schemaVersion": 1, "checks": [')).toMatch(/is not valid JSON \(.+\): delete it/)
  })

  it('explains a wrong schema version or shape', async () => {
    const valid = evidence() as unknown as Record<string, unknown>
    expect(await reasonFor(JSON.stringify({ ...valid, schemaVersion: 2 }))).toMatch(/schemaVersion 2, .* reads 1/)
    expect(await reasonFor(JSON.stringify({ ...valid, schemaVersion: undefined }))).toMatch(/schemaVersion none/)
    expect(await reasonFor(JSON.stringify({ ...valid, checks: {} }))).toMatch(/no `checks` list/)
    expect(await reasonFor(JSON.stringify({ ...valid, summary: null }))).toMatch(/no `summary` object/)
    expect(await reasonFor('[1, 2]')).toMatch(/not a JSON object/)
  })

  it('refuses a file over 64 MiB without reading it', async () => {
    const path = join(temporaryDir(), 'evidence.json')
    writeFileSync(path, '')
    truncateSync(path, 65 * 1024 * 1024) // sparse: cheap to create
    const result = await readEvidenceFile(path)
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/is 65\.0 MiB, over the 64 MiB limit/) })
  })

  it('explains a folder where the file should be, and names the file to give instead of telling to remove it', async () => {
    const path = join(temporaryDir(), '.verify')
    mkdirSync(path)
    const read = await readEvidenceFile(path)
    expect(read).toEqual({
      ok: false,
      reason: expect.stringMatching(/is a folder, not a file: name the evidence file in it \(--evidence .*\.verify\/evidence\.json\)/),
    })
    expect(read.ok ? '' : read.reason).not.toMatch(/remove/)
  })
})
