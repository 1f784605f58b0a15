// The injection matrix (issue 8 §6): untrusted text — check names, descriptions, commands and instructions from a
// config, reasons and approvals from an evidence file, approver names and notes, shard files, thrown messages, names
// of changed files — never reaches a terminal or a CI log as a control sequence or a GitHub workflow command, whatever
// command prints it. Spawned: what a gate job's log holds is the point.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EvidenceFile } from '../../src/types.js'
import { project, removeProjects, type Project } from '../helpers/project.js'
import { parseWorkflowLog, unsafeOutput } from '../reporters/workflow.js'
import { cleanup, diagnose, fixture, runCli, type CliResult } from '../helpers/cli.js'

afterAll(async () => {
  await cleanup()
  removeProjects()
})

const HOSTILE = 'ok\n::error file=x.ts::forged annotation\r::warning::behind a CR \u001b]0;title\u0007\u001b[2J\u001b[1A ##[group]grouped \u009b2J'

function expectSafe(text: string, allowed: readonly string[] = []): void {
  expect(unsafeOutput(text, allowed), text).toEqual([])
}

/** Both streams safe, and the untrusted text was printed (defused), so the test is not passing on silence. */
function expectShownSafely(result: CliResult, allowed: readonly string[] = []): void {
  expectSafe(result.stdout, allowed)
  expectSafe(result.stderr, allowed)
  expect(`${result.stdout}${result.stderr}`, diagnose(result)).toContain('forged annotation')
}

let p: Project
const outside = (name: string) => join(p.outside, name)

/** A copy of the project's evidence at `path` (or the file there), rewritten through `edit`. */
function forge(path: string, edit: (file: EvidenceFile) => void, from = p.evidencePath): void {
  mkdirSync(dirname(path), { recursive: true })
  const file = JSON.parse(readFileSync(from, 'utf8')) as EvidenceFile
  edit(file)
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`)
}

beforeAll(async () => {
  p = project('injection', { git: true })
  const run = await p.verify('run')
  expect(run.code, diagnose(run)).toBe(3)
}, 60_000)

describe('commands print untrusted text defused', () => {
  it('verify run: check names in the default reporter', async () => {
    const result = await p.verify('run', ['--evidence', outside('run/evidence.json')])
    expectShownSafely(result)
  })

  it('verify run in GitHub Actions: only verify’s own workflow commands', async () => {
    const result = await p.verify('run', ['--evidence', outside('gha/evidence.json')], { env: { GITHUB_ACTIONS: 'true', CI: 'true' } })
    expectShownSafely(result, ['group', 'endgroup', 'stop-commands', 'error', 'warning', 'notice'])
    expect(
      parseWorkflowLog(result.stdout)
        .commands.filter((c) => c.name === 'error')
        .map((c) => c.properties.title),
    ).toEqual(['verify: incomplete'])
  })

  it('verify run --reporter verbose --color: names in the prefix and the summary', async () => {
    const result = await p.verify('run', ['--evidence', outside('verbose/evidence.json'), '--reporter', 'verbose', '--color'])
    expectShownSafely(result)
  })

  it('verify check: a forged reason, text and --json (which still holds the exact reason)', async () => {
    const file = outside('forged/evidence.json')
    forge(file, (evidence) => {
      const build = evidence.checks.find((c) => c.id === 'build') as EvidenceFile['checks'][number]
      Object.assign(build, { status: 'failed', reason: HOSTILE })
      if (build.evidence) build.evidence.passed = false
    })
    const text = await p.verify('check', ['--evidence', file])
    expect(text.code, diagnose(text)).toBe(1)
    expectShownSafely(text)
    const json = await p.verify('check', ['--evidence', file, '--json'])
    expectShownSafely(json)
    const parsed = JSON.parse(json.stdout) as { checks: { id: string; reason: string }[] }
    expect(parsed.checks.find((c) => c.id === 'build')?.reason).toBe(HOSTILE)
  })

  it('verify check: a forged protocol name in the evidence', async () => {
    const file = outside('renamed/evidence.json')
    forge(file, (evidence) => {
      evidence.protocol.name = `default ${HOSTILE}`
    })
    const result = await p.verify('check', ['--evidence', file])
    expectShownSafely(result)
  })

  it('verify approve --by --note, then verify check showing who approved', async () => {
    const file = outside('approved/evidence.json')
    forge(file, () => undefined)
    const approve = await p.verify('approve', ['review', '--by', `mallory ${HOSTILE}`, '--note', `looks fine ${HOSTILE}`, '--evidence', file])
    expect(approve.code, diagnose(approve)).toBe(0)
    expectShownSafely(approve)
    const check = await p.verify('check', ['--evidence', file])
    expectShownSafely(check)
    expect(check.stdout).toContain('by mallory ok')
  })

  it('verify merge: shards whose evidence carries forged reasons', async () => {
    const shards = [1, 2].map((i) => outside(`shard-${i}/evidence.json`))
    for (const [i, file] of shards.entries()) {
      const result = await p.verify('run', ['--shard', `${i + 1}/2`, '--evidence', file])
      expect(result.code, diagnose(result)).not.toBe(2)
      expectSafe(result.stdout)
    }
    for (const file of shards) {
      forge(
        file,
        (evidence) => {
          for (const check of evidence.checks)
            if (check.id !== 'review' && evidence.shard?.checks.includes(check.id)) Object.assign(check, { status: 'failed', reason: HOSTILE })
        },
        file,
      )
    }
    const merged = await p.verify('merge', [...shards, '--evidence', outside('merged/evidence.json')])
    // merge judges each check by its evidence, not by the status a file claims: the forged "failed" statuses do not
    // count, the manual review still waits (exit 3), and every hostile name and reason is shown defused.
    expect(merged.code, diagnose(merged)).toBe(3)
    expectShownSafely(merged)
  })

  it('verify list, text and --json (which still holds the exact names)', async () => {
    const text = await p.verify('list')
    expect(text.code, diagnose(text)).toBe(0)
    expectShownSafely(text)
    const json = await p.verify('list', ['--json'])
    expectShownSafely(json)
    const parsed = JSON.parse(json.stdout) as { protocols: { description: string; checks: { name: string }[] }[] }
    expect(parsed.protocols[0]?.checks[0]?.name).toBe(`Build ${HOSTILE}`)
  })

  it('a config that throws: the error message', async () => {
    for (const command of ['run', 'list', 'check']) {
      const result = await runCli([command], { cwd: fixture('injection-config-error') })
      expect(result.code, diagnose(result)).toBe(2)
      expectShownSafely(result)
    }
  })

  it('verify init: a package.json script it splits into a check’s command', async () => {
    const dir = outside('init')
    mkdirSync(dir, { recursive: true })
    // verify init splits only scripts of plain words: the runner's `##[` syntax is what can get through.
    const test = 'vitest run "forged annotation ##[error]from a script" && npm run build'
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', scripts: { build: 'tsc', test } }))
    const result = await runCli(['init', '--yes'], { cwd: dir })
    expect(result.code, diagnose(result)).toBe(0)
    expectShownSafely(result)
  })

  // Last: it changes the workspace.
  it('verify check: names of changed files', async () => {
    p.write(`changed ${HOSTILE.replaceAll('/', '-')}.txt`, 'new\n')
    const result = await p.verify('check')
    expect(result.code, diagnose(result)).toBe(3)
    expectShownSafely(result)
  })
})
