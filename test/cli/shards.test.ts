// Shards: every check in exactly one share, dependencies together, the same shares every time; `verify merge`
// gives one verdict and refuses evidence of another protocol or other code.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resolveProtocol } from '../../src/config/resolve.js'
import { partitionShards, parseShard } from '../../src/runner/shard.js'
import type { EvidenceFile } from '../../src/types.js'
import { cleanup, runCli, sandbox } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'

afterAll(cleanup)

function protocolOf(checks: Record<string, unknown>) {
  return resolveProtocol({ checks }, { rootDir: '/project' })
}

const GROUPED = {
  build: 'true',
  lint: 'true',
  test: { command: 'true', dependsOn: ['build'] },
  docs: 'true',
  e2e: { command: 'true', dependsOn: ['test'] },
  links: { command: 'true', dependsOn: ['docs'] },
  audit: { command: 'true', required: false },
}

describe('partitionShards', () => {
  it('puts every check in exactly one shard, for any shard count', () => {
    const { checks } = protocolOf(GROUPED)
    for (let total = 1; total <= 9; total++) {
      const shards = partitionShards(checks, total)
      expect(shards).toHaveLength(total)
      expect(shards.flat().toSorted()).toEqual(checks.map((c) => c.id).toSorted())
    }
  })

  it('keeps a check in the shard of what it depends on, transitively', () => {
    const { checks } = protocolOf(GROUPED)
    for (let total = 2; total <= 5; total++) {
      const shards = partitionShards(checks, total)
      const shardOf = (id: string) => shards.findIndex((ids) => ids.includes(id))
      for (const check of checks) for (const dep of check.dependsOn) expect(shardOf(check.id)).toBe(shardOf(dep))
    }
  })

  it('gives the same shares every time and keeps declaration order inside a shard', () => {
    const { checks } = protocolOf(GROUPED)
    expect(partitionShards(checks, 3)).toEqual(partitionShards(checks, 3))
    expect(partitionShards(checks, 3)).toEqual([
      ['build', 'test', 'e2e'],
      ['docs', 'links'],
      ['lint', 'audit'],
    ])
  })

  it('balances independent checks by count', () => {
    const { checks } = protocolOf(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`c${i}`, 'true'])))
    expect(partitionShards(checks, 3).map((s) => s.length)).toEqual([4, 3, 3])
  })

  it('rejects a malformed --shard', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, total: 3 })
    for (const bad of ['0/3', '4/3', '3', 'a/b', '1/0', '']) expect(() => parseShard(bad)).toThrow(/--shard expects i\/n/)
  })
})

// A project outside git (its fingerprint is a hash of its files; .verify/ is left out), so concurrent edits of this
// repository cannot make the shards see different code.
function project(checks: string) {
  const box = sandbox({ inProcess: true })
  const dir = join(box.dir, 'project')
  mkdirSync(join(dir, '.verify'), { recursive: true })
  writeFileSync(join(dir, 'verify.config.mjs'), `export default { checks: ${checks} }\n`)
  const evidence = (name: string) => join(dir, '.verify', name)
  const run = (args: string[]) => runCliInProcess([...args, '--no-color'], { cwd: dir })
  // `verify merge` as the bin runs it, once; the rest of the matrix runs in process.
  const spawned = (args: string[]) => runCli([...args, '--no-color'], { cwd: dir })
  return { dir, evidence, run, spawned, read: (name: string) => JSON.parse(readFileSync(evidence(name), 'utf8')) as EvidenceFile }
}

const CHECKS = `{ a: 'true', b: { command: 'true', dependsOn: ['a'] }, c: 'true', d: 'true', e: { command: 'true', dependsOn: ['d'] } }`

describe('verify run --shard and verify merge', () => {
  it('runs each share, never approves from a shard, and merges into one approved verdict', async () => {
    const p = project(CHECKS)
    for (const i of [1, 2, 3]) {
      const result = await p.run(['run', '--shard', `${i}/3`, '--evidence', p.evidence(`s${i}.json`)])
      expect(result.code, result.stderr).toBe(0)
      const file = p.read(`s${i}.json`)
      expect(file.summary.verdict).toBe('incomplete')
      expect(file.shard).toMatchObject({ index: i, total: 3, verdict: 'approved' })
      expect(result.stdout).toContain(`Shard ${i}/3`)
    }
    expect([1, 2, 3].flatMap((i) => p.read(`s${i}.json`).shard?.checks ?? []).toSorted()).toEqual(['a', 'b', 'c', 'd', 'e'])

    const merged = await p.spawned(['merge', p.evidence('s1.json'), p.evidence('s2.json'), p.evidence('s3.json'), '--evidence', p.evidence('merged.json')])
    expect(merged.code, merged.stderr).toBe(0)
    const file = p.read('merged.json')
    expect(file.summary.verdict).toBe('approved')
    expect(file.shard).toBeUndefined()
    expect(file.checks.map((c) => c.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed'])
    // The merged file is evidence like any other: `verify check` accepts it for the same code.
    const checked = await p.run(['check', '--evidence', p.evidence('merged.json')])
    expect(checked.code, checked.stdout).toBe(0)
    // Merging into one of the shards would lose it: refused, the shard left as it was.
    const shard = readFileSync(p.evidence('s1.json'), 'utf8')
    const over = await p.run(['merge', p.evidence('s1.json'), p.evidence('s2.json'), p.evidence('s3.json'), '--evidence', p.evidence('s1.json')])
    expect(over.code).toBe(2)
    expect(over.stderr).toContain('it is one of the shards being merged')
    expect(readFileSync(p.evidence('s1.json'), 'utf8')).toBe(shard)
    // Nor into a file of the project's own.
    const mine = join(p.dir, 'notes.md')
    writeFileSync(mine, '# keep me\n')
    const notes = await p.run(['merge', p.evidence('s1.json'), p.evidence('s2.json'), p.evidence('s3.json'), '--evidence', mine])
    expect(notes.code).toBe(2)
    expect(notes.stderr).toContain('is not a verify evidence file: verify does not overwrite it')
    expect(readFileSync(mine, 'utf8')).toBe('# keep me\n')
  })

  it('a shard whose own check fails exits 1; merging a missing shard is incomplete', async () => {
    const p = project(`{ a: 'true', b: 'false', c: 'true' }`)
    const codes = []
    for (const i of [1, 2, 3]) codes.push((await p.run(['run', '--shard', `${i}/3`, '--evidence', p.evidence(`s${i}.json`)])).code)
    expect(codes).toEqual([0, 1, 0])
    const partial = await p.run(['merge', p.evidence('s1.json'), p.evidence('s3.json'), '--evidence', p.evidence('m.json')])
    expect(partial.code).toBe(3)
    expect(partial.stdout).toContain('Only 2 of 3 shards were merged')
    const all = await p.run(['merge', p.evidence('s1.json'), p.evidence('s2.json'), p.evidence('s3.json'), '--evidence', p.evidence('m.json')])
    expect(all.code).toBe(1)
    expect(p.read('m.json').summary.verdict).toBe('rejected')
  })

  it('refuses files of another protocol definition, other code, duplicates, non-shards and altered signed shards', async () => {
    const p = project(CHECKS)
    const key = { VERIFY_SIGNING_KEY: 'merge-test-key' }
    for (const i of [1, 2]) {
      await runCliInProcess(['run', '--shard', `${i}/2`, '--evidence', p.evidence(`s${i}.json`), '--no-color'], { cwd: p.dir, env: key })
    }
    await p.run(['run', '--evidence', p.evidence('full.json')])
    const variant = (name: string, change: (file: EvidenceFile) => void) => {
      const file = p.read('s2.json')
      change(file)
      writeFileSync(p.evidence(name), JSON.stringify(file))
      return p.evidence(name)
    }
    const cases: [string, string, RegExp][] = [
      ['digest', variant('digest.json', (f) => (f.protocol.digest = `sha256:${'0'.repeat(64)}`)), /different protocol definition/],
      ['workspace', variant('ws.json', (f) => (f.workspace.fingerprint = `sha256:${'0'.repeat(64)}`)), /verified different code/],
      ['duplicate', p.evidence('s1.json'), /both shard 1\/2/],
      ['full run', p.evidence('full.json'), /not a shard's evidence/],
    ]
    for (const [name, second, message] of cases) {
      const result = await p.run(['merge', p.evidence('s1.json'), second, '--evidence', p.evidence('out.json')])
      expect(result.code, name).toBe(2)
      expect(result.stderr, name).toMatch(message)
      expect(result.stderr).not.toMatch(/\n\s+at /)
    }
    const altered = variant('altered.json', (f) => ((f.checks[0] as { reason: string | null }).reason = 'edited'))
    const result = await runCliInProcess(['merge', p.evidence('s1.json'), altered, '--evidence', p.evidence('out.json'), '--no-color'], {
      cwd: p.dir,
      env: key,
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/signature does not match/)
    // With a key, an unsigned shard is refused too: the merged file is signed, so it must not launder one.
    const unsigned = variant('unsigned.json', (f) => delete f.signature)
    const laundered = await runCliInProcess(['merge', p.evidence('s1.json'), unsigned, '--evidence', p.evidence('out.json'), '--no-color'], {
      cwd: p.dir,
      env: key,
    })
    expect(laundered.code).toBe(2)
    expect(laundered.stderr).toMatch(/not signed/)
  })
})
