// The package folders a package manager command reaches: the nearest package.json at or above a folder, and the
// packages of the workspace it is in (npm and yarn `workspaces`, pnpm-workspace.yaml), for config/scripts.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/** The folder of the package.json a package manager started in `dir` uses: the nearest one at or above it. */
export function nearestPackage(dir: string): string {
  for (let at = dir, depth = 0; depth < 12; depth++) {
    if (existsSync(join(at, 'package.json'))) return at
    const up = dirname(at)
    if (up === at) break
    at = up
  }
  return dir
}

/** The folders of the workspace packages of the workspace `dir` is in (npm/yarn `workspaces`, pnpm-workspace.yaml). */
export function workspacePackages(dir: string): string[] {
  for (let at = dir, depth = 0; depth < 12; depth++) {
    const patterns = workspacePatterns(at)
    if (patterns) return [at, ...patterns.flatMap((pattern) => expandFolders(at, pattern))]
    const up = dirname(at)
    if (up === at) break
    at = up
  }
  return [dir]
}

/** The `workspaces` a package.json declares, as written; undefined when it declares none. */
export function workspacesField(dir: string): unknown {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { workspaces?: unknown }).workspaces
  } catch {
    return undefined
  }
}

/** The folder of the workspace `dir` belongs to (its own when it is in none). */
export function workspaceRoot(dir: string): string {
  for (let at = dir, depth = 0; depth < 12; depth++) {
    if (workspacePatterns(at)) return at
    const up = dirname(at)
    if (up === at) break
    at = up
  }
  return dir
}

function workspacePatterns(dir: string): string[] | undefined {
  try {
    const yaml = readFileSync(join(dir, 'pnpm-workspace.yaml'), 'utf8')
    const list = /^packages:\s*\n((?:\s*-.*\n?|\s*#.*\n?)*)/m.exec(yaml)?.[1] ?? ''
    return [...list.matchAll(/^\s*-\s*['"]?([^'"#\n]+?)['"]?\s*(?:#.*)?$/gm)].map((m) => (m[1] as string).trim())
  } catch {
    // no pnpm workspace here
  }
  try {
    const { workspaces } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { workspaces?: unknown }
    const list = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : undefined
  } catch {
    return undefined
  }
}

/** The folders a workspace pattern names (`packages/*`, `apps/**`, `tools/cli`); negations name none. */
function expandFolders(root: string, pattern: string): string[] {
  if (pattern.startsWith('!')) return []
  const parts = pattern.replace(/^\.\//, '').replace(/\/$/, '').split('/')
  let folders = [root]
  for (const part of parts) {
    const next: string[] = []
    for (const folder of folders) {
      if (part === '**') next.push(folder, ...subfolders(folder, 3))
      else if (/[*?[{]/.test(part)) {
        const matcher = new RegExp(
          `^${part
            .replace(/[.+^$()|\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]')}$`,
        )
        next.push(...subfolders(folder, 1).filter((sub) => matcher.test(basename(sub))))
      } else next.push(join(folder, part))
    }
    folders = next
  }
  return folders.filter((folder) => existsSync(join(folder, 'package.json')))
}

function subfolders(dir: string, depth: number): string[] {
  if (depth === 0) return []
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries
    .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
    .flatMap((entry) => [join(dir, entry.name), ...subfolders(join(dir, entry.name), depth - 1)])
}
