// docs/ci.md shows the workflow this repository runs: the first YAML block is .github/workflows/verify.yml.
import { readFileSync } from 'node:fs'
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
