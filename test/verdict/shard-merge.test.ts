// Shards and `verify merge` under the acceptance rule (SPEC §6.1, §12): a shard's own file never approves the protocol
// (nor passes `verify check`), and `verify merge` judges every shard against the checkout it runs in, the clock and,
// with a key, the signatures — so signed shards of an older commit merged onto a newer one do not approve.
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup } from '../helpers/cli.js'
import { writeFileSync } from 'node:fs'
import type { EvidenceFile } from '../../src/types.js'
import { project, removeProjects, verifyInProcess, type Project } from '../helpers/project.js'

function editShard(p: Project, file: string, edit: (f: EvidenceFile) => void): void {
  const data = JSON.parse(p.read(file)) as EvidenceFile
  edit(data)
  writeFileSync(p.path(file), JSON.stringify(data))
}

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const KEY = 'merge-signing-key-93be'

/** Two connected checks (one share) and one on its own: `--shard 1/2` runs a and b, `--shard 2/2` runs c. */
function shardedProject(): Project {
  const p = project('validity-manual', { git: true })
  p.write(
    'verify.config.ts',
    `export default { timeout: '20s', checks: { a: 'sh bin/count.sh', b: { command: 'sh bin/count.sh', dependsOn: ['a'] }, c: 'sh bin/count.sh' } }\n`,
  )
  p.git('add', '-A')
  p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'three checks')
  return p
}

async function runShards(p: Project, env: Record<string, string> = {}): Promise<string[]> {
  const files = ['.verify/s1.json', '.verify/s2.json']
  for (const [i, file] of files.entries()) {
    const run = await verifyInProcess(p, ['run', '--shard', `${i + 1}/2`, '--evidence', file], env)
    expect(run.code, run.stdout + run.stderr).toBe(0)
  }
  return files
}

describe('a shard’s own evidence', { timeout: 90_000 }, () => {
  it('never carries summary.verdict "approved", even when its share holds every check', async () => {
    const p = project('validity-manual', { git: true })
    p.write('verify.config.ts', `export default { checks: { a: 'sh bin/count.sh', b: { command: 'sh bin/count.sh', dependsOn: ['a'] } } }\n`)
    const run = await verifyInProcess(p, ['run', '--shard', '1/2', '--evidence', '.verify/s1.json'])
    expect(run.code).toBe(0)
    const file = JSON.parse(p.read('.verify/s1.json')) as { summary: { verdict: string }; shard: { verdict: string; checks: string[] } }
    expect(file.shard.checks).toEqual(['a', 'b'])
    expect(file.shard.verdict).toBe('approved')
    expect(file.summary.verdict).not.toBe('approved')
    // Nor does `verify check` approve from it: only `verify merge` turns shards into the protocol's evidence.
    const check = await verifyInProcess(p, ['check', '--evidence', '.verify/s1.json'])
    expect(check.code, check.stdout).toBe(3)
    expect(check.stdout).toMatch(/verify merge/)
  })

  it("says the share's verdict as its verdict; an empty share (more shards than checks) has nothing to run, exit 0", async () => {
    const p = shardedProject()
    const share = await verifyInProcess(p, ['run', '--shard', '2/2', '--evidence', '.verify/s2.json', '--no-color'])
    expect(share.code).toBe(0)
    expect(share.stdout).toMatch(/Verdict APPROVED for shard 2\/2's share \(the protocol's: incomplete, until the shards are merged\)/)
    const empty = await verifyInProcess(p, ['run', '--shard', '3/3', '--evidence', '.verify/s3.json', '--no-color'])
    expect(empty.code, empty.stdout).toBe(0)
    expect(empty.stdout).toMatch(/Shard 3\/3 has none of the 3 checks \(more shards than groups of checks that run together\): nothing to run/)
    expect(empty.stdout).not.toMatch(/No check ran|INCOMPLETE for/)
    expect((JSON.parse(p.read('.verify/s3.json')) as { shard: { verdict: string } }).shard.verdict).toBe('approved')
  })
})

describe('verify merge judges every shard with the acceptance rule', { timeout: 90_000 }, () => {
  it('approves shards of the code it runs on', async () => {
    const p = shardedProject()
    const files = await runShards(p, { VERIFY_SIGNING_KEY: KEY })
    const merged = await verifyInProcess(p, ['merge', ...files, '--evidence', '.verify/merged.json'], { VERIFY_SIGNING_KEY: KEY })
    expect(merged.code, merged.stdout + merged.stderr).toBe(0)
    expect((await verifyInProcess(p, ['check', '--evidence', '.verify/merged.json', '--require-signature'], { VERIFY_SIGNING_KEY: KEY })).code).toBe(0)
  })

  it('signed shards of an older commit merged onto a newer one do not approve', async () => {
    const p = shardedProject()
    const files = await runShards(p, { VERIFY_SIGNING_KEY: KEY })
    p.write('src/new.ts', 'export const changed = true\n')
    p.git('add', '-A')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'newer code')
    const merged = await verifyInProcess(p, ['merge', ...files, '--evidence', '.verify/merged.json'], { VERIFY_SIGNING_KEY: KEY })
    expect(merged.code, merged.stdout + merged.stderr).toBe(3)
    expect(merged.stdout).toMatch(/code changed/)
    expect(JSON.parse(p.read('.verify/merged.json')).summary.verdict).toBe('incomplete')
  })

  it('shards older than maxAge do not approve', async () => {
    const p = shardedProject()
    const files = await runShards(p)
    const old = new Date(Date.now() - 2 * 60 * 60_000).toISOString()
    for (const file of files) {
      editShard(p, file, (f) => {
        f.startedAt = old
        f.finishedAt = old
        for (const check of f.checks) {
          if (!check.evidence) continue
          check.evidence.timestamp = old
          ;(check.evidence as { runFinishedAt?: string }).runFinishedAt = old
        }
      })
    }
    const merged = await verifyInProcess(p, ['merge', ...files, '--evidence', '.verify/merged.json'])
    expect(merged.code, merged.stdout + merged.stderr).toBe(3)
    expect(merged.stdout).toMatch(/older than maxAge/)
  })

  it('a shard run under another check definition does not approve against the checkout’s config', async () => {
    const p = shardedProject()
    const files = await runShards(p)
    p.write(
      'verify.config.ts',
      `export default { timeout: '20s', checks: { a: 'sh bin/count.sh', b: { command: 'sh bin/count.sh --strict', dependsOn: ['a'] }, c: 'sh bin/count.sh' } }\n`,
    )
    const merged = await verifyInProcess(p, ['merge', ...files, '--evidence', '.verify/merged.json'])
    expect(merged.code, merged.stdout + merged.stderr).not.toBe(0)
  })
})
