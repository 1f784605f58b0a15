// The agent digest: short whatever the output, error lines first, and the next command to run.
import { describe, expect, test } from 'vitest'
import { createAgentReporter, renderAgentDigest } from '../../src/reporters/agent.js'
import { excerpt } from '../../src/reporters/excerpt.js'
import { combineReporters } from '../../src/reporters/index.js'
import { createReporters } from '../../src/reporters/select.js'
import { CWD, lines, outcome, recorder, replay, result } from '../helpers/outcome.js'

const digest = (...args: Parameters<typeof outcome>) => renderAgentDigest(outcome(...args), { cwd: CWD })

describe('agent digest', () => {
  test('a failing check with 10,000 lines of output: short, verdict first, then the error lines, then the tail', () => {
    let output = ''
    for (let i = 1; i <= 10_000; i++) {
      if (i === 1200) output += 'FAIL src/parser.test.ts > parses an empty file\n'
      else if (i === 1201 || i === 5000) output += "AssertionError: expected '' to equal '[]'\n"
      else if (i === 7000) output += `Error: ${'very long '.repeat(100)}\n`
      else output += `  progress ${i} ok\n`
    }
    const text = digest([
      result('build', 'passed'),
      result('test', 'failed', { name: 'Unit tests', reason: 'exit code 1', output, command: 'vitest run', exitCode: 1 }),
    ])
    const out = text.trimEnd().split('\n')
    expect(out.length).toBeLessThan(50)
    expect(out[0]).toMatch(/^verify: REJECTED — 1 passed, 1 failed of 2 checks \(protocol default, 3\.21s\)$/)
    expect(out).toContain('✗ test (Unit tests) — failed: exit code 1')
    expect(out).toContain('  $ vitest run')
    const shown = out.filter((l) => l.startsWith('  │ ')).map((l) => l.slice(4))
    expect(shown.length).toBeLessThanOrEqual(30)
    // The error lines lead, each once, in the order they appeared.
    expect(shown.slice(0, 3)).toEqual([
      'FAIL src/parser.test.ts > parses an empty file',
      "AssertionError: expected '' to equal '[]'",
      expect.stringMatching(/^Error: very long/),
    ])
    expect(shown.filter((l) => l.startsWith('AssertionError'))).toHaveLength(1)
    // Then the end of the output.
    expect(shown.at(-1)).toBe('  progress 10000 ok')
    for (const line of out) expect([...line].length).toBeLessThanOrEqual(310)
    expect(text).toContain('(10000 lines in all; full log: .verify/logs/test.log)')
    expect(out.slice(-3)).toEqual(['Next:', '  fix the failures above, then: npx verify run --reuse', 'Evidence: .verify/evidence.json'])
  })

  test('short output is shown whole, in order, without control characters', () => {
    const text = digest([result('build', 'failed', { output: 'compiling\u0007\nerror TS2304: x\u0000\nlast line\n' })])
    expect(text).toContain('  │ compiling\n  │ error TS2304: x\n  │ last line\n')
    expect(text).not.toContain('⋮')
  })

  test('timeouts, signals and errors say how the check ended', () => {
    const text = digest([
      result('slow', 'timed_out', { reason: 'timed out after 10s; its process group was killed', exitCode: null }),
      result('gone', 'error', { reason: 'the shell could not find the command (exit code 127)', exitCode: 127 }),
      result('killed', 'failed', { reason: 'killed by SIGKILL', exitCode: null, signal: 'SIGKILL' }),
    ])
    expect(text).toContain('⏱ slow — timed out: timed out after 10s; its process group was killed')
    expect(text).toContain('  signal SIGTERM, timed out, 1.23s')
    expect(text).toContain('✗ gone — error: the shell could not find the command (exit code 127)')
    expect(text).toContain('  exit code 127, 1.23s')
    expect(text).toContain('  signal SIGKILL, 1.23s')
    expect(text).toContain('  fix the failures above, then: npx verify run --reuse\n')
  })

  test('manual checks: the approve command; skipped ones are re-run; a named protocol is in the command', () => {
    const text = digest(
      [
        result('build', 'failed'),
        result('test', 'skipped', { reason: 'its dependency "build" did not pass (failed)' }),
        result('review', 'pending_manual', { reason: 'A reviewer read it' }),
      ],
      { name: 'release' },
    )
    expect(text).toContain('↓ test — skipped: its dependency "build" did not pass (failed)')
    expect(text).toContain('? review — pending manual: A reviewer read it')
    expect(text).toContain('  fix the failures above, then: npx verify run release --reuse\n')
    expect(text).toContain('  ask a person to approve: npx verify approve review --by <name> --protocol release\n')
  })

  test('Next is the run’s own command: its protocol, config, folder and evidence, then --reuse', async () => {
    const invocation = 'npx verify run deploy --config sub/verify.config.ts --evidence out/evidence.json'
    const run = outcome([result('build', 'failed'), result('test', 'skipped'), result('review', 'pending_manual')], { name: 'deploy' })
    const { options, out } = recorder({ invocation })
    await replay(createAgentReporter(options), run)
    expect(out.text).toContain(
      [
        'Next:',
        `  fix the failures above, then: ${invocation} --reuse`,
        '  ask a person to approve: npx verify approve review --by <name> --protocol deploy --config sub/verify.config.ts --evidence out/evidence.json',
        '',
      ].join('\n'),
    )
  })

  test('incomplete with no check to point at: the run’s own command again', () => {
    const text = renderAgentDigest(outcome([]), { cwd: CWD, invocation: 'pnpm verify run --cwd packages/app' })
    expect(text).toContain('Next:\n  pnpm verify run --cwd packages/app\n')
  })

  test('the CLI’s invocation reaches the digest through createReporters', async () => {
    let text = ''
    const io = { stdout: (t: string) => void (text += t), stderr: () => {}, env: {}, cwd: CWD, isTTY: false }
    const reporters = await createReporters(['agent'], io, false, undefined, { invocation: 'npx verify run --cwd sub' })
    await replay(combineReporters(reporters), outcome([result('build', 'failed')]))
    expect(text).toContain('  fix the failures above, then: npx verify run --cwd sub --reuse\n')
  })

  test('200 failing checks: a bounded digest', () => {
    const results = Array.from({ length: 200 }, (_, i) => result(`c${i}`, 'failed', { output: lines(500, (k) => `error ${k}`) }))
    const out = digest(results).split('\n')
    expect(out.length).toBeLessThan(8 * 40 + 40)
    expect(out).toContain('… and 172 more')
  })

  test('approved: the verdict line, and optional failures as one warning line', () => {
    const text = digest([result('build', 'passed'), result('lint', 'failed', { required: false })])
    expect(text).toBe(
      'verify: APPROVED — 1 passed, 1 failed of 2 checks (protocol default, 3.21s)\n\nWarnings (optional checks, not blocking): lint failed\nEvidence: .verify/evidence.json\n',
    )
  })

  test('the reporter prints a start line and the digest, nothing per check', async () => {
    const { options, out } = recorder()
    await replay(createAgentReporter(options), outcome([result('a', 'passed', { output: 'noise\n' })]))
    expect(out.text).toBe(
      'verify: running protocol default (1 check)…\nverify: APPROVED — 1 passed of 1 check (protocol default, 3.21s)\nEvidence: .verify/evidence.json\n',
    )
  })
})

describe('excerpt', () => {
  test('"0 failed" and "no errors" are not error lines', () => {
    const text = `${lines(40, (i) => `ok ${i}`)}Tests: 0 failed, 12 passed\nno errors found\n${lines(40, (i) => `more ${i}`)}`
    expect(excerpt(text, { maxLines: 10 }).matches).toEqual([])
  })

  test('error lines are capped and deduplicated; blank trailing lines do not count', () => {
    const text = `${lines(100, () => 'error: same')}${lines(100, (i) => `error ${i}`)}${lines(100, (i) => `tail ${i}`)}\n\n\n`
    const { matches, tail, total } = excerpt(text, { maxLines: 20 })
    expect(matches).toEqual(['error: same', ...Array.from({ length: 9 }, (_, i) => `error ${i + 1}`)])
    expect(tail).toEqual(Array.from({ length: 10 }, (_, i) => `tail ${i + 91}`))
    expect(total).toBe(300)
  })
})
