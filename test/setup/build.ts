// The end-to-end tests spawn the built CLI (tsc's library and the CLI's bundle): build it from the current sources before any test runs, unless dist/ is
// already newer than every source file (so concurrent test runs do not rewrite dist/ under each other's feet).
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

function newest(dir: string): number {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return latest
}

function oldest(dir: string): number {
  let first = Number.POSITIVE_INFINITY
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile() && entry.name.endsWith('.js')) first = Math.min(first, statSync(join(entry.parentPath, entry.name)).mtimeMs)
    }
  } catch {
    return 0
  }
  return first === Number.POSITIVE_INFINITY ? 0 : first
}

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  if (oldest(join(root, 'dist')) > newest(join(root, 'src'))) return
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  // The bin runs the bundle (dist/cli.js): rebuild it from the same sources.
  execFileSync(process.execPath, ['node_modules/rolldown/bin/cli.mjs', '-c', 'rolldown.config.mjs'], { cwd: root, stdio: 'ignore' })
}
