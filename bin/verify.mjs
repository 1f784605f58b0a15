#!/usr/bin/env node
import { existsSync } from 'node:fs'

const entry = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write('verify: the package is not built (no dist/). Run `npm run build` in verify-protocol first.\n')
  process.exit(2)
}
const { main } = await import(entry.href)
await main(process.argv.slice(2))
