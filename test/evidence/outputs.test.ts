// What verify itself writes never makes its own evidence stale (SPEC §7): reporter outputs, evidence files of
// shards run in the checkout, logs beside them. A tracked file is never left out, and a recorded output counts as
// code again once its content is not what verify wrote. fixtures/validity-git: `build` is bound to the workspace,
// `docs` to docs/** only.
import { createHash } from 'node:crypto'
import { utimesSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose } from '../helpers/cli.js'
import { checkLine, editEvidence, project, removeProjects } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`

describe.concurrent("verify's own output is not code", { timeout: 90_000 }, () => {
  it('`--reporter junit=reports/junit.xml` leaves the evidence valid for check and --reuse; editing the report does not', async () => {
    const p = project('validity-git', { git: true })
    const run = await p.verify('run', ['--reporter', 'junit=reports/junit.xml'])
    expect(run.code, diagnose(run)).toBe(0)
    expect(p.read('reports/junit.xml')).toContain('<testsuites')
    expect(p.git('status', '--porcelain')).toContain('?? reports/')
    expect(p.evidence().workspace.outputs).toEqual([{ path: '../reports/junit.xml', sha256: sha256(p.read('reports/junit.xml')) }])
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(0)
    const reuse = await p.verify('run', ['--reuse', '--reporter', 'junit=reports/junit.xml'])
    expect(reuse.code, diagnose(reuse)).toBe(0)
    expect(p.executions()).toHaveLength(2)
    // A later run without the flag still knows the report from the evidence, while it holds what verify wrote.
    const plain = await p.verify('run', ['--reuse'])
    expect(plain.code, diagnose(plain)).toBe(0)
    expect(p.executions()).toHaveLength(2)
    expect((await p.verify('check')).code).toBe(0)

    p.write('reports/junit.xml', `${p.read('reports/junit.xml')}<!-- edited -->\n`)
    const edited = await p.verify('check')
    expect(edited.code, diagnose(edited)).toBe(3)
    expect(checkLine(edited.stdout, 'build')).toContain('reports/junit.xml')
  })

  it("the config's `reporters` with `file` are left out the same way", async () => {
    const p = project('validity-git', { git: true })
    p.write(
      'verify.config.ts',
      p
        .read('verify.config.ts')
        .replace("timeout: '20s',", "timeout: '20s',\n  reporters: ['default', ['junit', { file: 'out/junit.xml' }], ['json', { file: 'out/copy.json' }]],"),
    )
    p.git('add', '-A')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'reporters')
    const run = await p.verify('run')
    expect(run.code, diagnose(run)).toBe(0)
    // The json reporter's file is a copy of the evidence: recorded without a hash, recognised as evidence of this run.
    expect(p.evidence().workspace.outputs?.toSorted((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: '../out/copy.json' },
      { path: '../out/junit.xml', sha256: sha256(p.read('out/junit.xml')) },
    ])
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(0)
    p.write('out/copy.json', p.read('out/copy.json').replace(/"runId": "[^"]+"/, '"runId": "another run"'))
    const edited = await p.verify('check')
    expect(edited.code, diagnose(edited)).toBe(3)
    expect(checkLine(edited.stdout, 'build')).toContain('out/copy.json')
  })

  it('two shards written into the checkout merge, and the merged evidence checks valid', async () => {
    const p = project('validity-git', { git: true })
    for (const i of [1, 2]) {
      const shard = await p.verify('run', ['--shard', `${i}/2`, '--evidence', `shard-${i}.json`])
      expect(shard.code, diagnose(shard)).toBe(0)
    }
    expect(p.git('status', '--porcelain')).toMatch(/\?\? shard-1\.json/)
    const [one, two] = [1, 2].map((i) => JSON.parse(p.read(`shard-${i}.json`)) as { workspace: { fingerprint: string } })
    expect(two?.workspace.fingerprint).toBe(one?.workspace.fingerprint)
    for (const i of [1, 2]) expect((await p.verify('check', ['--evidence', `shard-${i}.json`])).code).toBe(3) // a shard alone is incomplete
    const merged = await p.verify('merge', ['shard-1.json', 'shard-2.json'])
    expect(merged.code, diagnose(merged)).toBe(0)
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(0)
    const beside = await p.verify('merge', ['shard-1.json', 'shard-2.json', '--evidence', 'merged.json'])
    expect(beside.code, diagnose(beside)).toBe(0)
    expect((await p.verify('check', ['--evidence', 'merged.json'])).code).toBe(0)
    // The shards' files are outputs only while they hold what verify wrote.
    p.write('shard-1.json', `${p.read('shard-1.json')} `)
    expect((await p.verify('check')).code).toBe(3)
  })

  it('evidence kept in the project folder: its run/ and other files stay code, and verify removes none of them', async () => {
    const p = project('validity-git', { git: true })
    // Files of the project's own, beside where the evidence goes: a tracked one and an untracked one in run/.
    p.write('run/settings.json', '{ "mode": "strict" }\n')
    p.git('add', 'run/settings.json')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'run settings')
    p.write('run/helper.json', '{ "threshold": 80 }\n')
    const old = new Date(Date.now() - 60_000)
    for (const file of ['run/settings.json', 'run/helper.json']) utimesSync(p.path(file), old, old)
    const run = await p.verify('run', ['--evidence', 'evidence.json'])
    expect(run.code, diagnose(run)).toBe(0)
    expect(p.read('run/settings.json')).toBe('{ "mode": "strict" }\n')
    expect(p.read('run/helper.json')).toBe('{ "threshold": 80 }\n')
    p.write('run/helper.json', '{ "threshold": 10 }\n')
    const check = await p.verify('check', ['--evidence', 'evidence.json'])
    expect(check.code, diagnose(check)).toBe(3)
    expect(checkLine(check.stdout, 'build')).toContain('run/helper.json')
  })

  it.each(['reports/verify.json', 'notes/evidence.json'])(
    'evidence outside .verify (%s): its first run writes logs beside it, and no warning says the workspace changed',
    async (evidence) => {
      const p = project('validity-git', { git: true })
      const run = await p.verify('run', ['--evidence', evidence])
      expect(run.code, diagnose(run)).toBe(0)
      expect(p.read(`${evidence.split('/')[0]}/logs/build.log`)).toBeTruthy()
      expect(run.stdout + run.stderr).not.toContain('changed the workspace')
      expect(run.stdout + run.stderr).not.toContain('tracked by git')
      expect((await p.verify('check', ['--evidence', evidence])).code).toBe(0)
    },
  )

  it('a check that writes beside evidence kept outside .verify changed the workspace; nothing is called tracked that git does not track', async () => {
    const p = project('validity-git', { git: true })
    p.write('verify.config.ts', "export default { checks: { build: 'mkdir -p reports && echo x > reports/extra.txt' } }\n")
    p.git('add', '-A')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'a check that writes')
    const run = await p.verify('run', ['--evidence', 'reports/verify.json'])
    expect(run.stdout + run.stderr).toContain('The checks changed the workspace while they ran (reports/extra.txt)')
    expect(run.stdout + run.stderr).not.toContain('tracked by git')
  })

  it('outside git, a check that writes into the workspace is told about inputs, not .gitignore (which changes nothing there)', async () => {
    const inGit = project('validity-git', { git: true })
    const outside = project('validity-git')
    for (const p of [inGit, outside]) p.write('verify.config.ts', "export default { checks: { build: 'mkdir -p dist && echo x > dist/out.txt' } }\n")
    const there = await inGit.verify('run')
    expect(there.stdout + there.stderr).toMatch(/will read as stale: add generated files to \.gitignore\./)
    const here = await outside.verify('run')
    expect(here.stdout + here.stderr).toMatch(/will read as stale: outside git every file counts, so give the checks `inputs`/)
    // A tracked file the check rewrites: .gitignore cannot help there, and the advice says what can.
    inGit.write('verify.config.ts', "export default { checks: { build: 'echo rewritten > src/app.ts' } }\n")
    inGit.git('add', '-A')
    inGit.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'a check that rewrites a tracked file')
    const tracked = await inGit.verify('run')
    expect(tracked.stdout + tracked.stderr).toMatch(/the checks rewrote files git tracks \(src\/app\.ts\), which \.gitignore cannot leave out/)
  })

  it('a check that makes the folder a git repository, or removes its repository, changed what the evidence is bound to', async () => {
    const outside = project('validity-git')
    outside.write('verify.config.ts', "export default { checks: { build: 'git init -q' } }\n")
    const made = await outside.verify('run')
    expect(made.stdout + made.stderr).toContain('The checks changed the workspace while they ran')
    const inGit = project('validity-git', { git: true })
    inGit.write('verify.config.ts', "export default { checks: { build: 'rm -rf .git' } }\n")
    const removed = await inGit.verify('run')
    expect(removed.stdout + removed.stderr).toContain('The checks changed the workspace while they ran')
  })

  it('a .verify/ that git tracks is named as the cause, with how to untrack it', async () => {
    const p = project('validity-git', { git: true })
    expect((await p.verify('run')).code).toBe(0)
    // A log as an earlier run wrote it: the next run writes it anew.
    p.write('.verify/logs/build.log', 'the output of an earlier run\n')
    p.git('add', '-f', '.verify')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'committed by mistake')
    const run = await p.verify('run')
    expect(run.stdout + run.stderr).toContain("verify's own files are tracked by git (.verify/")
    expect(run.stdout + run.stderr).toContain('git rm -r --cached .verify')
    expect(run.stdout + run.stderr).not.toContain('The checks changed the workspace')
  })

  it('an evidence file committed as proof is named, in the run and in `verify check`, whatever changed during the run', async () => {
    const p = project('validity-git', { git: true })
    expect((await p.verify('run')).code).toBe(0)
    p.git('add', '-f', '.verify/evidence.json')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'the evidence as proof')
    const run = await p.verify('run')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("verify's own files are tracked by git (.verify/evidence.json)")
    const check = await p.verify('check')
    expect(check.code).toBe(3)
    expect(check.stdout).toContain("verify's own files are tracked by git (.verify/evidence.json)")
    expect(check.stdout).toContain('git rm -r --cached .verify')
  })

  it('an evidence file cannot make verify leave out a tracked file, or an untracked one whose content changed', async () => {
    const p = project('validity-git', { git: true })
    const run = await p.verify('run')
    expect(run.code, diagnose(run)).toBe(0)
    p.write('src/app.ts', 'export const app = "changed after the run"\n')
    p.write('src/extra.test.ts', 'throw new Error("a new failing test")\n')
    editEvidence(p, (file) => {
      file.workspace.outputs = [
        { path: '../src/app.ts', sha256: sha256(p.read('src/app.ts')) },
        { path: '../src/extra.test.ts', sha256: sha256('what verify wrote') },
      ]
    })
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(3)
    expect(checkLine(check.stdout, 'build')).toContain('src/app.ts')
    expect(checkLine(check.stdout, 'build')).toContain('src/extra.test.ts')
  })

  it('with a signing key, the evidence that records the reports is signed and passes --require-signature', async () => {
    const p = project('validity-git', { git: true })
    const key = { VERIFY_SIGNING_KEY: 'outputs-test-key' }
    const run = await p.verify('run', ['--reporter', 'default', '--reporter', 'junit=reports/junit.xml'], { env: key })
    expect(run.code, diagnose(run)).toBe(0)
    expect(p.evidence().workspace.outputs).toHaveLength(1)
    const check = await p.verify('check', ['--require-signature'], { env: key })
    expect(check.code, diagnose(check)).toBe(0)
  })

  it('with a signing key, outputs listed in an unsigned evidence file are not honoured by --reuse', async () => {
    const p = project('validity-git', { git: true })
    const key = { VERIFY_SIGNING_KEY: 'outputs-test-key' }
    const run = await p.verify('run', [], { env: key })
    expect(run.code, diagnose(run)).toBe(0)
    p.write('src/extra.ts', 'export const extra = 1\n')
    editEvidence(p, (file) => {
      file.workspace.outputs = [{ path: '../src/extra.ts', sha256: sha256(p.read('src/extra.ts')) }]
      delete file.signature
    })
    const reuse = await p.verify('run', ['--reuse'], { env: key })
    expect(reuse.code, diagnose(reuse)).toBe(0)
    expect(p.executions().toSorted()).toEqual(['build', 'build', 'docs', 'docs'])
    expect(p.evidence().workspace.outputs).toBeUndefined()
  })
})
