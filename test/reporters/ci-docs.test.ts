// docs/ci.md shows the workflow this repository runs: the first YAML block is .github/workflows/verify.yml.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { REPORTERS } from '../../src/reporters/index.js'

const ROOT = join(import.meta.dirname, '..', '..')
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

test('the single-job workflow in docs/ci.md is the project’s own workflow, byte for byte', () => {
  const block = /```yaml\n([\s\S]*?)```/.exec(read('docs/ci.md'))?.[1]
  expect(block).toBe(read('.github/workflows/verify.yml'))
})

test('the docs name every built-in reporter', () => {
  const cli = read('docs/cli.md')
  const readme = read('README.md')
  for (const name of Object.keys(REPORTERS)) {
    expect(cli, name).toContain(`| \`${name}\` |`)
    expect(readme, name).toContain(`\`${name}\``)
  }
})

/** A JUnit report of three tests: one passing, one with `failures` inside, one skipped. */
const report = (failures: string) =>
  `<?xml version="1.0"?><testsuites><testsuite name="s" tests="3"><testcase name="a"/><testcase name="b">${failures}</testcase><testcase name="c"><skipped/></testcase></testsuite></testsuites>`

// .ci/run ends with .ci/summary.mjs, which reads the built dist/: a module moved in src/ must not break the CI gate.
test('the CI summary line reads a JUnit report with the built parser: counts, and exit 1 on a failure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verify-ci-summary-'))
  try {
    writeFileSync(join(dir, 'ok.xml'), report(''))
    writeFileSync(join(dir, 'failed.xml'), report('<failure message="no"/>'))
    const summary = (file: string) => spawnSync(process.execPath, [join(ROOT, '.ci', 'summary.mjs'), join(dir, file)], { encoding: 'utf8', timeout: 20_000 })
    const ok = summary('ok.xml')
    expect(ok.stdout.trim(), ok.stderr).toBe('Tests: 2 passed, 0 failed, 1 skipped')
    expect(ok.status).toBe(0)
    const failed = summary('failed.xml')
    expect(failed.stdout.trim(), failed.stderr).toBe('Tests: 1 passed, 1 failed, 1 skipped')
    expect(failed.status).toBe(1)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
