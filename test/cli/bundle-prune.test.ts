// The bundle's chunks are named by content hash, so each build of changed sources leaves the previous build's chunks
// behind. A verify started before the rebuild (the `build` check of this project's own protocol rebuilds dist/ while
// verify runs from it) still loads some of its chunks lazily, after the rebuild: the build keeps the chunks of the build
// before it, removes older ones, and keeps none but its own when npm packs the package.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { pruneChunks } from '../../scripts/prune-chunks.mjs'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A dist/ folder holding these files. */
function dist(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'verify-prune-'))
  dirs.push(dir)
  for (const name of names) writeFileSync(join(dir, name), '')
  return dir
}

/** One build: writes the chunks it produced, then prunes. */
function build(dir: string, chunks: string[], keepPrevious = true): string[] {
  for (const name of chunks) writeFileSync(join(dir, name), '')
  pruneChunks(dir, chunks, { keepPrevious })
  return readdirSync(dir)
    .filter((name) => name.startsWith('cli-chunk-'))
    .toSorted()
}

describe('pruneChunks', () => {
  it('keeps the chunks of the build before, removes those of older builds', () => {
    const dir = dist()
    expect(build(dir, ['cli-chunk-A.cjs', 'cli-chunk-A.cjs.map', 'cli-chunk-B.cjs'])).toEqual(['cli-chunk-A.cjs', 'cli-chunk-A.cjs.map', 'cli-chunk-B.cjs'])
    // B changed: a verify started before this build may still load B.
    expect(build(dir, ['cli-chunk-A.cjs', 'cli-chunk-A.cjs.map', 'cli-chunk-C.cjs'])).toEqual([
      'cli-chunk-A.cjs',
      'cli-chunk-A.cjs.map',
      'cli-chunk-B.cjs',
      'cli-chunk-C.cjs',
    ])
    expect(build(dir, ['cli-chunk-A.cjs', 'cli-chunk-A.cjs.map', 'cli-chunk-D.cjs'])).toEqual([
      'cli-chunk-A.cjs',
      'cli-chunk-A.cjs.map',
      'cli-chunk-C.cjs',
      'cli-chunk-D.cjs',
    ])
  })

  it('never removes a file the build wrote, nor files that are not chunks', () => {
    const dir = dist('cli.cjs', 'cli-api.js', 'index.js', 'cli-chunk-old.cjs')
    expect(build(dir, ['cli-chunk-A.cjs'])).toEqual(['cli-chunk-A.cjs'])
    for (const name of ['cli.cjs', 'cli-api.js', 'index.js']) expect(existsSync(join(dir, name))).toBe(true)
  })

  it('keeps only its own chunks for a package (npm pack, npm publish)', () => {
    const dir = dist()
    build(dir, ['cli-chunk-A.cjs', 'cli-chunk-B.cjs'])
    expect(build(dir, ['cli-chunk-A.cjs', 'cli-chunk-C.cjs'], false)).toEqual(['cli-chunk-A.cjs', 'cli-chunk-C.cjs'])
  })

  it('treats a missing or damaged record of the build before as no build before', () => {
    const dir = dist('cli-chunk-X.cjs')
    writeFileSync(join(dir, '.bundle-chunks.json'), '{not json')
    expect(build(dir, ['cli-chunk-A.cjs'])).toEqual(['cli-chunk-A.cjs'])
  })
})
