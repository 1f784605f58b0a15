// Workspace binding end to end (SPEC §6.1, §7): evidence recorded by `verify run` in a real git repository stays
// valid for `verify check` exactly as long as the code (or the check's inputs), the check's definition and the clock
// allow. fixtures/validity-git: `build` is bound to the whole workspace, `docs` to docs/** only.
import { chmodSync, readFileSync, renameSync, unlinkSync, utimesSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanup, diagnose, STACK_LINE, type CliResult } from '../helpers/cli.js'
import { checkLine, editEvidence, project, removeProjects, type Project } from '../helpers/project.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

interface Judged {
  verdict: string
  checks: { id: string; status: string; valid: boolean; reason: string | null; issues: string[] }[]
}

/** `verify check --json`, parsed, with its exit code. */
async function judge(p: Project, args: string[] = []): Promise<Judged & { code: number | null; result: CliResult }> {
  const result = await p.verify('check', ['--json', ...args])
  expect(result.stderr).toBe('')
  return { ...(JSON.parse(result.stdout) as Judged), code: result.code, result }
}

function status(judged: Judged, id: string): Judged['checks'][number] {
  const found = judged.checks.find((c) => c.id === id)
  if (!found) throw new Error(`no check ${id} in ${JSON.stringify(judged)}`)
  return found
}

/** A git project with passing evidence for both checks. */
async function recorded(options: { git?: boolean } = { git: true }): Promise<Project> {
  const p = project('validity-git', options)
  const run = await p.verify('run')
  expect(run.code, diagnose(run)).toBe(0)
  expect(p.executions().toSorted()).toEqual(['build', 'docs'])
  return p
}

describe.concurrent('workspace binding in a git repository', { timeout: 90_000 }, () => {
  it('nothing changed: `verify check` approves (exit 0) and runs nothing', async () => {
    const p = await recorded()
    const result = await p.verify('check')
    expect(result.code, diagnose(result)).toBe(0)
    expect(checkLine(result.stdout, 'build')).toMatch(/valid/)
    expect(checkLine(result.stdout, 'docs')).toMatch(/valid/)
    expect(result.stdout).toMatch(/APPROVED/)
    expect(p.executions()).toHaveLength(2)
  })

  const changes: [what: string, change: (p: Project) => void, named: string[]][] = [
    ['editing a tracked file', (p) => p.write('src/app.ts', 'export const app = 2\n'), ['src/app.ts']],
    ['adding an untracked file', (p) => p.write('src/new.ts', 'export const added = true\n'), ['src/new.ts']],
    ['deleting a file', (p) => unlinkSync(p.path('src/util.ts')), ['src/util.ts']],
    ['renaming a file', (p) => renameSync(p.path('src/util.ts'), p.path('src/helpers.ts')), ['src/util.ts', 'src/helpers.ts']],
    ['chmod +x on a file', (p) => chmodSync(p.path('src/app.ts'), 0o755), ['src/app.ts']],
  ]

  it.each(changes)('%s makes the evidence stale (exit 3) and `verify check` names the file', async (_what, change, named) => {
    const p = await recorded()
    change(p)
    const judged = await judge(p)
    expect(judged.code, diagnose(judged.result)).toBe(3)
    expect(judged.verdict).toBe('incomplete')
    const build = status(judged, 'build')
    expect(build).toMatchObject({ status: 'stale', valid: false })
    expect(build.reason).toMatch(/code changed/)
    for (const file of named) expect(build.reason).toContain(file)
    // docs/** did not change: that check's evidence still holds.
    expect(status(judged, 'docs')).toMatchObject({ status: 'passed', valid: true })
    // The human-readable report says the same, on the check's own line.
    const text = await p.verify('check')
    expect(text.code).toBe(3)
    for (const file of named) expect(checkLine(text.stdout, 'build')).toContain(file)
    expect(checkLine(text.stdout, 'build')).toMatch(/stale/)
    expect(text.stdout).not.toMatch(STACK_LINE)
    expect(p.executions()).toHaveLength(2)
  })

  it('an ignored file, or a new mtime on unchanged content, keeps the evidence valid', async () => {
    const p = await recorded()
    p.write('ignored/cache.txt', 'one')
    const first = await judge(p)
    expect(first.code, diagnose(first.result)).toBe(0)
    p.write('ignored/cache.txt', 'two')
    p.write('node_modules/.cache/x', 'noise')
    const later = new Date(Date.now() + 60_000)
    utimesSync(p.path('src/app.ts'), later, later)
    const second = await judge(p)
    expect(second.code, diagnose(second.result)).toBe(0)
    expect(second.checks.every((c) => c.valid)).toBe(true)
  })

  it("never touches the user's index: `git status` and .git/index are byte-identical before and after", async () => {
    const p = project('validity-git', { git: true })
    // A staged edit, an unstaged edit and an untracked file: everything `git add -A` would change.
    p.write('src/app.ts', 'export const app = "staged"\n')
    p.git('add', 'src/app.ts')
    p.write('src/util.ts', 'export const util = "unstaged"\n')
    p.write('src/untracked.ts', 'export const untracked = 1\n')
    const before = p.git('status', '--porcelain')
    expect(before).toContain('M  src/app.ts')
    expect(before).toContain(' M src/util.ts')
    expect(before).toContain('?? src/untracked.ts')
    const index = readFileSync(p.path('.git/index'))

    const run = await p.verify('run')
    expect(run.code, diagnose(run)).toBe(0)
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(0)

    expect(readFileSync(p.path('.git/index')).equals(index)).toBe(true)
    expect(p.git('status', '--porcelain')).toBe(before)
    // The untracked file is part of the fingerprint all the same: changing it invalidates the evidence.
    p.write('src/untracked.ts', 'export const untracked = 2\n')
    expect((await judge(p)).code).toBe(3)
  })

  it('a check with `inputs` ignores changes elsewhere and goes stale when its inputs change', async () => {
    const p = await recorded()
    p.write('src/app.ts', 'export const app = 3\n')
    const afterSrc = await judge(p)
    expect(status(afterSrc, 'docs')).toMatchObject({ status: 'passed', valid: true })
    expect(status(afterSrc, 'build').status).toBe('stale')

    p.write('docs/guide.md', '# Guide, edited\n')
    const afterDocs = await judge(p)
    expect(afterDocs.code).toBe(3)
    expect(status(afterDocs, 'docs')).toMatchObject({ status: 'stale', valid: false })
    expect(status(afterDocs, 'docs').reason).toMatch(/code changed/)
  })

  it("changing a check's command makes that check's evidence stale as a changed definition", async () => {
    const p = await recorded()
    const config = p.read('verify.config.ts')
    const weakened = config.replace("command: 'sh bin/count.sh', inputs", "command: 'sh bin/count.sh --quick', inputs")
    expect(weakened).not.toBe(config)
    p.write('verify.config.ts', weakened)
    const judged = await judge(p)
    expect(judged.code).toBe(3)
    // docs: its inputs are unchanged, only its definition is.
    const docs = status(judged, 'docs')
    expect(docs.status).toBe('stale')
    expect(docs.issues).toEqual([expect.stringMatching(/definition changed/)])
    // build: same definition; stale only because the config file is part of the workspace, and named.
    const build = status(judged, 'build')
    expect(build.issues).toEqual([expect.stringContaining('verify.config.ts')])
    expect(build.reason).not.toMatch(/definition/)
  })

  it('a check with `inputs` that runs a package.json script goes stale when the script changes', async () => {
    const p = project('validity-git', { git: true })
    p.write('package.json', JSON.stringify({ private: true, scripts: { docs: 'sh bin/count.sh' } }))
    p.write('verify.config.ts', p.read('verify.config.ts').replace("command: 'sh bin/count.sh', inputs", "command: 'npm run --silent docs', inputs"))
    expect((await p.verify('run')).code).toBe(0)
    // The script now passes whatever the docs say: outside the check's inputs, but part of what the check runs.
    p.write('package.json', JSON.stringify({ private: true, scripts: { docs: 'true' } }))
    const judged = await judge(p)
    expect(judged.code).toBe(3)
    expect(status(judged, 'docs').issues).toEqual([expect.stringMatching(/definition changed/)])
  })

  it('`--max-age` shorter than the evidence age makes it stale; a longer one keeps it valid', async () => {
    const p = await recorded()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const short = await judge(p, ['--max-age', '1ms'])
    expect(short.code).toBe(3)
    for (const c of short.checks) {
      expect(c.status).toBe('stale')
      expect(c.reason).toMatch(/older than maxAge 1ms/)
    }
    expect((await judge(p, ['--max-age', '1h'])).code).toBe(0)
  })

  it("the config's maxAge is the window when --max-age is not given", async () => {
    const p = await recorded()
    await new Promise((resolve) => setTimeout(resolve, 20))
    p.write('verify.config.ts', p.read('verify.config.ts').replace("timeout: '20s',", "timeout: '20s',\n  maxAge: '1ms',"))
    const aged = await judge(p)
    expect(aged.code).toBe(3)
    // docs is bound to docs/** only and maxAge is no part of its definition: its one issue is its age.
    expect(status(aged, 'docs').issues).toEqual([expect.stringMatching(/older than maxAge 1ms/)])
    expect((await judge(p, ['--max-age', '1h'])).checks.find((c) => c.id === 'docs')?.valid).toBe(true)
  })

  it('evidence dated an hour in the future is stale; 10 s ahead (clock skew) is accepted', async () => {
    const p = await recorded()
    const shift = (ms: number) =>
      editEvidence(p, (file) => {
        for (const check of file.checks) if (check.evidence) check.evidence.timestamp = new Date(Date.now() + ms).toISOString()
      })
    shift(10_000)
    expect((await judge(p)).code).toBe(0)
    shift(60 * 60_000)
    const judged = await judge(p)
    expect(judged.code).toBe(3)
    for (const c of judged.checks) {
      expect(c.status).toBe('stale')
      expect(c.reason).toMatch(/in the future/)
    }
  })
})

describe.concurrent('binding covers what the code is', { timeout: 90_000 }, () => {
  it('committing exactly the verified tree keeps the evidence valid; HEAD is recorded for information', async () => {
    const p = await recorded()
    p.write('src/new.ts', 'export const added = true\n')
    const run = await p.verify('run')
    expect(run.code, diagnose(run)).toBe(0)
    const before = p.evidence().workspace
    p.git('add', '-A')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'the verified tree')
    const judged = await judge(p)
    expect(judged.code, diagnose(judged.result)).toBe(0)
    expect(judged.checks.every((c) => c.valid)).toBe(true)
    expect(before.git?.head).toMatch(/^[0-9a-f]{40}$/)
    expect(before.git?.dirty).toBe(true)
  })

  it('an edit to a file flagged assume-unchanged or skip-worktree makes the evidence stale', async () => {
    const p = await recorded()
    p.git('update-index', '--assume-unchanged', 'src/app.ts')
    p.git('update-index', '--skip-worktree', 'docs/guide.md')
    expect((await judge(p)).code).toBe(0)
    p.write('src/app.ts', 'export const app = "hidden from git status"\n')
    p.write('docs/guide.md', '# hidden too\n')
    expect(p.git('status', '--porcelain')).toBe('')
    const judged = await judge(p)
    expect(judged.code).toBe(3)
    expect(status(judged, 'build')).toMatchObject({ status: 'stale', valid: false })
    expect(status(judged, 'build').reason).toContain('src/app.ts')
    expect(status(judged, 'docs')).toMatchObject({ status: 'stale', valid: false })
  })

  it('evidence recorded in packages/a is not valid in packages/b, even with identical checks and content', async () => {
    const p = project('validity-git', { git: true })
    for (const pkg of ['a', 'b']) {
      for (const file of ['verify.config.ts', 'src/app.ts', 'src/util.ts', 'docs/guide.md', 'bin/count.sh']) p.write(`packages/${pkg}/${file}`, p.read(file))
    }
    p.git('add', '-A')
    p.git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'two packages')
    const inA = await p.verify('run', [], { cwd: p.path('packages/a') })
    expect(inA.code, diagnose(inA)).toBe(0)
    expect((await p.verify('check', [], { cwd: p.path('packages/a') })).code).toBe(0)
    p.write('packages/b/.verify/evidence.json', p.read('packages/a/.verify/evidence.json'))
    const inB = await p.verify('check', ['--json'], { cwd: p.path('packages/b') })
    expect(inB.code, diagnose(inB)).toBe(3)
    const judged = JSON.parse(inB.stdout) as Judged
    expect(status(judged, 'build')).toMatchObject({ status: 'stale', valid: false })
    expect(status(judged, 'docs')).toMatchObject({ status: 'stale', valid: false })
  })

  it('a nested repository without commits is a clear error (exit 2), never an unexpected one', async () => {
    const p = await recorded()
    p.git('init', '-q', 'src/vendored')
    p.write('src/vendored/index.ts', 'export {}\n')
    for (const command of ['run', 'check']) {
      const result = await p.verify(command)
      expect(result.code, diagnose(result)).toBe(2)
      expect(result.stderr).toMatch(/src\/vendored .*is a git repository without commits/)
      expect(result.stderr).not.toMatch(/unexpected error/)
      expect(result.stderr).not.toMatch(STACK_LINE)
    }
    expect(p.executions()).toHaveLength(2)
  })

  it('an `inputs` pattern that matches no file is a warning naming it, in the run and in `verify check`', async () => {
    const p = project('validity-git', { git: true })
    p.write('verify.config.ts', p.read('verify.config.ts').replace("inputs: ['docs/**']", "inputs: ['dcos/**', 'docs/**']"))
    const run = await p.verify('run')
    expect(run.code, diagnose(run)).toBe(0)
    expect(run.stdout).toMatch(/"docs".*"dcos\/\*\*" matches no file/)
    expect(p.evidence().summary.warnings).toEqual([expect.stringMatching(/"dcos\/\*\*" matches no file/)])
    const check = await p.verify('check')
    expect(check.code, diagnose(check)).toBe(0)
    expect(check.stdout).toMatch(/"docs".*"dcos\/\*\*" matches no file/)
    expect(check.stdout).not.toMatch(/docs\/\*\*" matches/)
  })
})

describe.concurrent('workspace binding outside git', { timeout: 90_000 }, () => {
  it('a file hash: an edit makes it stale; node_modules and .verify do not count', async () => {
    const p = await recorded({ git: false })
    p.write('node_modules/.cache/x', 'noise')
    p.write('.verify/notes.txt', 'noise')
    expect((await judge(p)).code).toBe(0)
    p.write('src/app.ts', 'export const app = 4\n')
    const judged = await judge(p)
    expect(judged.code).toBe(3)
    expect(status(judged, 'build').reason).toMatch(/code changed/)
    expect(status(judged, 'docs').valid).toBe(true)
  })
})
