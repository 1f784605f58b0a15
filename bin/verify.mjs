#!/usr/bin/env node
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const entry = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url))
if (!existsSync(entry)) {
  process.stderr.write('verify: the package is not built (no dist/). Run `npm run build` in verify-protocol first.\n')
  process.exit(2)
}
// The bundle is compiled with V8's code cache (dist/cli/code-cache.js, docs/performance.md).
const { requireBundle } = await import('../dist/cli/code-cache.js')
const { main } = requireBundle(entry)
await main(process.argv.slice(2))
