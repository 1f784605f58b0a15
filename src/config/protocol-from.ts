// Another source for the pipeline (index.ts): the protocol as a trusted git ref defines it (`--protocol-from
// origin/main`, SPEC §8): the change under test cannot lower the bar that judges it. The ref's tree is written to a
// temporary folder through a temporary index (the real index and work tree are never touched), what git ignores in the
// checkout (node_modules, build output) is linked in so presets and `verify-protocol` resolve, the config is loaded
// there by the normal loader, and every path is mapped back to the checkout — so the check digests, which use paths
// relative to the project's folder, equal those of the same config in the checkout.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { VerifyConfigError, VerifyUsageError } from '../errors.js'
import { loadVerifyConfig, type LoadedConfig, type LoadOptions } from './index.js'

function git(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 }).trim()
}

function inside(parent: string, path: string): boolean {
  const rel = relative(parent, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** The repository's top folder and the commit `ref` names; clear errors for no repository and unknown refs. */
function resolveRef(cwd: string, ref: string): { top: string; commit: string } {
  let top: string
  try {
    top = realpathSync(git(cwd, ['rev-parse', '--show-toplevel']))
  } catch {
    throw new VerifyUsageError(`--protocol-from ${ref} needs a git repository, and ${cwd} is not in one`)
  }
  let commit = ''
  try {
    // `--end-of-options`: a ref such as `--output=x` is a name, never an option.
    if (ref.trim() !== '') commit = git(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])
  } catch {
    commit = ''
  }
  if (!commit) {
    throw new VerifyUsageError(
      `--protocol-from ${JSON.stringify(ref)} is not a git ref (branch, tag or commit) of ${top}: check its spelling, or fetch it first (in CI: \`git fetch origin main\`, or actions/checkout with fetch-depth: 0)`,
    )
  }
  return { top, commit }
}

/** Writes the tree of `commit` under `folder` through a temporary index file. */
function writeTree(top: string, commit: string, folder: string, scratch: string): void {
  const env = { ...process.env, GIT_INDEX_FILE: join(scratch, 'index') }
  git(top, ['read-tree', commit], env)
  git(top, ['checkout-index', '--all', '--force', `--prefix=${folder}${sep}`], env)
}

/**
 * Links into the copy the checkout's installed packages (an ignored `node_modules`) in every folder from the
 * repository's top down to the project, so presets and `verify-protocol` resolve. Everything else comes only from the
 * ref, ignored files included (an ignored `.verifyrc` would otherwise join the trusted config).
 */
function linkIgnored(top: string, tree: string, project: string): WorkspaceLink[] {
  const parts = relative(top, project).split(sep).filter(Boolean)
  const candidates: string[] = []
  for (let i = 0; i <= parts.length; i++) {
    const folder = join(...parts.slice(0, i))
    let names: string[]
    try {
      names = readdirSync(join(top, folder))
    } catch {
      continue
    }
    // Installed packages only: any other ignored file (a `.verifyrc`, a generated config) is the checkout's, and the
    // checkout is the change under review.
    for (const name of names) if (name === 'node_modules' && !existsSync(join(tree, folder, name))) candidates.push(join(folder, name))
  }
  if (candidates.length === 0) return []
  let ignored: string[]
  try {
    ignored = execFileSync('git', ['check-ignore', '--stdin', '-z'], {
      cwd: top,
      input: `${candidates.join('\0')}\0`,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'ignore'],
    })
      .split('\0')
      .filter(Boolean)
  } catch {
    // Exit 1: nothing is ignored.
    return []
  }
  const linked = new Set<string>()
  const packages: WorkspaceLink[] = []
  for (const path of ignored) linkModules(top, tree, path, linked, packages)
  return packages
}

/**
 * Where a package link (npm, yarn and pnpm install a workspace package as one) leads into the repository's own files,
 * relative to its top; undefined for a link into installed packages or out of the repository.
 */
function workspaceTarget(top: string, link: string): string | undefined {
  let real: string
  try {
    real = realpathSync(link)
  } catch {
    return undefined
  }
  const rel = relative(top, real)
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('node_modules')) return undefined
  return rel
}

/** The links of a node_modules folder (and of its `@scope` folders) that lead to a workspace package. */
function workspaceLinks(top: string, folder: string): { path: string; target: string }[] {
  const links: { path: string; target: string }[] = []
  const scan = (dir: string, depth: number) => {
    let entries
    try {
      entries = readdirSync(join(top, dir), { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isSymbolicLink()) {
        const target = workspaceTarget(top, join(top, path))
        if (target !== undefined) links.push({ path, target })
      } else if (depth === 0 && entry.name.startsWith('@') && entry.isDirectory()) scan(path, 1)
    }
  }
  scan(folder, 0)
  return links
}

/**
 * Links the checkout's node_modules folder `folder` into the copy. A workspace package in it is the repository's own
 * code, which the change may have edited: it is linked to the ref's copy of it instead (with its own node_modules, in
 * turn), so that what the trusted config extends or imports is what the ref holds.
 */
/** A workspace package's link in node_modules and the package's folder, relative to the repository's top. */
interface WorkspaceLink {
  path: string
  target: string
}

function linkModules(top: string, tree: string, folder: string, linked: Set<string>, packages: WorkspaceLink[]): void {
  if (linked.has(folder)) return
  linked.add(folder)
  const links = workspaceLinks(top, folder)
  mkdirSync(dirname(join(tree, folder)), { recursive: true })
  if (links.length === 0) {
    symlinkSync(join(top, folder), join(tree, folder))
    return
  }
  // A folder of links: the workspace packages' point into the copy, every other entry's to the checkout.
  const redirected = new Map(links.map((link) => [link.path, link.target]))
  const fill = (dir: string) => {
    mkdirSync(join(tree, dir), { recursive: true })
    for (const entry of readdirSync(join(top, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name)
      const target = redirected.get(path)
      if (target !== undefined) {
        // A package the ref does not have is not there: what imports it fails as it would at the ref.
        if (!existsSync(join(tree, target))) continue
        symlinkSync(join(tree, target), join(tree, path))
        packages.push({ path, target })
        const own = join(target, 'node_modules')
        if (existsSync(join(top, own)) && !existsSync(join(tree, own))) linkModules(top, tree, own, linked, packages)
      } else if ([...redirected.keys()].some((key) => key.startsWith(`${path}${sep}`))) fill(path)
      else symlinkSync(join(top, path), join(tree, path))
    }
  }
  fill(folder)
}

/** Loads the config as `ref` holds it, for the project in `options.cwd`; paths in the result are the checkout's. */
export async function loadProtocolFromRef(ref: string, options: LoadOptions = {}): Promise<LoadedConfig> {
  const cwd = realpathSync(resolve(options.cwd ?? process.cwd()))
  const { top, commit } = resolveRef(cwd, ref)
  const scratch = mkdtempSync(join(tmpdir(), 'verify-protocol-from-'))
  const tree = join(scratch, 'tree')
  const toTree = (path: string) => join(tree, relative(top, path))
  const toCheckout = (path: string) => (inside(tree, path) ? join(top, relative(tree, path)) : path)
  const shown = `${ref} (${commit.slice(0, 12)})`
  try {
    writeTree(top, commit, tree, scratch)
    const workspacePackages = linkIgnored(top, tree, cwd)
    const configFile = options.configFile === undefined ? undefined : resolve(cwd, options.configFile)
    if (configFile !== undefined && !inside(top, configFile)) {
      throw new VerifyUsageError(`--config ${configFile} is outside the repository ${top}: --protocol-from reads the config from the repository at ${ref}`)
    }
    const where = relative(top, cwd) || 'the top folder'
    if (!existsSync(toTree(cwd)) || (configFile !== undefined && !existsSync(toTree(configFile)))) {
      throw new VerifyConfigError(
        'E_CONFIG_NOT_FOUND',
        `No verify config at ${shown} in ${configFile ? relative(top, configFile) : where}: the trusted protocol must be committed there`,
      )
    }
    let loaded: LoadedConfig
    try {
      loaded = await loadVerifyConfig({ ...options, cwd: toTree(cwd), ...(configFile ? { configFile: toTree(configFile) } : {}) })
    } catch (error) {
      if (!(error instanceof VerifyConfigError)) throw error
      const clean = (text: string) => text.replaceAll(tree, top)
      if (error.code === 'E_CONFIG_NOT_FOUND') {
        throw new VerifyConfigError('E_CONFIG_NOT_FOUND', `No verify config at ${shown} in ${where}: the trusted protocol must be committed there`, [], {
          cause: error,
        })
      }
      // A workspace package read from the ref has no build output: git holds none. Said, as what to do about it.
      const said = [error.message, ...error.problems]
      const named = workspacePackages.filter(({ path, target }) =>
        [path, target].some((rel) => said.some((text) => text.includes(join(tree, rel)) || text.includes(join(top, rel)))),
      )
      const why = named.map(
        ({ target }) =>
          `${target} is a workspace package, read as ${ref} holds it: what git ignores there (build output such as dist/) is not in it. Make the package export its source (\`"exports": "./src/index.ts"\`), or commit what it exports.`,
      )
      throw new VerifyConfigError(error.code, `In the config at ${shown}: ${clean(error.message)}`, [...error.problems.map(clean), ...why], { cause: error })
    }
    const protocol = {
      ...loaded.protocol,
      rootDir: toCheckout(loaded.protocol.rootDir),
      checks: loaded.protocol.checks.map((check) => ({ ...check, cwd: toCheckout(check.cwd) })),
    }
    return {
      ...loaded,
      protocol,
      rootDir: toCheckout(loaded.rootDir),
      configFile: toCheckout(loaded.configFile),
      layers: loaded.layers.map((layer) => (layer.file ? { ...layer, file: toCheckout(layer.file) } : layer)),
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}
