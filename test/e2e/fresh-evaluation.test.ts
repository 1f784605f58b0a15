// The config loader caches what is a pure function of a file's content (its TypeScript transform), never the protocol
// a config evaluates to: a config may read the environment or other files, and a stale protocol would approve code
// against checks that are no longer the project's. Run through the CLI, with verify-protocol installed the way a
// project has it (node_modules/verify-protocol), so the bundle's own copy of the API is what the config imports.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, runCli } from '../helpers/cli.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'verify-fresh-'))
afterAll(async () => {
  await cleanup()
  rmSync(tmp, { recursive: true, force: true })
})

/** A project whose verify.config.ts is `config`, with this package installed in its node_modules. */
function project(name: string, config: string, files: Record<string, string> = {}): string {
  const dir = join(tmp, name)
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(ROOT, join(dir, 'node_modules', 'verify-protocol'), 'dir')
  writeFileSync(join(dir, 'verify.config.ts'), config)
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content)
  return dir
}

const ids = (stdout: string) => [...stdout.matchAll(/^ {2}(\S+)\s+command_success/gm)].map((m) => m[1])

describe('a TypeScript config is evaluated afresh on every run', () => {
  it('reads the environment of each run, not the one a cached load saw', async () => {
    const dir = project(
      'env',
      `import { defineProtocol } from 'verify-protocol'\nconst id: string = process.env.FRESH_CHECK ?? 'none'\nexport default defineProtocol({ checks: { [id]: 'true' } })\n`,
    )
    for (const value of ['first', 'second', 'first']) {
      const result = await runCli(['list'], { cwd: dir, env: { FRESH_CHECK: value } })
      expect(result.code, diagnose(result)).toBe(0)
      expect(ids(result.stdout)).toEqual([value])
    }
    // The transform was cached, under node_modules (outside the files the fingerprint reads).
    expect(readdirSync(join(dir, 'node_modules', '.cache', 'verify-protocol', 'jiti')).length).toBeGreaterThan(0)
    expect(readdirSync(dir).toSorted()).toEqual(['node_modules', 'verify.config.ts'])
  })

  it('reads the files it reads on each run', async () => {
    const dir = project(
      'file',
      `import { readFileSync } from 'node:fs'\nimport { defineProtocol } from 'verify-protocol'\nexport default defineProtocol({ checks: { [readFileSync(new URL('./id.txt', import.meta.url), 'utf8').trim()]: 'true' } })\n`,
      { 'id.txt': 'alpha\n' },
    )
    const before = await runCli(['list'], { cwd: dir })
    expect(ids(before.stdout), diagnose(before)).toEqual(['alpha'])
    writeFileSync(join(dir, 'id.txt'), 'beta\n')
    const after = await runCli(['list'], { cwd: dir })
    expect(ids(after.stdout), diagnose(after)).toEqual(['beta'])
  })

  it('transforms the config again when its content changes', async () => {
    const dir = project('edit', `export default { checks: { one: 'true' } as Record<string, string> }\n`)
    const before = await runCli(['list'], { cwd: dir })
    expect(ids(before.stdout), diagnose(before)).toEqual(['one'])
    writeFileSync(join(dir, 'verify.config.ts'), `export default { checks: { two: 'true' } as Record<string, string> }\n`)
    const after = await runCli(['list'], { cwd: dir })
    expect(ids(after.stdout), diagnose(after)).toEqual(['two'])
  })
})

describe('the transform cache', () => {
  it('is not written with JITI_FS_CACHE=false', async () => {
    const dir = project('no-cache', `export default { checks: { one: 'true' } as Record<string, string> }\n`)
    const result = await runCli(['list'], { cwd: dir, env: { JITI_FS_CACHE: 'false' } })
    expect(ids(result.stdout), diagnose(result)).toEqual(['one'])
    expect(existsSync(join(dir, 'node_modules', '.cache'))).toBe(false)
  })
})

describe('the package as a config imports it from the CLI', () => {
  it('serves the public API and every subpath export', async () => {
    const dir = project(
      'subpaths',
      [
        `import { defineProtocol, STANDARD_CHECKS } from 'verify-protocol'`,
        `import * as strict from 'verify-protocol/presets/strict'`,
        `import node from 'verify-protocol/presets/node'`,
        `import pkg from 'verify-protocol/package.json'`,
        `export default defineProtocol({ checks: { [\`api-\${typeof STANDARD_CHECKS}\`]: 'true', [\`strict-\${typeof strict.default}\`]: 'true', [\`node-\${typeof node}\`]: 'true', [\`pkg-\${pkg.name}\`]: 'true' } })`,
      ].join('\n'),
    )
    const result = await runCli(['list'], { cwd: dir })
    expect(result.code, diagnose(result)).toBe(0)
    expect(ids(result.stdout).toSorted()).toEqual(['api-object', 'node-function', 'pkg-verify-protocol', 'strict-object'])
    expect(existsSync(join(dir, '.verify'))).toBe(false)
  })
})
