// V8's code cache of the bundled CLI (src/cli/code-cache.ts, docs/performance.md): the same results from cached code
// as from the source, data that is not V8's for that source (or damaged) refused, the cache kept beside verify's own
// install, and a folder another user could write never used.
import { createHash } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cacheFolder } from '../../src/cli/code-cache.js'
import { cleanup, fixture, ROOT } from '../helpers/cli.js'
import { runTool } from '../integrations/helpers.js'

const temporary = mkdtempSync(join(tmpdir(), 'verify-code-cache-'))
afterAll(async () => {
  await cleanup()
  rmSync(temporary, { recursive: true, force: true })
})

/**
 * verify installed as a package in a project of its own (`<dir>/node_modules/verify-protocol`: this build's bin,
 * dist/ and package.json, its dependencies linked), so that its code cache is the install's alone.
 */
function installed(): { dir: string; bin: string; cache: string } {
  const dir = mkdtempSync(join(temporary, 'install-'))
  const pkg = join(dir, 'node_modules', 'verify-protocol')
  mkdirSync(pkg, { recursive: true })
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true })
  for (const dependency of ['jiti', 'jsonc-parser', 'picomatch'])
    symlinkSync(join(ROOT, 'node_modules', dependency), join(dir, 'node_modules', dependency), 'dir')
  return { dir, bin: join(pkg, 'bin', 'verify.cjs'), cache: join(dir, 'node_modules', '.cache', 'verify-protocol', 'v8') }
}

const cacheFiles = (base: string): string[] => {
  if (!existsSync(base)) return []
  return readdirSync(base).flatMap((version) => readdirSync(join(base, version)).map((name) => join(base, version, name)))
}

/** The name of a source file's cache data: the SHA-256 of its source. */
const cacheName = (source: string): string => `${createHash('sha256').update(readFileSync(source, 'utf8')).digest('hex').slice(0, 40)}.bin`

describe.skipIf(process.getuid === undefined)('the code cache', () => {
  it('runs a custom reporter module from cached code as from the source; refuses data that is not for that source', async () => {
    const install = installed()
    const evidence = join(install.dir, 'evidence.json')
    const run = (env: Record<string, string>) =>
      runTool(install.bin, ['--cwd', fixture('reporters-custom'), '--evidence', evidence, '--no-color'], install.dir, { env: { TMPDIR: install.dir, ...env } })
    const expectReported = (result: Awaited<ReturnType<typeof run>>) => {
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain('custom ok: passed\n')
      expect(result.stdout).toContain('custom verdict: approved\n')
      expect(result.stdout).toContain('inline object reporter: approved\n')
      expect(result.stderr).not.toMatch(/warning|dynamic import/i)
    }
    expectReported(await run({ VERIFY_CODE_CACHE: '0' }))
    expect(cacheFiles(install.cache)).toEqual([])
    // The first run writes the cache, the second runs from it (the reporter is imported from cached code).
    expectReported(await run({}))
    const written = cacheFiles(install.cache)
    expect(written.length).toBeGreaterThan(5)
    // Beside the install, never in the temp dir.
    expect(existsSync(join(install.dir, `verify-protocol-${process.getuid?.()}`))).toBe(false)
    expectReported(await run({}))
    expectReported(await run({}))
    // A config jiti has no transform of (a fresh clone): its TypeScript transform, babel, is compiled from the cache too.
    const babel = cacheName(join(ROOT, 'node_modules', 'jiti', 'dist', 'babel.cjs'))
    expect(written.some((file) => file.endsWith(babel))).toBe(false)
    expectReported(await run({ JITI_FS_CACHE: 'false' }))
    expect(cacheFiles(install.cache).filter((file) => file.endsWith(babel))).toHaveLength(1)
    expectReported(await run({ JITI_FS_CACHE: 'false' }))
    // Damaged data — bytes flipped inside it, which V8 does not check and would crash on —, one file's data under
    // another file's name, and garbage: each is compiled from its source again, and the run is the same.
    const [first, second, third, ...rest] = written as [string, string, string, ...string[]]
    const bytes = readFileSync(first)
    for (let i = bytes.length >> 1; i < (bytes.length >> 1) + 64; i++) bytes[i] = (bytes[i] as number) ^ 0xff
    writeFileSync(first, bytes)
    expectReported(await run({}))
    renameSync(second, third)
    for (const file of rest) writeFileSync(file, 'not V8 data')
    expectReported(await run({}))
    expect(cacheFiles(install.cache).filter((file) => file.endsWith('.tmp'))).toEqual([])
  })

  it('uses only a folder of this user that no one else can write, in the node_modules that holds verify', () => {
    const install = installed()
    const root = join(install.dir, 'node_modules', 'verify-protocol')
    const env = {}
    const folder = cacheFolder(env, root)
    expect(folder).toBe(join(install.cache, `${process.version}-${process.arch}`))
    expect(cacheFolder({ VERIFY_CODE_CACHE: 'false' }, root)).toBeNull()
    // Not installed as a package (this repository): its own node_modules; none at all, no cache.
    expect(cacheFolder(env, ROOT)).toBe(join(ROOT, 'node_modules', '.cache', 'verify-protocol', 'v8', `${process.version}-${process.arch}`))
    expect(cacheFolder(env, mkdtempSync(join(temporary, 'bare-')))).toBeNull()
    const own = join(install.dir, 'node_modules', '.cache', 'verify-protocol')
    chmodSync(own, 0o777)
    expect(cacheFolder(env, root)).toBeNull()
    chmodSync(own, 0o755)
    expect(cacheFolder(env, root)).toBe(folder)
    // Under a umask of 002 (the default of a user with a group of their own), another tool makes node_modules/.cache
    // writable by the group, and npm installs verify so: a cache that group can write is no easier to change than
    // verify's own code, and is used. Where verify's code is not the group's to write, it is not; nor for another group.
    const shared = join(install.dir, 'node_modules', '.cache')
    // Set, not as made: the suite's own umask may be 002 too.
    chmodSync(root, 0o755)
    chmodSync(shared, 0o775)
    expect(cacheFolder(env, root)).toBeNull()
    chmodSync(root, 0o775)
    expect(cacheFolder(env, root)).toBe(folder)
    chmodSync(shared, 0o777)
    expect(cacheFolder(env, root)).toBeNull()
    chmodSync(shared, 0o775)
    if (process.getuid?.() === 0) {
      chownSync(shared, 0, 12345)
      expect(cacheFolder(env, root)).toBeNull()
      chownSync(shared, 0, process.getgid?.() ?? 0)
    }
    chmodSync(root, 0o755)
    chmodSync(shared, 0o755)
    expect(cacheFolder(env, root)).toBe(folder)
    // A folder someone else made (or a link to one) is not this user's.
    const v8 = join(own, 'v8')
    rmSync(v8, { recursive: true })
    const elsewhere = join(install.dir, 'elsewhere')
    mkdirSync(elsewhere, { mode: 0o700 })
    symlinkSync(elsewhere, v8)
    expect(cacheFolder(env, root)).toBeNull()
    if (process.getuid?.() === 0) {
      rmSync(v8)
      mkdirSync(v8, { mode: 0o700 })
      chownSync(v8, 12345, 12345)
      expect(cacheFolder(env, root)).toBeNull()
    }
  })
})
