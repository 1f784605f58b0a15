// Config transforms kept by their content (src/config/transform-store.ts): the same source at another path loads
// without babel; what depends on the file's place, a damaged file and options that are no plain data are never served.
import { createHash, randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { transformStore } from '../../src/config/transform-store.js'
import { privateCacheFolder } from '../../src/version.js'
import { ENV, ids, load, projectFolder } from '../helpers/load-config.js'

const scratch = mkdtempSync(join(tmpdir(), 'verify-store-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const options = (source: string, filename: string) => ({ source, filename, ts: true, async: true, interopDefault: true })

describe('the transform store', () => {
  it('serves an output to the same source and options at any path, and to nothing else', () => {
    const store = transformStore(mkdtempSync(join(scratch, 's-')), 'babel 1')
    store.put(options('export default 1', '/a/one/verify.config.ts'), 'module.exports = 1')
    expect(store.get(options('export default 1', '/b/two/verify.config.ts'))).toBe('module.exports = 1')
    expect(store.get(options('export default 2', '/a/one/verify.config.ts'))).toBeUndefined()
    expect(store.get({ ...options('export default 1', '/a/one/verify.config.ts'), ts: false })).toBeUndefined()
    // Another version of the transform transforms anew.
    expect(transformStore(mkdtempSync(join(scratch, 's-')), 'babel 2').get(options('export default 1', '/a/x.ts'))).toBeUndefined()
  })

  it("serves a .ts file's output to no .tsx file (jiti reads JSX in .tsx alone)", () => {
    const store = transformStore(mkdtempSync(join(scratch, 's-')), 'babel 1')
    store.put({ ...options('export default <T>(a)</T>/g', '/a/one/x.ts'), jsx: true }, 'module.exports = false')
    expect(store.get({ ...options('export default <T>(a)</T>/g', '/b/two/y.tsx'), jsx: true })).toBeUndefined()
    expect(store.get({ ...options('export default <T>(a)</T>/g', '/b/two/y.ts'), jsx: true })).toBe('module.exports = false')
  })

  it('keeps no output with an inline source map (it names the file), and serves nothing when asked to rebuild', () => {
    const folder = mkdtempSync(join(scratch, 's-'))
    const store = transformStore(folder, 'babel 1')
    store.put({ ...options('export default 6', '/a/b/c.ts'), babel: { sourceFileName: '/a/b/c.ts', sourceMaps: 'inline' } }, 'module.exports = 6')
    expect(readdirSync(folder)).toEqual([])
    store.put(options('export default 7', '/a/b/c.ts'), 'module.exports = 7')
    expect(transformStore(folder, 'babel 1', { rebuild: true }).get(options('export default 7', '/a/b/c.ts'))).toBeUndefined()
    expect(store.get(options('export default 7', '/a/b/c.ts'))).toBe('module.exports = 7')
  })

  it("keeps no output that holds the file's folder (a path, an escaped path, a URL)", () => {
    const folder = mkdtempSync(join(scratch, 's-'))
    const store = transformStore(folder, 'babel 1')
    const dir = '/work/a "quoted" folder'
    const file = `${dir}/verify.config.ts`
    for (const [i, code] of [`const d = ${JSON.stringify(dir)}`, `const u = "${pathToFileURL(file).href}"`, `//# sourceURL=${dir}/x`].entries()) {
      store.put(options(`export default ${i}`, file), code)
    }
    expect(readdirSync(folder)).toEqual([])
  })

  it('serves no damaged file, and keeps nothing for options that are no plain data', () => {
    const folder = mkdtempSync(join(scratch, 's-'))
    const store = transformStore(folder, 'babel 1')
    store.put(options('export default 3', '/a/b/c.ts'), 'module.exports = 3')
    const [name] = readdirSync(folder)
    const path = join(folder, name as string)
    writeFileSync(path, readFileSync(path, 'utf8').replace('= 3', '= 4'))
    expect(store.get(options('export default 3', '/a/b/c.ts'))).toBeUndefined()
    const withPlugin = { ...options('export default 5', '/a/b/c.ts'), babel: { plugins: [() => ({})] } }
    store.put(withPlugin, 'module.exports = 5')
    expect(store.get(withPlugin)).toBeUndefined()
  })
})

const kept = () => privateCacheFolder('transforms', 'jiti') as string
/** The kept files whose code holds `marker`. */
const keptWith = (marker: string) => readdirSync(kept()).filter((name) => readFileSync(join(kept(), name), 'utf8').includes(marker))

describe('config loads through the store', () => {
  const { project } = projectFolder('verify-store-load-')

  it('a config copied to another folder loads the transform kept for its source', async () => {
    const marker = `stored-${randomUUID()}`
    const source = `const command: string = 'echo ${marker}'\nexport default { checks: { first: command } }\n`
    expect(ids(await load({ cwd: project('one', { 'verify.config.ts': source }) }))).toEqual(['first'])
    const [name] = keptWith(marker)
    expect(name).toBeDefined()
    // The kept file is what a load of the same source elsewhere runs: edited (its digest kept right), the edit loads.
    const path = join(kept(), name as string)
    const code = readFileSync(path, 'utf8').split('\n').slice(1).join('\n').replace('first:', 'served:')
    writeFileSync(path, `${createHash('sha256').update(code).digest('hex')}\n${code}`)
    try {
      expect(ids(await load({ cwd: project('two', { 'verify.config.ts': source }) }))).toEqual(['served'])
    } finally {
      rmSync(path, { force: true })
    }
  })

  it('JITI_REBUILD_FS_CACHE transforms anew: a kept transform is replaced, not served', async () => {
    const marker = `rebuilt-${randomUUID()}`
    const source = `export default { checks: { first: 'echo ${marker}' as string } }\n`
    expect(ids(await load({ cwd: project('three', { 'verify.config.ts': source }) }))).toEqual(['first'])
    const path = join(kept(), keptWith(marker)[0] as string)
    const code = readFileSync(path, 'utf8').split('\n').slice(1).join('\n').replace('first:', 'served:')
    writeFileSync(path, `${createHash('sha256').update(code).digest('hex')}\n${code}`)
    try {
      const env = { ...ENV, JITI_REBUILD_FS_CACHE: 'true' }
      expect(ids(await load({ cwd: project('four', { 'verify.config.ts': source }), env }))).toEqual(['first'])
      expect(readFileSync(path, 'utf8')).not.toContain('served:')
    } finally {
      rmSync(path, { force: true })
    }
  })

  it('writeCaches false (a watching Jest): a kept transform is served, nothing is written, in the store or the project', async () => {
    const marker = `watched-${randomUUID()}`
    const source = `export default { checks: { first: 'echo ${marker}' as string } }\n`
    const files = { 'verify.config.ts': source, 'node_modules/.keep': '' }
    const watched = project('watched', files)
    // The store's folder exists (a store without one writes nothing anyway).
    expect(kept()).toBeTypeOf('string')
    expect(ids(await load({ cwd: watched, writeCaches: false }))).toEqual(['first'])
    expect(keptWith(marker)).toEqual([])
    // jiti's own cache goes in the project's node_modules, which Jest watches in watch mode.
    expect(readdirSync(join(watched, 'node_modules'))).toEqual(['.keep'])

    expect(ids(await load({ cwd: project('kept', files) }))).toEqual(['first'])
    const path = join(kept(), keptWith(marker)[0] as string)
    const code = readFileSync(path, 'utf8').split('\n').slice(1).join('\n').replace('first:', 'served:')
    writeFileSync(path, `${createHash('sha256').update(code).digest('hex')}\n${code}`)
    try {
      const again = project('watched-again', files)
      expect(ids(await load({ cwd: again, writeCaches: false }))).toEqual(['served'])
      expect(readdirSync(join(again, 'node_modules'))).toEqual(['.keep'])
    } finally {
      rmSync(path, { force: true })
    }
  })

  it('a store that writes nothing makes no folder for itself either', () => {
    const root = mkdtempSync(join(scratch, 'package-'))
    mkdirSync(join(root, 'node_modules'))
    expect(privateCacheFolder('transforms', 'jiti', root, { create: false })).toBeNull()
    expect(readdirSync(join(root, 'node_modules'))).toEqual([])
    const made = privateCacheFolder('transforms', 'jiti', root)
    expect(made).toBe(join(root, 'node_modules', '.cache', 'verify-protocol', 'transforms', 'jiti'))
    expect(privateCacheFolder('transforms', 'jiti', root, { create: false })).toBe(made)
  })

  it('keeps nothing for a config that names its own place, or when JITI_FS_CACHE turns caching off', async () => {
    const marker = `placed-${randomUUID()}`
    const placed = `const here: string = import.meta.url\nexport default { checks: { a: 'echo ${marker} ' + here.length } }\n`
    expect(ids(await load({ cwd: project('placed', { 'verify.config.ts': placed }) }))).toEqual(['a'])
    const off = `export default { checks: { b: 'echo ${marker}' as string } }\n`
    expect(ids(await load({ cwd: project('off', { 'verify.config.ts': off }), env: { JITI_FS_CACHE: 'false' } }))).toEqual(['b'])
    expect(keptWith(marker)).toEqual([])
  })
})
