#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const entry = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url))
if (!existsSync(entry)) {
  process.stderr.write('verify: the package is not built (no dist/). Run `npm run build` in verify-protocol first.\n')
  process.exit(2)
}
// `verify --version` is asked by scripts and agents to see whether verify is there: it needs nothing of the bundle.
const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  // As the CLI does (src/cli/io.ts): a reader gone away is no failure; an output that cannot be written is (exit 2).
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') return
    process.stderr.write(`verify: cannot write to standard output (${error.code ?? error.message}): the output is lost (exit 2).\n`)
    process.exitCode = 2
  })
  process.stdout.write(`${version}\n`)
} else {
  // The bundle is compiled with V8's code cache (dist/cli/code-cache.js, docs/performance.md).
  const { requireBundle } = await import('../dist/cli/code-cache.js')
  const { main } = requireBundle(entry)
  await main(args)
}
