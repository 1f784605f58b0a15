// V8's code cache of the bundled CLI (src/cli/code-cache.ts, docs/performance.md): the same results from cached code
// as from the source, data that is not V8's for that source refused, and a folder another user could write never used.
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cacheFolder } from '../../src/cli/code-cache.js'
import { cleanup, diagnose, fixture, sandbox } from '../helpers/cli.js'

const temporary = mkdtempSync(join(tmpdir(), 'verify-code-cache-'))
afterAll(async () => {
  await cleanup()
  rmSync(temporary, { recursive: true, force: true })
})

const cacheFiles = (root: string): string[] => {
  const base = join(root, `verify-protocol-${process.getuid?.()}`, 'v8')
  if (!existsSync(base)) return []
  return readdirSync(base).flatMap((version) => readdirSync(join(base, version)).map((name) => join(base, version, name)))
}

describe.skipIf(process.getuid === undefined)('the code cache', () => {
  it('runs a custom reporter module from cached code as from the source; refuses data that is not for that source', async () => {
    const root = mkdtempSync(join(temporary, 'tmp-'))
    const box = sandbox()
    const run = (env: Record<string, string>) => box.run(['--cwd', fixture('reporters-custom')], { env: { TMPDIR: root, ...env } })
    const expectReported = (result: Awaited<ReturnType<typeof run>>) => {
      expect(result.code, diagnose(result)).toBe(0)
      expect(result.stdout).toContain('custom ok: passed\n')
      expect(result.stdout).toContain('custom verdict: approved\n')
      expect(result.stdout).toContain('inline object reporter: approved\n')
      expect(result.stderr).not.toMatch(/warning|dynamic import/i)
    }
    expectReported(await run({ VERIFY_CODE_CACHE: '0' }))
    expect(cacheFiles(root)).toEqual([])
    // The first run writes the cache, the second runs from it (the reporter is imported from cached code).
    expectReported(await run({}))
    const written = cacheFiles(root)
    expect(written.length).toBeGreaterThan(5)
    expectReported(await run({}))
    // Garbage, and one file's data under another file's name: V8 refuses both, the source is compiled again.
    const [first, second, ...rest] = written as [string, string, ...string[]]
    renameSync(first, second)
    for (const file of rest) writeFileSync(file, 'not V8 data')
    expectReported(await run({}))
  })

  it('uses only a folder of this user that no one else can write', () => {
    const root = mkdtempSync(join(temporary, 'folder-'))
    const env = {}
    const before = process.env.TMPDIR
    process.env.TMPDIR = root
    try {
      const folder = cacheFolder(env)
      expect(folder).toMatch(/verify-protocol-\d+\/v8\/v\d+/)
      expect(cacheFolder({ VERIFY_CODE_CACHE: 'false' })).toBeNull()
      const own = join(root, `verify-protocol-${process.getuid?.()}`)
      chmodSync(own, 0o777)
      expect(cacheFolder(env)).toBeNull()
      chmodSync(own, 0o755)
      expect(cacheFolder(env)).toBe(folder)
      // A folder someone else made (or a link to one) is not this user's.
      const v8 = join(own, 'v8')
      rmSync(v8, { recursive: true })
      const elsewhere = join(root, 'elsewhere')
      mkdirSync(elsewhere, { mode: 0o700 })
      symlinkSync(elsewhere, v8)
      expect(cacheFolder(env)).toBeNull()
      if (process.getuid?.() === 0) {
        rmSync(v8)
        mkdirSync(v8, { mode: 0o700 })
        chownSync(v8, 12345, 12345)
        expect(cacheFolder(env)).toBeNull()
      }
    } finally {
      if (before === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = before
    }
  })
})
