// A shard's reports speak for the checks it ran: the other shards' checks are neither listed nor blamed.
import { describe, expect, test } from 'vitest'
import { renderAgentDigest } from '../../src/reporters/agent.js'
import { renderAnnotations } from '../../src/reporters/github-actions.js'
import { renderJUnit } from '../../src/reporters/junit.js'
import { renderMarkdownSummary } from '../../src/reporters/markdown-summary.js'
import { CWD, outcome, result } from '../helpers/outcome.js'
import { parseWorkflowLog } from './workflow.js'
import { childElements, parseXml } from './xml.js'

const shardRun = (ownStatus: 'passed' | 'failed' = 'passed') =>
  outcome(
    [
      result('build', 'passed'),
      result('test', ownStatus, { output: 'boom\n' }),
      result('lint', 'skipped', { reason: 'runs in another shard (of 2)' }),
      result('e2e', 'skipped', { reason: 'runs in another shard (of 2)' }),
    ],
    { shard: { index: 1, total: 2, checks: ['build', 'test'] } },
  )

describe('shard runs', () => {
  test('junit: only the shard’s testcases, and which shard it was', () => {
    const suite = childElements(parseXml(renderJUnit(shardRun())), 'testsuite')[0]
    expect(childElements(suite as never, 'testcase').map((c) => c.attributes.name)).toEqual(['build', 'test'])
    expect(suite?.attributes).toMatchObject({ tests: '2', skipped: '0', failures: '0' })
    const props = childElements(childElements(suite as never, 'properties')[0] as never, 'property')
    expect(props.find((p) => p.attributes.name === 'shard')?.attributes.value).toBe('1/2')
    expect(props.find((p) => p.attributes.name === 'verdict')?.attributes.value).toBe('approved')
  })

  test('annotations: a passing share has none (the other shards’ checks are not “incomplete” here)', () => {
    expect(parseWorkflowLog(renderAnnotations(shardRun())).commands).toEqual([])
    expect(parseWorkflowLog(renderAnnotations(shardRun('failed'))).commands.map((c) => c.properties.title)).toEqual(['test'])
  })

  test('markdown: the shard’s verdict, its rows, and where the protocol’s verdict comes from', () => {
    const md = renderMarkdownSummary(shardRun(), { maxBytes: 64 * 1024, cwd: CWD })
    expect(md.startsWith('### ✅ verify shard 1/2: approved\n\nShard 1/2 of protocol `default` · 2 checks: 2 passed')).toBe(true)
    expect(md).toContain('`verify merge`')
    expect(md).not.toContain('`lint`')
  })

  test('agent: the shard’s verdict and scope', () => {
    expect(renderAgentDigest(shardRun('failed'), { cwd: CWD }).split('\n')[0]).toBe(
      'verify: REJECTED — 1 passed, 1 failed of 2 checks (shard 1/2 of protocol default, 3.21s)',
    )
  })
})
