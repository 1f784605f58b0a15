// The package's own name and version, read once from its package.json (one folder above src/ and dist/), and where the
// package is installed.
import { lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs'
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

/**
 * `<installCacheDir(name)>/<leaf>`, made if missing (0700) unless `create` is false, for what verify runs as code from there (compiled code,
 * config transforms); null when it cannot be made, or when a folder on the way is a symlink, is another user's, or is
 * writable by others. Writable by its group, it is used only when that group can write verify's own folder as well
 * (under a umask of 002, another tool's `.cache` and npm's install of verify both are). `.cache` itself must sit in a
 * real node_modules folder.
 */
export function privateCacheFolder(
  name: string,
  leaf: string,
  packageRoot: string = PACKAGE_ROOT,
  { create = true }: { create?: boolean } = {},
): string | null {
  const uid = process.getuid?.()
  if (uid === undefined) return null
  const own = installCacheDir(name, packageRoot)
  const cache = dirname(dirname(own))
  const folder = join(own, leaf)
  try {
    if (!lstatSync(dirname(cache)).isDirectory()) return null
    const code = statSync(packageRoot)
    const codeGroup = (code.mode & 0o020) !== 0 ? code.gid : null
    if (create) mkdirSync(folder, { recursive: true, mode: 0o700 })
    for (const dir of [cache, join(cache, 'verify-protocol'), own, folder]) {
      const info = lstatSync(dir)
      if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o002) !== 0) return null
      if ((info.mode & 0o020) !== 0 && info.gid !== codeGroup) return null
    }
    return folder
  } catch {
    return null
  }
}
