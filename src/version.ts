// The package's own name and version, read once from its package.json (one folder above src/ and dist/), and where the
// package is installed.
import { readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

export const TOOL = { name: pkg.name, version: pkg.version } as const

/** The package's folder: the repository, or `node_modules/verify-protocol` of the project that installed it. */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * Where verify keeps a cache of its own (`name`: compiled code, config transforms): `.cache/verify-protocol/<name>` in
 * the node_modules that holds the package, or in the package's own node_modules when it is not installed as one. As
 * easy to write as verify's own files and no easier, and gone with them on `npm ci`: never the temp dir, where one
 * job could leave code for the next.
 */
export function installCacheDir(name: string, packageRoot: string = PACKAGE_ROOT): string {
  const parent = dirname(packageRoot.replace(/[\\/]+$/, ''))
  const modules = basename(parent) === 'node_modules' ? parent : join(packageRoot, 'node_modules')
  return join(modules, '.cache', 'verify-protocol', name)
}
