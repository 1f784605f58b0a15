// The gate a change cannot weaken (SPEC §8): `verify check --protocol-from <ref>` (and `verify merge`) judge the
// evidence against the protocol as the config at that git ref defines it, so a change that weakens or removes a check
// in its own config is not approved. The protocol loaded from the ref has the same check digests as the same config in
// the checkout (digests use paths relative to the project's folder).
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadProtocolFromRef } from '../../src/config/protocol-from.js'
import { loadVerifyConfig } from '../../src/config/index.js'
import { checkDigest, protocolDigest } from '../../src/evidence/digest.js'
import { cleanup } from '../helpers/cli.js'
import { project, removeProjects, verifyInProcess, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const COMMIT = ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m']
const TRUSTED = `import { defineProtocol } from 'verify-protocol'
export default defineProtocol({
  timeout: '20s',
  checks: {
    build: 'sh bin/count.sh',
    test: { command: 'sh ../bin/count.sh', cwd: 'src', inputs: ['src/**'] },
  },
})
`

/** A config whose function check gates on a constant beside it. */
const gated = (min: number) =>
  `import { readFileSync } from 'node:fs'\nimport { defineProtocol } from 'verify-protocol'\nconst MIN = ${min}\nexport default defineProtocol({\n  timeout: '20s',\n  checks: {\n    coverage: { run: () => Number(readFileSync('cov.txt', 'utf8')) >= MIN },\n  },\n})\n`

/** A repository whose `main` holds the trusted config, checked out on a branch `change`. */
function repository(): Project {
  const p = project('validity-manual', { git: true })
  p.write('verify.config.ts', TRUSTED)
  p.git('add', '-A')
  p.git(...COMMIT, 'trusted config')
  p.git('checkout', '-q', '-b', 'change')
  return p
}

/**
 * The change records passing evidence (and, with `plainCheckPasses`, `verify check` without the gate approves it), yet
 * the gate finds the check's definition changed: exit 3, the check stale.
 */
async function expectStaleUnderGate(p: Project, id: string, plainCheckPasses = false): Promise<void> {
  expect((await verifyInProcess(p, ['run'])).code).toBe(0)
  if (plainCheckPasses) expect((await verifyInProcess(p, ['check'])).code).toBe(0)
  const gate = await verifyInProcess(p, ['check', '--protocol-from', 'main'])
  expect(gate.code, gate.stdout).toBe(3)
  expect(gate.stdout).toMatch(new RegExp(`${id}\\s+stale — the check's definition changed`))
}

describe('loading the protocol from a git ref', { timeout: 90_000 }, () => {
  it('gives the same check digests, paths and protocol digest as the same config in the checkout', async () => {
    const p = repository()
    const here = await loadVerifyConfig({ cwd: p.dir })
    const there = await loadProtocolFromRef('main', { cwd: p.dir })
    expect(there.rootDir).toBe(here.rootDir)
    expect(there.configFile).toBe(here.configFile)
    expect(there.protocol.checks.map((c) => c.cwd)).toEqual(here.protocol.checks.map((c) => c.cwd))
    expect(there.protocol.checks.map((c) => checkDigest(c, there.protocol))).toEqual(here.protocol.checks.map((c) => checkDigest(c, here.protocol)))
    expect(protocolDigest(there.protocol)).toBe(protocolDigest(here.protocol))
  })

  it('unknown ref, a ref without a config, or no repository: a clear usage error (exit 2)', async () => {
    const p = repository()
    const unknown = await verifyInProcess(p, ['check', '--protocol-from', 'origin/nowhere'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/origin\/nowhere/)
    expect(unknown.stderr).toMatch(/not a git ref|unknown/i)
    expect(unknown.stderr).not.toMatch(/unexpected error/)

    p.git('checkout', '-q', '--orphan', 'bare')
    p.git('rm', '-rq', '--cached', '.')
    p.git(...COMMIT, 'nothing', '--allow-empty')
    p.git('checkout', '-q', '-f', 'change')
    const empty = await verifyInProcess(p, ['check', '--protocol-from', 'bare'])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/no verify config/i)
    expect(empty.stderr).toMatch(/bare/)

    const outside = project('validity-corrupt')
    const noGit = await verifyInProcess(outside, ['check', '--protocol-from', 'main'])
    expect(noGit.code).toBe(2)
    expect(noGit.stderr).toMatch(/git repository/)
  })
})

describe('verify check --protocol-from', { timeout: 90_000 }, () => {
  it('approves evidence recorded under the trusted protocol', async () => {
    const p = repository()
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    const check = await verifyInProcess(p, ['check', '--protocol-from', 'main'])
    expect(check.code, check.stdout + check.stderr).toBe(0)
  })

  it('a change that weakens a check in its own config is not approved', async () => {
    const p = repository()
    p.write('verify.config.ts', TRUSTED.replace("'sh bin/count.sh'", "'true'"))
    p.git(...COMMIT, 'weaken build', '-a')
    await expectStaleUnderGate(p, 'build', true)
  })

  it('a change that lets a check retry (a flaky failure passes on a later attempt) is not approved', async () => {
    const p = repository()
    p.write('verify.config.ts', TRUSTED.replace("build: 'sh bin/count.sh',", "build: { command: 'sh bin/count.sh', retries: 3 },"))
    p.git(...COMMIT, 'retry build', '-a')
    await expectStaleUnderGate(p, 'build')
  })

  it('an ignored .verifyrc (or any ignored file but node_modules) in the checkout never joins the trusted config', async () => {
    const p = repository()
    // The change ignores a .verifyrc and writes one that makes the failing build optional.
    p.write('.gitignore', `${p.read('.gitignore')}.verifyrc\n`)
    p.git(...COMMIT, 'ignore .verifyrc', '-a')
    p.write('.verifyrc', 'checks.build.required=false\n')
    p.write('ignored/fail-build', '')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    const gate = await verifyInProcess(p, ['check', '--protocol-from', 'main'])
    expect(gate.code, gate.stdout).toBe(1)
    expect(gate.stdout).toMatch(/build\s+failed/)
  })

  it('a function check whose closure the change weakened is not approved, though its source text is the same', async () => {
    const p = repository()
    p.write('verify.config.ts', gated(5))
    p.write('cov.txt', '9')
    p.git('checkout', '-q', 'main')
    p.git('add', '-A')
    p.git(...COMMIT, 'coverage gate at 5')
    p.git('checkout', '-q', '-B', 'change')
    p.write('verify.config.ts', gated(0))
    p.write('cov.txt', '1')
    p.git(...COMMIT, 'lower the bar', '-a')
    await expectStaleUnderGate(p, 'coverage')
  })

  it('a change that removes a check from its own config is not approved', async () => {
    const p = repository()
    p.write('verify.config.ts', TRUSTED.replace(/\n\s+test: .*\n/, '\n'))
    p.git(...COMMIT, 'drop test', '-a')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    const gate = await verifyInProcess(p, ['check', '--protocol-from', 'main', '--json'])
    expect(gate.code).toBe(3)
    const json = JSON.parse(gate.stdout) as { checks: { id: string; valid: boolean }[] }
    expect(json.checks.find((c) => c.id === 'test')?.valid).toBe(false)
  })

  it("a workspace package the trusted config extends is read as the ref holds it: the change's edit of it never runs", async () => {
    const p = project('validity-manual', { git: true })
    // As npm, yarn and pnpm install a workspace package: a link in node_modules to its folder in the repository.
    p.write('packages/preset/package.json', JSON.stringify({ name: '@acme/verify-preset', version: '1.0.0', type: 'module', main: 'index.mjs' }))
    // Its own dependency, installed in its own node_modules (ignored, so not in the ref's tree).
    p.write('packages/preset/node_modules/preset-dep/package.json', JSON.stringify({ name: 'preset-dep', type: 'module', main: 'index.mjs' }))
    p.write('packages/preset/node_modules/preset-dep/index.mjs', "export const gate = 'sh bin/count.sh'\n")
    p.write('packages/preset/index.mjs', "import { gate } from 'preset-dep'\nexport default { checks: { gate } }\n")
    mkdirSync(p.path('node_modules/@acme'))
    symlinkSync(join('..', '..', 'packages', 'preset'), p.path('node_modules/@acme/verify-preset'))
    p.write(
      'verify.config.ts',
      "import { defineProtocol } from 'verify-protocol'\nexport default defineProtocol({ extends: ['@acme/verify-preset'], checks: { build: 'sh bin/count.sh' } })\n",
    )
    p.git('add', '-A')
    p.git(...COMMIT, 'a workspace preset')
    p.git('checkout', '-q', '-b', 'change')
    // The change drops the preset's check, and its code leaves a mark when it runs.
    const mark = join(p.outside, 'preset-ran')
    p.write(
      'packages/preset/index.mjs',
      `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(mark)}, 'ran')\nexport default { checks: {} }\n`,
    )
    p.git(...COMMIT, 'drop the gate', '-a')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    rmSync(mark, { force: true })
    const gate = await verifyInProcess(p, ['check', '--protocol-from', 'main'])
    expect(gate.code, gate.stdout + gate.stderr).toBe(3)
    expect(gate.stdout).toMatch(/gate\s+pending — no evidence recorded/)
    expect(existsSync(mark)).toBe(false)
  })

  it('a workspace preset that exports build output (not in git) is a config error that says why and what to do', async () => {
    const p = project('validity-manual', { git: true })
    p.write('packages/preset/package.json', JSON.stringify({ name: '@acme/built', version: '1.0.0', type: 'module', exports: { '.': './dist/index.js' } }))
    p.write('packages/preset/.gitignore', 'dist/\n')
    p.write('packages/preset/dist/index.js', "export default { checks: { gate: 'sh bin/count.sh' } }\n")
    mkdirSync(p.path('node_modules/@acme'))
    symlinkSync(join('..', '..', 'packages', 'preset'), p.path('node_modules/@acme/built'))
    p.write('verify.config.ts', "export default { extends: ['@acme/built'], checks: { build: 'sh bin/count.sh' } }\n")
    p.git('add', '-A')
    p.git(...COMMIT, 'a built preset')
    expect((await verifyInProcess(p, ['run'])).code).toBe(0)
    const gate = await verifyInProcess(p, ['check', '--protocol-from', 'main'])
    expect(gate.code, gate.stdout + gate.stderr).toBe(2)
    expect(gate.stderr).toMatch(
      /packages\/preset is a workspace package, read as main holds it: what git ignores there \(build output such as dist\/\) is not in it/,
    )
  })

  it('a change to the package.json script a check runs is a change of its definition: not approved', async () => {
    const p = repository()
    p.write('package.json', JSON.stringify({ name: 'p', private: true, scripts: { build: 'sh bin/count.sh', pretest: 'true' } }, null, 2))
    p.write('verify.config.ts', TRUSTED.replace("'sh bin/count.sh'", "'npm run --silent build'"))
    p.git('add', '-A')
    p.git(...COMMIT, 'build through its script', '--amend')
    p.git('branch', '-f', 'main')
    p.write('ignored/fail-build', '')
    p.write('package.json', JSON.stringify({ name: 'p', private: true, scripts: { build: 'true', pretest: 'true' } }, null, 2))
    p.git(...COMMIT, 'weaken the build script', '-a')
    await expectStaleUnderGate(p, 'build', true)
    // What the script the check does not run says stays out of its definition.
    const here = await loadVerifyConfig({ cwd: p.dir })
    p.write('package.json', JSON.stringify({ name: 'p', private: true, scripts: { build: 'true', pretest: 'false' } }, null, 2))
    const again = await loadVerifyConfig({ cwd: p.dir })
    expect(checkDigest(again.protocol.checks[0]!, again.protocol)).toBe(checkDigest(here.protocol.checks[0]!, here.protocol))
  })

  it('verify merge --protocol-from judges the shards against the trusted protocol', async () => {
    const p = repository()
    p.write('verify.config.ts', TRUSTED.replace("'sh bin/count.sh'", "'true'"))
    p.git(...COMMIT, 'weaken build', '-a')
    for (const i of [1, 2]) expect((await verifyInProcess(p, ['run', '--shard', `${i}/2`, '--evidence', `.verify/s${i}.json`])).code).toBe(0)
    const plain = await verifyInProcess(p, ['merge', '.verify/s1.json', '.verify/s2.json', '--evidence', '.verify/m.json'])
    expect(plain.code, plain.stdout + plain.stderr).toBe(0)
    const gate = await verifyInProcess(p, ['merge', '.verify/s1.json', '.verify/s2.json', '--evidence', '.verify/m.json', '--protocol-from', 'main'])
    expect(gate.code, gate.stdout + gate.stderr).toBe(3)
  })
})
