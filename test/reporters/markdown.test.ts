// The markdown summary (shared by `markdown` and `github-actions`): a table a parser can read back, output
// tails that cannot break out of their blocks, and a byte budget met by shortening tails, then dropping rows.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { createMarkdownReporter, MARKDOWN_MAX_BYTES } from '../../src/reporters/markdown.js'
import { escapeMarkdown, renderMarkdownSummary } from '../../src/reporters/markdown-summary.js'
import type { RunOutcome } from '../../src/reporters/types.js'
import { CWD, lines, outcome, recorder, replay, result } from '../helpers/outcome.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-md-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Table {
  header: string[]
  rows: string[][]
}

const cells = (line: string) =>
  line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\([\\`*_[\]|~#])/g, '$1'))

/** Reads the first GFM table: cells split on unescaped pipes, escapes undone. */
function parseTable(markdown: string): Table {
  const block = markdown
    .split('\n')
    .filter((line, i, all) => line.startsWith('|') && (i === 0 || all[i - 1]?.startsWith('|') || all[i + 1]?.startsWith('| :--')))
  const [header, separator, ...rows] = block
  if (!header || !separator) throw new Error('no table')
  expect(cells(separator).every((c) => /^:?-+:?$/.test(c))).toBe(true)
  const table = { header: cells(header), rows: rows.map(cells) }
  for (const row of table.rows) expect(row).toHaveLength(table.header.length)
  return table
}

/** The <details> blocks: summary line and the code block's lines. */
function parseDetails(markdown: string): { summary: string; code: string[] }[] {
  const blocks = [...markdown.matchAll(/<details><summary>(.*?)<\/summary>\n\n([\s\S]*?)\n\n<\/details>/g)]
  return blocks.map(([, summary = '', body = '']) => {
    const fence = /^(`{3,})text\n/.exec(body)
    if (!fence) return { summary, code: [] }
    const end = `\n${fence[1]}`
    expect(body.endsWith(end)).toBe(true)
    return { summary, code: body.slice(fence[0].length, -end.length).split('\n') }
  })
}

const render = (run: RunOutcome, maxBytes = 1024 * 1024) => renderMarkdownSummary(run, { maxBytes, cwd: CWD })

const sample = () =>
  outcome([
    result('build', 'passed', { name: 'Build', durationMs: 2841 }),
    result('test', 'failed', { name: 'Unit | tests *now*', reason: 'exit code 2', output: lines(80, (i) => `line ${i}`), durationMs: 61_000 }),
    result('lint', 'failed', { required: false, reason: 'exit code 1', output: 'warning\n' }),
    result('e2e', 'skipped', { reason: 'its dependency "test" did not pass (failed)' }),
    result('review', 'pending_manual', { reason: 'A reviewer <b>reads</b> it' }),
  ])

describe('markdown summary: structure', () => {
  test('the verdict heading, a row per check with status and duration, and tails of failing checks', () => {
    const md = render(sample())
    expect(md.startsWith('### ❌ verify: rejected\n')).toBe(true)
    expect(md).toContain('5 checks: 1 passed, 2 failed, 1 skipped, 1 pending · 3.21s')
    const table = parseTable(md)
    expect(table.header).toEqual(['Check', 'Status', 'Duration'])
    expect(table.rows).toEqual([
      ['✅ Build (`build`)', 'passed', '2.84s'],
      ['❌ Unit | tests *now* (`test`)', 'failed — exit code 2', '1m 01s'],
      ['❌ `lint`', 'failed — exit code 1 _(optional)_', '1.23s'],
      ['⏭️ `e2e`', 'skipped — its dependency "test" did not pass (failed)', '—'],
      ['✋ `review`', 'pending manual — A reviewer &lt;b&gt;reads&lt;/b&gt; it', '—'],
    ])
    const details = parseDetails(md)
    expect(details.map((d) => d.summary)).toEqual([
      '❌ <code>test</code> Unit | tests *now* — exit code 2 (last 50 of 80 lines)',
      '❌ <code>lint</code> — exit code 1 (1 line)',
    ])
    expect(details[0]?.code).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i + 31}`))
    expect(md).toContain('**Next**')
    expect(md).toContain('npx verify approve review')
  })

  test('escapeMarkdown: no line breaks, no HTML, no table pipes, no emphasis', () => {
    expect(escapeMarkdown('a|b\n<i>*c*</i> `d` [e](f) _g_ #h ~i~ \\')).toBe('a\\|b &lt;i&gt;\\*c\\*&lt;/i&gt; \\`d\\` \\[e\\](f) \\_g\\_ \\#h \\~i\\~ \\\\')
  })

  test('output with backtick fences, </details> and HTML stays inside its code block', () => {
    const output = ['```', '````js', '</details>', '<script>alert(1)</script>', '| not | a | row |', '::error::x'].join('\n')
    const md = render(outcome([result('evil', 'failed', { output: `${output}\nbell\u0007 nul\u0000 esc\u001b end` })]))
    const [detail] = parseDetails(md)
    // As a terminal would show it: `ESC SP e` is an escape sequence (nF) and takes the `e` with it.
    expect(detail?.code).toEqual([...output.split('\n'), 'bell nul escnd'])
    expect(md).not.toMatch(/[\u0000-\u0008\u000B-\u001F]/)
    // One table, one row: the output did not add any.
    expect(parseTable(md).rows).toHaveLength(1)
  })

  test('approved: a green heading, every row passed, no tails', () => {
    const md = render(outcome([result('a', 'passed'), result('b', 'passed')]))
    expect(md.startsWith('### ✅ verify: approved\n')).toBe(true)
    expect(parseTable(md).rows.map((r) => r[1])).toEqual(['passed', 'passed'])
    expect(parseDetails(md)).toEqual([])
  })

  test('an interrupted run says so', () => {
    const md = render(outcome([result('a', 'passed'), result('b', 'cancelled', { reason: 'interrupted by SIGINT' })], { interrupted: 'SIGINT' }))
    expect(md).toContain('**Interrupted by SIGINT**')
    expect(md.startsWith('### ⚠️ verify: incomplete')).toBe(true)
  })

  test('normalised snapshot', () => {
    expect(render(sample()).replace(/line (\d+)\n/g, (m, n: string) => (Number(n) > 33 && Number(n) < 78 ? '' : m))).toMatchSnapshot()
  })
})

const failing = (count: number, outputLines: number) =>
  outcome(
    Array.from({ length: count }, (_, i) =>
      result(`check-${String(i).padStart(3, '0')}`, 'failed', { output: lines(outputLines, (k) => `${k} ${'x'.repeat(150)}`) }),
    ),
  )

describe('markdown summary: the byte budget', () => {
  test('within budget: nothing is shortened and no note is added', () => {
    const md = render(failing(3, 10), 64 * 1024)
    expect(md).not.toMatch(/shortened|left out/)
    expect(parseDetails(md).map((d) => d.code.length)).toEqual([10, 10, 10])
  })

  test('over budget: tails are cut first (whole last lines), every row stays, and it says so', () => {
    const md = render(failing(20, 50), 32 * 1024)
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(32 * 1024)
    expect(parseTable(md).rows).toHaveLength(20)
    const details = parseDetails(md)
    expect(details.length).toBeGreaterThan(0)
    for (const d of details) {
      expect(d.code.length).toBeLessThan(50)
      // The kept lines are the last ones, whole.
      expect(d.code.at(-1)).toBe(`50 ${'x'.repeat(150)}`)
    }
    expect(md).toMatch(/_Output tails were shortened( and \d+ of 20 left out)? to keep this summary under 32 KiB/)
  })

  test('far over budget: rows of failing checks are kept before passing ones, and the note counts what is missing', () => {
    const results = [
      ...Array.from({ length: 300 }, (_, i) => result(`pass-${i}`, 'passed')),
      ...Array.from({ length: 20 }, (_, i) => result(`fail-${i}`, 'failed', { output: 'x\n' })),
    ]
    const md = render(outcome(results), 4 * 1024)
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(4 * 1024)
    const rows = parseTable(md).rows
    expect(rows.filter((r) => r[0]?.includes('fail-'))).toHaveLength(20)
    expect(rows.length).toBeLessThan(320)
    expect(parseDetails(md)).toEqual([])
    expect(md).toContain(`_${320 - rows.length} of 320 checks and every output tail were left out to keep this summary under 4 KiB`)
  })

  test('the budget holds for any size, down to a tiny one', () => {
    for (const max of [300, 1000, 5000, 20_000, 100_000]) {
      expect(Buffer.byteLength(render(failing(40, 100), max))).toBeLessThanOrEqual(max)
    }
  })
})

describe('markdown reporter', () => {
  test('to stdout by default, capped for a GitHub comment', async () => {
    const { options, out } = recorder()
    await replay(createMarkdownReporter(options), failing200())
    expect(out.text.startsWith('### ❌ verify: rejected')).toBe(true)
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES)
  })

  test('markdown=<file> writes the file, nothing to stdout', async () => {
    const file = join(tmp, 'out', 'summary.md')
    const { options, out } = recorder({ file })
    await replay(createMarkdownReporter(options), sample())
    expect(out.text).toBe('')
    expect(readFileSync(file, 'utf8')).toBe(render(sample(), MARKDOWN_MAX_BYTES))
  })
})

function failing200(): RunOutcome {
  return outcome(Array.from({ length: 200 }, (_, i) => result(`c${i}`, 'failed', { output: lines(100, (k) => `${k} ${'q'.repeat(100)}`) })))
}
