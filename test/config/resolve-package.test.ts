// Finding what an `extends` entry names: paths relative to the declaring file, packages the way Node resolves them.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isPathEntry, isRemoteEntry, resolvePackage, resolvePath } from '../../src/config/locate.js'

const root = mkdtempSync(join(tmpdir(), 'verify-resolve-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function write(path: string, content = 'export default {}'): string {
  const file = join(root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, content)
  return file
}

describe('entry kinds', () => {
  it.each(['./a', '../a', '.', '..', '/abs/a'])('%s is a path', (entry) => expect(isPathEntry(entry)).toBe(true))
  it.each(['@acme/preset', 'verify-protocol/presets/node', 'preset'])('%s is a package', (entry) => {
    expect(isPathEntry(entry)).toBe(false)
    expect(isRemoteEntry(entry)).toBe(false)
  })
  it.each(['gh:acme/repo', 'github:acme/repo', 'gitlab:a/b', 'https://example.com/x.tar.gz', 'http://x', 'bitbucket:a/b'])('%s is remote', (entry) => {
    expect(isRemoteEntry(entry)).toBe(true)
  })
  it('a Windows drive letter is not a remote scheme', () => expect(isRemoteEntry('C:\\presets\\x.ts')).toBe(false))
})

describe('resolvePath', () => {
  const config = write('project/presets/team/verify.config.mjs')
  const base = write('project/presets/base.ts')

  it('resolves against the folder given (the declaring file), not the process cwd', () => {
    expect(resolvePath('../base.ts', dirname(config))).toEqual({ file: base })
  })

  it('adds a config extension when it is left out', () => {
    expect(resolvePath('../base', dirname(config))).toEqual({ file: base })
  })

  it('a folder stands for its verify.config.* file', () => {
    expect(resolvePath('./presets/team', join(root, 'project'))).toEqual({ file: config })
  })

  it('says what is missing', () => {
    expect(resolvePath('./nope.ts', join(root, 'project'))).toEqual({ error: expect.stringContaining('no file or folder at') })
    mkdirSync(join(root, 'project', 'empty'), { recursive: true })
    expect(resolvePath('./empty', join(root, 'project'))).toEqual({ error: expect.stringContaining('has no verify.config.* file') })
  })
})

describe('"exports", as Node resolves them (exsolve)', () => {
  let count = 0
  /** Writes a package with these "exports" and files, and resolves it (with `subpath`) from a folder beside it. */
  function exported(exports: unknown, files: readonly string[], subpath = ''): string {
    const name = `exports-${++count}`
    write(`exports/node_modules/${name}/package.json`, JSON.stringify({ name, exports }))
    for (const file of files) write(`exports/node_modules/${name}/${file}`)
    const found = resolvePackage(name + subpath, join(root, 'exports', 'app'))
    return 'file' in found ? relative(realpathSync(join(root, 'exports', 'node_modules', name)), found.file) : found.error
  }

  it('takes a string, conditions in key order, subpaths and patterns', () => {
    expect(exported('./index.js', ['index.js'])).toBe('index.js')
    expect(exported({ types: './i.d.ts', import: './i.mjs', require: './i.cjs' }, ['i.d.ts', 'i.mjs', 'i.cjs'])).toBe('i.mjs')
    expect(exported({ '.': { node: { import: './n.mjs' }, default: './d.js' } }, ['n.mjs', 'd.js'])).toBe('n.mjs')
    expect(exported({ './presets/*': { import: './dist/presets/*.js' } }, ['dist/presets/node.js'], '/presets/node')).toBe(join('dist', 'presets', 'node.js'))
    expect(exported({ './a': './a.js' }, ['a.js', 'b.js'], '/b')).toMatch(/does not export "\.\/b"$/)
    // Exported for `require` only: import finds nothing, require (the second try) finds it.
    expect(exported({ '.': { require: './i.cjs' } }, ['i.cjs'])).toBe('i.cjs')
  })
})

describe('resolvePackage', () => {
  const project = join(root, 'pkgs', 'app')
  write('pkgs/app/package.json', JSON.stringify({ name: 'app' }))
  const exported = write('pkgs/node_modules/@acme/preset/lib/index.mjs')
  write(
    'pkgs/node_modules/@acme/preset/package.json',
    JSON.stringify({ name: '@acme/preset', exports: { '.': { import: './lib/index.mjs' }, './strict': './lib/strict.mjs' } }),
  )
  const folderPreset = write('pkgs/node_modules/folder-preset/verify.config.ts')
  write('pkgs/node_modules/folder-preset/package.json', JSON.stringify({ name: 'folder-preset' }))
  const mainPreset = write('pkgs/node_modules/main-preset/src/main.js')
  write('pkgs/node_modules/main-preset/package.json', JSON.stringify({ name: 'main-preset', main: 'src/main.js' }))

  it('finds a package in a node_modules above the folder, through its exports', () => {
    expect(resolvePackage('@acme/preset', project)).toEqual({ file: exported })
  })

  it('says when a subpath is exported but missing, or not exported', () => {
    expect(resolvePackage('@acme/preset/strict', project)).toEqual({ error: expect.stringContaining('which does not exist') })
    expect(resolvePackage('@acme/preset/other', project)).toEqual({ error: expect.stringContaining('does not export "./other"') })
  })

  it('uses main, else the verify.config.* at the root of a package without exports', () => {
    expect(resolvePackage('main-preset', project)).toEqual({ file: mainPreset })
    expect(resolvePackage('folder-preset', project)).toEqual({ file: folderPreset })
  })

  it('resolves the package itself by name from inside it (self-reference)', () => {
    const self = write('self/dist/presets/node.js')
    write('self/package.json', JSON.stringify({ name: 'verify-protocol', exports: { './presets/node': { import: './dist/presets/node.js' } } }))
    expect(resolvePackage('verify-protocol/presets/node', join(root, 'self', 'fixtures', 'x'))).toEqual({ file: self })
  })

  it('says a package is not installed', () => {
    expect(resolvePackage('@acme/missing', project)).toEqual({ error: expect.stringMatching(/cannot find the package "@acme\/missing".*is it installed/) })
  })
})
