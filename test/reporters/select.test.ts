// Which reporters a run gets: --reporter flags, the config's `reporters` (names, [name, options], objects,
// module paths), `agent` under a coding agent, and `github-actions` added in GitHub Actions.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest'
import type { CliIO } from '../../src/cli/io.js'
import { z } from 'zod'
import { resolveProtocol } from '../../src/config/resolve.js'
import { reporterEntrySchema } from '../../src/config/schema.js'
import { VerifyConfigError, VerifyUsageError } from '../../src/errors.js'
import { combineReporters, REPORTERS } from '../../src/reporters/index.js'
import { createReporters, type ReporterConfigSource, useColor } from '../../src/reporters/select.js'
import type { ReporterEntry } from '../../src/types.js'
import { outcome, replay, result } from '../helpers/outcome.js'
import { parseWorkflowLog } from './workflow.js'

const ROOT = join(import.meta.dirname, '..', '..')
const CUSTOM = join(ROOT, 'fixtures', 'reporters-custom')
const tmp = mkdtempSync(join(tmpdir(), 'verify-select-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
afterEach(() => vi.unstubAllEnvs())

function fakeIO(env: NodeJS.ProcessEnv = {}): CliIO & { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  return { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env, cwd: tmp, isTTY: false, out: () => out, err: () => err }
}

const run = () => outcome([result('build', 'passed', { output: 'built\n' }), result('test', 'failed', { output: 'boom\n' })])

async function play(specs: string[] | undefined, io: ReturnType<typeof fakeIO>, config?: ReporterConfigSource) {
  const reporters = await createReporters(specs, io, false, config)
  await replay(combineReporters(reporters), run())
  return reporters
}

const config = (raw: { reporters: unknown[] }, rootDir = tmp): ReporterConfigSource => ({ rootDir, protocol: { reporters: raw.reporters as ReporterEntry[] } })

describe('command line', () => {
  test('every built-in is in the name map', () => {
    expect(Object.keys(REPORTERS)).toEqual(['default', 'verbose', 'json', 'junit', 'markdown', 'github-actions', 'agent'])
  })

  test('no --reporter: the default reporter', async () => {
    const io = fakeIO()
    expect(await play(undefined, io)).toHaveLength(1)
    expect(io.out()).toMatch(/^verify · protocol default · 2 checks\n/)
  })

  test('name=<file> resolves the file against the working folder', async () => {
    const io = fakeIO()
    await play(['junit=reports/out.xml', 'markdown'], io)
    expect(readFileSync(join(tmp, 'reports', 'out.xml'), 'utf8')).toContain('<testsuites')
    expect(io.out()).toMatch(/^### ❌ verify: rejected/)
  })

  test('name=<folder>/ writes the report into the folder under its usual name', async () => {
    await play(['junit=reports/ci/', 'markdown=reports/ci/'], fakeIO())
    expect(readFileSync(join(tmp, 'reports', 'ci', 'junit.xml'), 'utf8')).toContain('<testsuites')
    expect(readFileSync(join(tmp, 'reports', 'ci', 'verify.md'), 'utf8')).toMatch(/^### ❌ verify: rejected/)
  })

  test('an unknown name is a usage error that lists the reporters', async () => {
    const error = await createReporters(['fancy'], fakeIO(), false).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(VerifyUsageError)
    expect((error as Error).message).toBe('Unknown reporter "fancy". Reporters: default, verbose, json, junit, markdown, github-actions, agent.')
  })
})

const tty = (): ReturnType<typeof fakeIO> => ({ ...fakeIO(), isTTY: true, rows: 40 })

describe('the live task list', () => {
  const CURSOR_UP = new RegExp(`${'\x1b'}\\[\\d+A`)

  test('in a terminal, alone on stdout: live', async () => {
    vi.useFakeTimers()
    try {
      const io = tty()
      await play(['default', 'junit=reports/live.xml'], io)
      expect(io.out()).toMatch(CURSOR_UP)
    } finally {
      vi.useRealTimers()
    }
  })

  test('sharing stdout with another reporter: line mode, so the redraw never erases the other’s output', async () => {
    const io = tty()
    await play(['markdown', 'default'], io)
    expect(io.out()).not.toMatch(CURSOR_UP)
    expect(io.out()).toContain('### ❌ verify: rejected')
  })
})

describe('JSON or JUnit on stdout', () => {
  test.each([[['json', 'default']], [['json', 'json']], [['junit', 'agent']], [['default', 'junit']]])(
    '%j: refused, a program could not parse what it reads',
    async (specs) => {
      const io = fakeIO()
      await expect(createReporters(specs, io, false)).rejects.toThrow(/on stdout for a program to parse/)
    },
  )

  test('with the other reporter given a file, or the document in a file: fine', async () => {
    const io = fakeIO()
    expect(await createReporters(['json', 'junit=/tmp/report.xml'], io, false)).toHaveLength(2)
    expect(await createReporters(['default', 'json=/tmp/report.json'], io, false)).toHaveLength(2)
  })
})

describe('GitHub Actions', () => {
  test('GITHUB_ACTIONS=true adds github-actions to the default', async () => {
    const io = fakeIO({ GITHUB_ACTIONS: 'true', CI: 'true' })
    expect(await play(undefined, io)).toHaveLength(2)
    const names = parseWorkflowLog(io.out()).commands.map((c) => c.name)
    expect(names).toContain('group')
    expect(names).toContain('error')
    expect(io.out()).toContain('Verdict REJECTED')
  })

  test('named already: not added twice', async () => {
    const io = fakeIO({ GITHUB_ACTIONS: 'true' })
    expect(await play(['github-actions'], io)).toHaveLength(1)
    expect(parseWorkflowLog(io.out()).commands.filter((c) => c.name === 'group')).toHaveLength(2)
  })

  test('with a document on stdout (--reporter json), the workflow commands go to stderr', async () => {
    const io = fakeIO({ GITHUB_ACTIONS: 'true' })
    await play(['json'], io)
    expect(JSON.parse(io.out()).summary.verdict).toBe('rejected')
    expect(parseWorkflowLog(io.err()).commands.map((c) => c.name)).toContain('error')
  })

  test('GITHUB_ACTIONS unset or not "true": nothing added', async () => {
    expect(await createReporters(undefined, fakeIO({ GITHUB_ACTIONS: 'false' }), false)).toHaveLength(1)
  })
})

describe('coding agents', () => {
  test('under an agent (std-env), no --reporter: the agent digest instead of default', async () => {
    vi.stubEnv('CLAUDECODE', '1')
    const io = { ...fakeIO(), env: process.env }
    let out = ''
    io.stdout = (t) => void (out += t)
    await replay(combineReporters(await createReporters(undefined, io, false)), run())
    expect(out).toMatch(/^verify: running protocol default \(2 checks\)…\nverify: REJECTED/)
  })

  test('AI_AGENT names an agent too; an explicit --reporter wins', async () => {
    vi.stubEnv('AI_AGENT', 'some-agent')
    const io = { ...fakeIO(), env: process.env }
    let out = ''
    io.stdout = (t) => void (out += t)
    await replay(combineReporters(await createReporters(['default'], io, false)), run())
    expect(out).toMatch(/^verify · protocol default/)
  })

  test('an injected environment is never taken for an agent', async () => {
    vi.stubEnv('CLAUDECODE', '1')
    const io = fakeIO({ CLAUDECODE: '1' })
    await play(undefined, io)
    expect(io.out()).toMatch(/^verify · protocol/)
  })
})

describe('reporters from the config', () => {
  test('names and [name, { file }], the file relative to the config folder; replaces the default', async () => {
    const io = fakeIO()
    await play(undefined, io, config({ reporters: ['agent', ['junit', { file: 'out/junit.xml' }]] }, join(tmp, 'project')))
    expect(io.out()).toMatch(/^verify: running protocol/)
    expect(existsSync(join(tmp, 'project', 'out', 'junit.xml'))).toBe(true)
  })

  test('--reporter on the command line wins over the config', async () => {
    const io = fakeIO()
    await play(['markdown'], io, config({ reporters: ['agent'] }))
    expect(io.out()).toMatch(/^### ❌/)
  })

  test('an object with hooks is used as it is', async () => {
    const seen: string[] = []
    await play(undefined, fakeIO(), config({ reporters: [{ onCheckEnd: (_: unknown, r: { id: string }) => void seen.push(r.id) }] }))
    expect(seen).toEqual(['build', 'test'])
  })

  test('module paths relative to the config folder: a factory gets its options and the context; an object export', async () => {
    const io = fakeIO()
    await play(undefined, io, config({ reporters: [['./factory-reporter.mjs', { prefix: 'F' }], './object-reporter.mjs'] }, CUSTOM))
    expect(io.out()).toBe('F build: passed\nF test: failed\nF verdict: rejected\n')
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('verify.test.objectReporterSeen')]).toEqual(['build:passed', 'test:failed'])
  })

  test('a reporter that throws is reported once on stderr and left out; the others and the run go on', async () => {
    const io = fakeIO()
    const calls: string[] = []
    const broken = {
      onCheckEnd: (_: unknown, r: { id: string }) => {
        calls.push(r.id)
        throw new Error('reporter bug')
      },
      onRunEnd: () => void calls.push('end'),
    }
    const rejecting = { onRunEnd: () => Promise.reject(new Error('async bug')) }
    await play(undefined, io, config({ reporters: [broken, 'markdown', rejecting] }))
    expect(calls).toEqual(['build'])
    expect(io.out()).toMatch(/^### ❌ verify: rejected/)
    expect(io.err()).toBe(
      'verify: reporter reporters[0] failed in onCheckEnd and is left out for the rest of the run: reporter bug\n' +
        'verify: reporter reporters[2] failed in onRunEnd and is left out for the rest of the run: async bug\n',
    )
  })

  test('defineConfig: the protocol’s own reporters, then those of the protocol it extends, then the shared ones', () => {
    const checks = { a: 'true' }
    const raw = { reporters: ['json'], protocols: { base: { reporters: ['junit'], checks }, child: { extends: 'base', checks }, other: { checks } } }
    expect(resolveProtocol(raw, { rootDir: tmp, protocol: 'child' }).reporters).toEqual(['junit'])
    expect(resolveProtocol(raw, { rootDir: tmp, protocol: 'other' }).reporters).toEqual(['json'])
    expect(resolveProtocol({ checks }, { rootDir: tmp }).reporters).toBeUndefined()
  })

  test.each([
    [['./missing.mjs'], /^Could not load the reporter "\.\/missing\.mjs" \(looked in .*reporters-custom\): Cannot find module/],
    [['./throws-on-import.mjs'], /^Could not load the reporter "\.\/throws-on-import\.mjs" .*: reporter module exploded/],
    [['./not-a-reporter.mjs'], /^The default export of "\.\/not-a-reporter\.mjs" is not a reporter: .*; got a number\.$/],
    [['./no-default.mjs'], /^The reporter module "\.\/no-default\.mjs" has no default export/],
    [['some-package-that-is-not-installed'], /^Could not load the reporter "some-package-that-is-not-installed"/],
    [[{ onRunEnd: 'not a function' }], /^reporters\[0\] is not a reporter: .*; onRunEnd must be functions\.$/],
    [[{ name: 'no hooks' }], /^reporters\[0\] is not a reporter: .*got an object with keys name\.$/],
    [[['junit', { file: 1 }]], /^reporters: the built-in reporter "junit" takes \{ file\?: string \}/],
    [[['markdown', { colour: true }]], /^reporters: the built-in reporter "markdown" takes \{ file\?: string \}/],
  ])('%j is a usage error that says what is wrong', async (reporters, message) => {
    const error = await createReporters(undefined, fakeIO(), false, config({ reporters }, CUSTOM)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(VerifyUsageError)
    expect((error as Error).message).toMatch(message)
  })

  test('the schema: `reporters` must be a list of names, [name, options] pairs or objects', () => {
    const valid = ['junit', './my-reporter.mjs', ['x', { a: 1 }], { onRunEnd() {} }]
    expect(z.array(reporterEntrySchema).safeParse(valid).success).toBe(true)
    expect(() => resolveProtocol({ checks: { a: 'true' }, reporters: valid }, { rootDir: tmp })).not.toThrow()
    for (const bad of [42, '', ['junit'], ['junit', 'file.xml'], [1, {}], null]) {
      const parsed = reporterEntrySchema.safeParse(bad)
      expect(parsed.success, JSON.stringify(bad)).toBe(false)
      expect(parsed.error?.issues[0]?.message).toBe('expected a reporter name or module path, a [name or path, options] pair, or a reporter object with hooks')
    }
    expect(() => resolveProtocol({ checks: { a: 'true' }, reporters: [42] }, { rootDir: tmp })).toThrow(VerifyConfigError)
  })
})

const terminal = (env: NodeJS.ProcessEnv, isTTY = true): CliIO => ({ stdout: () => {}, stderr: () => {}, env, cwd: tmp, isTTY })

describe('colour', () => {
  test('a terminal gets colour; a pipe does not', () => {
    expect(useColor(terminal({ TERM: 'xterm-256color' }), undefined)).toBe(true)
    expect(useColor(terminal({ TERM: 'xterm-256color' }, false), undefined)).toBe(false)
  })

  test('a dumb terminal gets none, unless FORCE_COLOR asks for it', () => {
    expect(useColor(terminal({ TERM: 'dumb' }), undefined)).toBe(false)
    expect(useColor(terminal({ TERM: 'dumb', FORCE_COLOR: '1' }), undefined)).toBe(true)
  })

  test('NO_COLOR and the flags win', () => {
    expect(useColor(terminal({ NO_COLOR: '1', FORCE_COLOR: '1' }), undefined)).toBe(false)
    expect(useColor(terminal({ NO_COLOR: '1' }), true)).toBe(true)
    expect(useColor(terminal({ TERM: 'dumb' }), true)).toBe(true)
    expect(useColor(terminal({}), false)).toBe(false)
  })
})
