#!/usr/bin/env node
'use strict'
// CommonJS, like the bundle it loads: a bin that is an ES module makes Node set up its ES module loader first.
const { existsSync, readFileSync } = require('node:fs')
const { join } = require('node:path')

const entry = join(__dirname, '..', 'dist', 'cli.cjs')
const loader = join(__dirname, '..', 'dist', 'cli-loader.cjs')
const args = process.argv.slice(2)
// Both, as one build writes them: a dist/ of an earlier build may hold the bundle without its loader.
if (!existsSync(entry) || !existsSync(loader)) {
  process.stderr.write(
    'verify: the package is not built (no dist/cli.cjs and dist/cli-loader.cjs of one build). Run `npm run build` in verify-protocol first.\n',
  )
  process.exitCode = 2
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  // `verify --version` is asked by scripts and agents to see whether verify is there: it needs nothing of the bundle.
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'))
  // As the CLI does (src/cli/io.ts): a reader gone away is no failure; an output that cannot be written is (exit 2).
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') return
    process.stderr.write(`verify: cannot write to standard output (${error.code ?? error.message}): the output is lost (exit 2).\n`)
    process.exitCode = 2
  })
  process.stdout.write(`${version}\n`)
} else {
  // The bundle is compiled with V8's code cache (src/cli/code-cache.ts, docs/performance.md).
  const { requireBundle } = require(loader)
  requireBundle(entry).main(args)
}
