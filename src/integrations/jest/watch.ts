// Jest's watch mode runs again at every change of a file it watches; by default that includes every `.json` file
// under its roots, the evidence file among them. A record there would start another run, without end: where Jest
// watches the evidence file, the reporter says so once and records nothing in watch mode.
import { dirname, extname, isAbsolute, relative, sep } from 'node:path'

/** The fields of a Jest project's config this module reads: what its watch mode watches. */
export interface JestProjectConfig {
  rootDir: string
  roots?: readonly string[]
  moduleFileExtensions?: readonly string[]
  modulePathIgnorePatterns?: readonly string[]
  watchPathIgnorePatterns?: readonly string[]
  cacheDirectory?: string
}

// The folders of version control that Jest's file map never looks into.
const VCS = new Set(['.git', '.hg', '.sl'])

/**
 * The project among `configs` whose watch mode reruns on a change of `file`, or null. As Jest's file map in watch mode
 * (which keeps node_modules): a file under one of the project's roots, with one of its module extensions, outside
 * version control's folders and the project's cache directory, matched by none of its `modulePathIgnorePatterns` and
 * `watchPathIgnorePatterns` (regular expressions over the absolute path); and, as Jest's watch loop, outside the
 * coverage directory.
 */
export function watchingProject(configs: Iterable<JestProjectConfig>, file: string, coverageDirectory?: string): JestProjectConfig | null {
  if (coverageDirectory && file.includes(coverageDirectory)) return null
  if (file.split(sep).some((part) => VCS.has(part))) return null
  for (const config of configs) {
    const roots = config.roots ?? [config.rootDir]
    if (!roots.some((root) => inside(root, file))) continue
    if (config.moduleFileExtensions && !config.moduleFileExtensions.includes(extname(file).slice(1))) continue
    if (config.cacheDirectory && inside(config.rootDir, config.cacheDirectory) && inside(config.cacheDirectory, file)) continue
    const ignored = [...(config.modulePathIgnorePatterns ?? []), ...(config.watchPathIgnorePatterns ?? [])]
    if (ignored.length > 0 && new RegExp(ignored.join('|')).test(file)) continue
    return config
  }
  return null
}

function inside(folder: string, file: string): boolean {
  const path = relative(folder, file)
  return path !== '' && !path.startsWith('..') && !isAbsolute(path)
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The `watchPathIgnorePatterns` entry that leaves the evidence file's folder out: `<rootDir>/.verify/`. */
export function ignorePattern(project: JestProjectConfig, evidencePath: string): string {
  const folder = dirname(evidencePath)
  if (!inside(project.rootDir, evidencePath)) return `${escape(folder.split(sep).join('/'))}/`
  const below = relative(project.rootDir, folder).split(sep).filter(Boolean)
  return `<rootDir>/${below.map((part) => `${escape(part)}/`).join('')}`
}

// Every project seen in this watch session: a run that ran the tests of some projects only (or none) does not name
// the others, which watch as well.
const seen = new Map<string, JestProjectConfig>()
// Said once per evidence file in a watch session, not at each run.
const told = new Set<string>()

/**
 * In watch mode, whether the record of this run must not be written (the reason printed once): Jest watches the
 * evidence file, or the run ran no test at all (its projects unknown; and it proves nothing).
 */
export function recordWouldRerun(
  contexts: Iterable<{ config: JestProjectConfig }>,
  evidencePath: string,
  checkId: string,
  coverageDirectory: string | undefined,
  write: (text: string) => void,
): boolean {
  const ran = [...contexts].map((context) => context.config)
  for (const config of ran) seen.set(config.rootDir, config)
  if (ran.length === 0) return true
  const project = watchingProject(seen.values(), evidencePath, coverageDirectory)
  if (!project) return false
  if (!told.has(evidencePath))
    write(
      `verify: not recording "${checkId}" evidence in Jest's watch mode: Jest watches ${relative(project.rootDir, evidencePath)}, and each record ` +
        `would start another run, without end. Add "watchPathIgnorePatterns": [${JSON.stringify(ignorePattern(project, evidencePath))}] to Jest's config ` +
        `and start Jest again: then each run in watch mode records.\n`,
    )
  told.add(evidencePath)
  return true
}
