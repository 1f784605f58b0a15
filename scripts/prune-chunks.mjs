// The chunks of the CLI's bundle are named by content hash: a build of changed sources writes new names and leaves the
// old files behind. A verify that started before the build may still need them: this project's own protocol rebuilds
// dist/ in its `build` check while verify runs from dist/, and verify loads some chunks only when it first uses them
// (the JUnit parser, after the tests). So a build keeps the chunks of the build before it and removes older ones; the
// build npm makes for a package (npm pack, npm publish) keeps only its own. Used by rolldown.config.mjs.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const CHUNK = /^cli-chunk-.+\.cjs(\.map)?$/
/** The chunks the last build wrote, in dist/. */
const RECORD = '.bundle-chunks.json'

/**
 * Removes from `dir` the chunk files neither this build (`produced`) nor, with `keepPrevious`, the build before it
 * wrote, and records this build's.
 */
export function pruneChunks(dir, produced, { keepPrevious }) {
  const keep = new Set([...produced, ...(keepPrevious ? previousChunks(dir) : [])])
  for (const name of readdirSync(dir)) if (CHUNK.test(name) && !keep.has(name)) rmSync(join(dir, name), { force: true })
  writeFileSync(join(dir, RECORD), `${JSON.stringify(produced.filter((name) => CHUNK.test(name)).toSorted())}\n`)
}

/** Whether npm is building the package it packs or publishes (npm runs `prepare` for both). */
export function packing(env = process.env) {
  return env.npm_command === 'pack' || env.npm_command === 'publish'
}

function previousChunks(dir) {
  try {
    const names = JSON.parse(readFileSync(join(dir, RECORD), 'utf8'))
    return Array.isArray(names) ? names.filter((name) => typeof name === 'string' && CHUNK.test(name)) : []
  } catch {
    return [] // no build before, or its record is damaged: nothing is kept for it
  }
}
