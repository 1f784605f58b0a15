// The full-disk path in process, on any machine (no mount needed): a write of the evidence that fails with ENOSPC
// while this run's logs hold the space empties those logs, largest first, marks them and writes the evidence; when
// nothing can be freed, a named error carries the results so the CLI still shows them.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { EvidenceFile } from '../../src/types.js'

// The injected fault: the device is "full" while the logs folder holds more than 1 KiB.
let logDir = ''
vi.mock('../../src/evidence/store.js', async (original) => {
  const real = await original<typeof import('../../src/evidence/store.js')>()
  return {
    ...real,
    writeEvidenceFile: async (target: string, file: EvidenceFile) => {
      const used = ['big', 'small'].reduce((sum, id) => sum + (statSync(join(logDir, `${id}.log`), { throwIfNoEntry: false })?.size ?? 0), 0)
      if (used > 1024) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      return real.writeEvidenceFile(target, file)
    },
  }
})
const { EvidenceNotWrittenError, writeEvidenceMakingRoom } = await import('../../src/evidence/room.js')
const { evidenceLocationProblem, makeFolderSync } = await import('../../src/evidence/location.js')

const work = mkdtempSync(join(tmpdir(), 'verify-full-disk-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function evidenceOf(ids: string[]): EvidenceFile {
  const output = { text: 'x', bytes: 1, truncated: false, sha256: 'a'.repeat(64) }
  return {
    schemaVersion: 1,
    tool: { name: 'verify-protocol', version: '0.0.0' },
    protocol: { name: 'default', digest: `sha256:${'b'.repeat(64)}`, strictMode: false },
    workspace: { fingerprint: `sha256:${'c'.repeat(64)}`, git: null },
    runId: 'run',
    startedAt: '2026-11-30T12:00:00.000Z',
    finishedAt: '2026-11-30T12:00:01.000Z',
    checks: ids.map((id) => ({
      id,
      name: id,
      evidenceType: 'command_success',
      required: true,
      status: 'passed' as const,
      reason: null,
      evidence: {
        type: 'command_success',
        passed: true,
        command: 'x',
        exitCode: 0,
        signal: null,
        timedOut: false,
        durationMs: 1,
        timestamp: '2026-11-30T12:00:01.000Z',
        fingerprint: `sha256:${'c'.repeat(64)}`,
        checkDigest: `sha256:${'d'.repeat(64)}`,
        output: { ...output },
        error: null,
        metadata: {},
      },
    })),
    summary: {
      total: ids.length,
      passed: ids.length,
      failed: 0,
      skipped: 0,
      cancelled: 0,
      pending: 0,
      verdict: 'approved',
      issues: [],
      recommendations: [],
      warnings: [],
    },
  }
}

describe('a full disk at the end of a run (simulated ENOSPC)', () => {
  it('empties the largest log first, as few as needed, marks it and writes the evidence', async () => {
    logDir = join(work, 'a', 'logs')
    mkdirSync(logDir, { recursive: true })
    writeFileSync(join(logDir, 'big.log'), 'b'.repeat(4096))
    writeFileSync(join(logDir, 'small.log'), 's'.repeat(512))
    const target = join(work, 'a', 'evidence.json')
    const written = await writeEvidenceMakingRoom(target, evidenceOf(['small', 'big']), (f) => f, logDir)
    expect(statSync(join(logDir, 'big.log')).size).toBe(0)
    expect(statSync(join(logDir, 'small.log')).size).toBe(512)
    const stored = JSON.parse(readFileSync(target, 'utf8')) as EvidenceFile
    expect(stored).toEqual(written)
    expect(stored.checks.find((c) => c.id === 'big')?.evidence?.output.logTruncated).toMatch(/device was full/)
    expect(stored.checks.find((c) => c.id === 'small')?.evidence?.output.logTruncated).toBeUndefined()
    expect(stored.summary.warnings).toEqual(['The log of "big" was emptied to make room for the evidence: the device is full.'])
  })

  it('gives the unsaved results in a named error when nothing can be freed', async () => {
    logDir = join(work, 'b', 'logs')
    mkdirSync(logDir, { recursive: true })
    // A log of no check of this run: not verify's to empty.
    writeFileSync(join(logDir, 'big.log'), 'b'.repeat(4096))
    const error = await writeEvidenceMakingRoom(join(work, 'b', 'evidence.json'), evidenceOf(['other']), (f) => f, logDir).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EvidenceNotWrittenError)
    expect((error as InstanceType<typeof EvidenceNotWrittenError>).file.checks[0]?.id).toBe('other')
    expect((error as Error).message).toMatch(/ENOSPC.*the results above are not saved; free some space/)
    expect(statSync(join(logDir, 'big.log')).size).toBe(4096)
  })
})

describe('folders on special file systems', () => {
  it('makeFolderSync ends with a named error under /proc instead of spinning', () => {
    expect(() => makeFolderSync('/proc/verify-test/a/b')).toThrow(/cannot create the folder \/proc\/verify-test/)
  })

  it('the location check names the path and what to do', () => {
    expect(evidenceLocationProblem('/proc/x.json', '/proc/logs')).toMatch(
      /^Cannot write the evidence at \/proc\/x\.json: cannot write in \/proc \(ENOENT\); .*ordinary disk/,
    )
    expect(evidenceLocationProblem(join(work, 'ok', 'evidence.json'), join(work, 'ok', 'logs'))).toBeNull()
  })
})
