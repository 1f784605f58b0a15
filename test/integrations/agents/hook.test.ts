// `verify hook <agent>`: the verdict decides whether the agent may stop; everything that goes wrong blocks; the loop
// is bounded. Driven with the JSON each agent sends, in fixture projects.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { cleanup, readPids, survivors } from '../../helpers/cli.js'
import { project, removeProjects, type Project } from '../../helpers/project.js'
import { blockKey } from '../../../src/integrations/agents/block-count.js'
import { blockCounts, hookInProcess, hookSpawned, stopEvent } from './helpers.js'

afterEach(cleanup)
afterAll(removeProjects)

function gate(): Project {
  return project('agent-hook', { git: true })
}

const env = (p: Project, extra: Record<string, string> = {}) => ({ VALIDITY_COUNTER: p.counter, ...extra })
const introduceBug = (p: Project) => p.write('src/math.js', 'export const add = (a, b) => a - b\n')

describe('verify hook claude-code', () => {
  it('lets an approved stop through, and on unchanged verified code runs nothing again', async () => {
    const p = gate()
    const first = await hookInProcess(['claude-code'], stopEvent(p), env(p))
    expect(first.code).toBe(0)
    expect(first.answer).toEqual({})
    expect(p.executions()).toEqual(['build', 'test'])
    expect(p.evidence().summary.verdict).toBe('approved')

    const again = await hookInProcess(['claude-code'], stopEvent(p), env(p))
    expect(again.answer).toEqual({})
    expect(p.executions()).toEqual(['build', 'test'])
  })

  it('blocks a rejected stop with the failing check, its command and its first error line as the reason', async () => {
    const p = gate()
    introduceBug(p)
    const { code, answer } = await hookInProcess(['claude-code'], stopEvent(p), env(p))
    expect(code).toBe(0)
    expect(answer.decision).toBe('block')
    const reason = answer.reason as string
    expect(reason).toContain('REJECTED')
    expect(reason).toContain('test (Unit tests) — failed: exit code 1')
    expect(reason).toContain('$ sh tools/test.sh')
    expect(reason).toContain('AssertionError: expected -1 to be 3')
    expect(reason).toContain('npx verify run --reuse')
    expect(answer.systemMessage).toBeUndefined()
    expect(p.evidence().summary.verdict).toBe('rejected')
  })

  it("gates the agent's project, not a folder the agent moved into that holds a config of its own", async () => {
    const p = gate()
    introduceBug(p)
    // An ignored folder with a protocol that always passes, and the session's cwd moved into it.
    p.write('.verify/elsewhere/verify.config.mjs', "export default { checks: { ok: 'true' } }\n")
    const event = stopEvent(p, { cwd: p.path('.verify/elsewhere') })
    const gated = await hookInProcess(['claude-code'], event, { ...env(p), CLAUDE_PROJECT_DIR: p.dir })
    expect(gated.answer.decision).toBe('block')
    expect(gated.answer.reason as string).toContain('test (Unit tests) — failed')
    const gemini = await hookInProcess(['gemini'], { ...event, hook_event_name: 'AfterAgent' }, { ...env(p), GEMINI_PROJECT_DIR: p.dir })
    expect(gemini.answer.decision).toBe('deny')
    // A session folder with no protocol of its own (a monorepo's root): the event's folder is gated.
    const fromEvent = await hookInProcess(['claude-code'], stopEvent(p), { ...env(p), CLAUDE_PROJECT_DIR: p.outside })
    expect(fromEvent.answer.decision).toBe('block')
    expect(fromEvent.answer.reason as string).toContain('test (Unit tests) — failed')
  })

  it('after the fix, the next stop re-runs only what the change touched and lets the agent stop', async () => {
    const p = gate()
    introduceBug(p)
    expect((await hookInProcess(['claude-code'], stopEvent(p), env(p))).answer.decision).toBe('block')
    p.write('src/math.js', 'export const add = (a, b) => a + b\n')
    const fixed = await hookInProcess(['claude-code'], stopEvent(p, { stop_hook_active: true }), env(p))
    expect(fixed.answer).toEqual({})
    expect(blockCounts(p)).toEqual([])
  })

  it('blocks an incomplete stop: a manual check waits for a person, and an approval given without a terminal does not count', async () => {
    const p = project('agent-hook-tty', { git: true })
    const pending = await hookInProcess(['claude-code'], stopEvent(p), env(p))
    expect(pending.answer.decision).toBe('block')
    expect(pending.answer.reason).toContain('INCOMPLETE')
    expect(pending.answer.reason).toContain('npx verify approve review --by <name>')

    // The agent tries to approve it itself: refused without a terminal.
    const refused = await p.verify('approve', ['review', '--by', 'agent'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("approvals: 'tty'")
    // It writes the approval by hand instead: reported as not counting.
    const head = p.evidence().checks.find((c) => c.id === 'build')?.evidence
    p.write(
      '.verify/approvals.json',
      JSON.stringify({
        schemaVersion: 1,
        approvals: {
          review: {
            checkId: 'review',
            by: 'agent',
            note: null,
            timestamp: new Date().toISOString(),
            fingerprint: head?.fingerprint,
            checkDigest: 'sha256:' + '0'.repeat(64),
            evidenceType: 'architect_approval',
            tty: false,
          },
        },
      }),
    )
    const still = await hookInProcess(['claude-code'], stopEvent(p, { stop_hook_active: true }), env(p))
    expect(still.answer.decision).toBe('block')
    expect(still.answer.reason).toContain('recorded without a terminal')
  })

  it('fails closed on a broken config, a missing config, and input that is not a stop event', async () => {
    const p = gate()
    p.write('verify.config.ts', 'export default defineProtocol({ checks: { build: ')
    const broken = await hookInProcess(['claude-code'], stopEvent(p), env(p))
    expect(broken.answer.decision).toBe('block')
    expect(broken.answer.reason).toMatch(/^verify could not run the protocol, so the work is not verified: .*verify\.config\.ts/)

    const empty = mkdtempSync(join(tmpdir(), 'verify-hook-empty-'))
    try {
      const missing = await hookInProcess(['claude-code'], { ...stopEvent(p), cwd: empty }, env(p))
      expect(missing.answer.decision).toBe('block')
      expect(missing.answer.reason).toContain('verify init')
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }

    for (const input of ['', 'not json', '[1,2]', JSON.stringify({ session_id: 42, cwd: p.dir })]) {
      const bad = await hookInProcess(['claude-code'], input, env(p), p.dir)
      expect(bad.code, input).toBe(0)
      expect(bad.answer.decision, input).toBe('block')
      expect(bad.answer.reason, input).toContain('verify could not read the stop event')
    }
  })

  it('answers within its time budget: unfinished checks are stopped, recorded incomplete, and the stop blocked', async () => {
    const p = gate()
    const pids = join(p.outside, 'pids')
    const { answer, durationMs } = await hookSpawned(
      ['claude-code', '--timeout', '10s'],
      stopEvent(p),
      env(p, { HOOK_TEST_SLEEP_MS: '60000', HOOK_PID_FILE: pids }),
      p.dir,
    )
    expect(answer.decision).toBe('block')
    expect(answer.reason).toContain('verification did not finish in time')
    // Nothing failed: the agent is told to finish the run, not to fix failures there are none of.
    expect(answer.reason).toContain('run what did not finish: npx verify run --reuse')
    expect(answer.reason).not.toContain('fix the failures above')
    expect(durationMs).toBeLessThan(20_000)
    expect(p.evidence().summary.verdict).toBe('incomplete')
    expect(p.check('test').status).toBe('cancelled')
    const started = readPids(pids)
    expect(started).toHaveLength(1)
    expect(await survivors(started)).toEqual([])
  })

  it('stops blocking after --max-blocks in a row, telling the user the work is not verified, and counts afresh each turn', async () => {
    const p = gate()
    introduceBug(p)
    const stop = (active: boolean) => hookInProcess(['claude-code', '--max-blocks', '2'], stopEvent(p, { stop_hook_active: active }), env(p))
    const first = await stop(false)
    expect(first.answer.decision).toBe('block')
    expect(first.answer.systemMessage).toBeUndefined()
    const second = await stop(true)
    expect(second.answer.decision).toBe('block')
    expect(second.answer.systemMessage).toContain('block 2 of 2')
    const third = await stop(true)
    expect(third.answer.decision).toBeUndefined()
    expect(third.answer.systemMessage).toContain('NOT verified')
    expect(third.answer.systemMessage).toContain('rejected')
    // A new user turn (stop_hook_active false) starts a new count: the gate blocks again.
    expect((await stop(false)).answer.decision).toBe('block')
    expect(blockCounts(p)).toEqual([1])
  })

  it("a wrong hook line or an unwritable .verify still blocks in the agent's form, and the loop stays bounded", async () => {
    const p = gate()
    for (const args of [
      ['--max-blocks', '0'],
      ['--max-blocks', 'abc'],
      ['--timeout', '0'],
      ['--maxblocks', '2'],
      ['--max-blocks', '-1'],
    ]) {
      const stops = []
      for (let i = 0; i < 10; i++) stops.push(await hookInProcess(['codex', ...args], stopEvent(p, { stop_hook_active: i > 0 }), env(p)))
      expect(stops[0]?.answer.decision, args.join(' ')).toBe('block')
      expect(stops[0]?.answer.reason, args.join(' ')).toMatch(/hook line is wrong/)
      expect(stops[0]?.answer.reason, args.join(' ')).not.toMatch(/\.\./)
      // The default bound (8) holds: the ninth stop in a row goes through, saying the work is not verified.
      expect(
        stops.findIndex((s) => s.answer.decision === undefined),
        args.join(' '),
      ).toBe(8)
      expect(stops[8]?.answer.systemMessage).toMatch(/NOT verified/)
    }
    expect(p.executions()).toEqual([])

    const q = gate()
    q.write('.verify', 'a file where the folder should be\n')
    const answers = []
    // A session of its own: the fallback counter lives outside the project, in the temp dir.
    const session = `unwritable-${process.pid}-${Date.now()}`
    for (let i = 0; i < 4; i++)
      answers.push((await hookInProcess(['claude-code', '--max-blocks', '2'], stopEvent(q, { stop_hook_active: i > 0, session_id: session }), env(q))).answer)
    expect(answers.map((a) => a.decision)).toEqual(['block', 'block', undefined, 'block'])
    // The count was kept in the temp dir's folder for this project; the test removes it.
    const fallback = join(tmpdir(), `verify-hook-${blockKey('project', q.dir, '')}`)
    expect(existsSync(join(fallback, 'hook-blocks.json'))).toBe(true)
    rmSync(fallback, { recursive: true, force: true })
  })

  it('counts concurrent subagent stops of one session without losing any', async () => {
    const p = gate()
    introduceBug(p)
    const event = stopEvent(p, { hook_event_name: 'SubagentStop', stop_hook_active: true, agent_id: 'a' })
    const answers = await Promise.all(Array.from({ length: 5 }, () => hookSpawned(['claude-code', '--max-blocks', '50'], event, env(p), p.dir, 30_000)))
    for (const { answer } of answers) expect(answer.decision).toBe('block')
    expect(blockCounts(p)).toEqual([5])
  }, 60_000)

  it('lets every stop through, unverified and saying so, only when a person set VERIFY_HOOK=off', async () => {
    const p = gate()
    introduceBug(p)
    const { answer } = await hookInProcess(['claude-code'], stopEvent(p), env(p, { VERIFY_HOOK: 'off' }))
    expect(answer.decision).toBeUndefined()
    expect(answer.systemMessage).toContain('not verified')
    expect(p.executions()).toEqual([])
  })

  it('refuses a hook line that names no known agent with exit 2 and the agents it knows', async () => {
    const p = gate()
    const bad = await hookSpawned(['claude'], stopEvent(p), env(p), p.dir)
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe('')
    expect(bad.stderr).toContain('claude-code, codex, cursor, gemini, copilot')
    expect(p.executions()).toEqual([])
  })
})

describe('the other agents', () => {
  it('codex: Stop with {"decision":"block"}', async () => {
    const p = gate()
    introduceBug(p)
    const { answer } = await hookInProcess(['codex'], { ...stopEvent(p), turn_id: 't1' }, env(p))
    expect(answer.decision).toBe('block')
    expect(answer.reason).toContain('AssertionError')
  })

  it('cursor: a completed stop gets a followup_message; an aborted one is not gated', async () => {
    const p = gate()
    introduceBug(p)
    const cursor = (status: string) =>
      hookInProcess(
        ['cursor'],
        { conversation_id: 'c1', generation_id: 'g1', status, loop_count: 0, workspace_roots: [p.dir], hook_event_name: 'stop' },
        env(p),
      )
    const completed = await cursor('completed')
    expect(Object.keys(completed.answer)).toEqual(['followup_message'])
    expect(completed.answer.followup_message).toContain('test (Unit tests) — failed')
    expect((await cursor('aborted')).answer).toEqual({})
  })

  it('gemini: AfterAgent with {"decision":"deny"}', async () => {
    const p = gate()
    introduceBug(p)
    const { answer } = await hookInProcess(
      ['gemini'],
      { session_id: 'g', cwd: p.dir, hook_event_name: 'AfterAgent', prompt: 'fix it', prompt_response: 'done', stop_hook_active: false },
      env(p),
    )
    expect(answer.decision).toBe('deny')
    expect(answer.reason).toContain('AssertionError')
  })

  it('copilot: agentStop with {"decision":"block"}; the stop let through after --max-blocks says on stderr that the work is not verified', async () => {
    const p = gate()
    introduceBug(p)
    // Copilot's documented agentStop input: no field says whether the stop follows a block, so the count is kept.
    const stop = () =>
      hookInProcess(
        ['copilot', '--max-blocks', '2'],
        { timestamp: Date.now(), cwd: p.dir, sessionId: 'x', transcriptPath: join(p.dir, 't.jsonl'), stopReason: 'end_turn' },
        env(p),
      )
    const { answer } = await stop()
    expect(answer.decision).toBe('block')
    expect(answer.reason).toContain('AssertionError')
    const last = await stop()
    expect(last.answer.decision).toBe('block')
    expect(last.stderr).toMatch(/block 2 of 2/)
    // Copilot's answer has no field for a message to the user.
    const through = await stop()
    expect(through.answer).toEqual({})
    expect(through.stderr).toMatch(/NOT verified/)
    // The count started again: the next stop is blocked.
    expect((await stop()).answer.decision).toBe('block')
    // A count idle for half an hour belongs to an earlier turn: the next stop is block 1 again, not the last.
    const file = join(p.dir, '.verify', 'hook-blocks.json')
    const counts = JSON.parse(readFileSync(file, 'utf8')) as { blocks: Record<string, { updatedAt: string }> }
    for (const entry of Object.values(counts.blocks)) entry.updatedAt = new Date(Date.now() - 31 * 60_000).toISOString()
    writeFileSync(file, JSON.stringify(counts))
    const later = await stop()
    expect(later.answer.decision).toBe('block')
    expect(later.stderr).not.toMatch(/block 2 of 2/)
  })
})
