// What presets read from the project being verified: its package.json and its package manager.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { PresetContext } from '../config/define.js'

export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun'

export interface PackageJson {
  name?: string
  scripts?: Record<string, string>
  packageManager?: string
  devDependencies?: Record<string, string>
  dependencies?: Record<string, string>
}

/** Lockfiles by package manager, in the order they are looked for in each folder. */
const LOCKFILES: readonly (readonly [string, PackageManager])[] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
]

/** The folder a preset reads: the context's rootDir, else the process's cwd. */
export function projectDir(context?: Partial<PresetContext>): string {
  return resolve(context?.rootDir ?? process.cwd())
}

/** The project's package.json. Throws when there is none or it is not JSON: a preset cannot guess. */
export function readPackageJson(rootDir: string): PackageJson {
  const file = join(rootDir, 'package.json')
  if (!existsSync(file)) throw new Error(`no package.json in ${rootDir}`)
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJson
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}

export interface DetectedPackageManager {
  name: PackageManager
  /** Why: the `packageManager` field, the lockfile found (path), or `default`. */
  from: string
}

/**
 * The project's package manager: package.json's `packageManager` field (Corepack), else the nearest lockfile in the
 * project's folder or above it (a workspace package's lockfile is at the workspace root), else npm.
 */
export function detectPackageManager(rootDir: string, pkg?: PackageJson): DetectedPackageManager {
  const field = pkg?.packageManager?.split('@')[0]
  if (field === 'npm' || field === 'pnpm' || field === 'yarn' || field === 'bun') return { name: field, from: 'packageManager' }
  for (let dir = rootDir; ; dir = dirname(dir)) {
    for (const [file, name] of LOCKFILES) if (existsSync(join(dir, file))) return { name, from: join(dir, file) }
    if (dirname(dir) === dir) break
  }
  return { name: 'npm', from: 'default' }
}

/** `npm run build`, `pnpm run build`, … */
export function runScript(pm: PackageManager, script: string): string {
  return `${pm} run ${script}`
}

/** Runs a binary installed in the project (never downloads one): argv for a check's `command`. */
export function execBin(pm: PackageManager, bin: string, args: readonly string[]): string[] {
  switch (pm) {
    case 'npm':
      return ['npm', 'exec', '--no', '--', bin, ...args]
    case 'pnpm':
      return ['pnpm', 'exec', bin, ...args]
    case 'yarn':
      return ['yarn', 'run', bin, ...args]
    case 'bun':
      return ['bun', 'run', bin, ...args]
  }
}
