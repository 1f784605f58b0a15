// Step 2 (load), helper: follows `extends` from the project's config down to every layer (SPEC §3.3), each layer's
// `extends` and `allowRemote` validated by the zod schema first. Unlike c12's own `extends`, every failure is an error
// naming the file and the chain that led to it: a missing preset, one that throws at import, a cycle, a remote source
// that was not allowed. Relative entries resolve against the file that declares them (locate.ts).
import { dirname, relative } from 'node:path'
import { VerifyConfigError } from '../errors.js'
import type { PresetContext } from './define.js'
import { isPathEntry, isRemoteEntry, resolvePackage, resolvePath, type Resolution } from './locate.js'
import { errorSummary, formatIssues } from './messages.js'
import { layerFieldsSchema } from './schema.js'
import type { LayerInput } from './validate.js'

export interface Layer extends LayerInput {
  /** The file the layer was loaded from; none for a preset given as a value. */
  file?: string
  chain: string[]
}

export interface LayerLoaders {
  /** Loads one config file (TypeScript, JSON, …; `$env` applied; a function called with the preset context). */
  file(path: string): Promise<unknown>
  /** Downloads a remote source and loads its verify.config.* (only called when remote sources are allowed). */
  remote(source: string): Promise<{ raw: unknown; file: string }>
}

export interface CollectOptions {
  /** The project's config folder: labels are relative to it. */
  rootDir: string
  /** The project's config file. */
  rootFile: string
  /** Its label (its path relative to rootDir). */
  rootLabel: string
  context: PresetContext
  loaders: LayerLoaders
  /** The `$env` block to apply to presets given as values (c12 applies it to files). */
  envName?: string | false
  /** Merges an `$env` block over a layer, by the same rules as c12's merger. */
  merge?: (...objects: unknown[]) => Record<string, unknown>
}

interface Node {
  label: string
  file?: string
  dir: string
  chain: string[]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The config object without what the loader consumes: `extends`, `allowRemote` and c12's `$` keys. */
function own(raw: unknown): unknown {
  if (!isObject(raw)) return raw
  return Object.fromEntries(Object.entries(raw).filter(([key]) => key !== 'extends' && key !== 'allowRemote' && !key.startsWith('$')))
}

function through(chain: readonly string[]): string {
  return `extended through: ${chain.join(' → ')}`
}

/**
 * The entries of a layer's `extends`, each a string or a preset value, once its `extends` and `allowRemote` have the
 * shape the schema gives them. Only the project's own config may set `allowRemote`: a preset must not widen what the
 * project allowed.
 */
function entriesOf(raw: unknown, node: Node, isRoot: boolean): unknown[] {
  if (!isObject(raw)) return []
  if (!isRoot && raw.allowRemote !== undefined) {
    throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${node.label}`, [
      "allowRemote: only the project's own config can allow remote sources, not a layer it extends",
      through(node.chain),
    ])
  }
  const parsed = layerFieldsSchema.safeParse(raw)
  if (parsed.success) return parsed.data.extends ?? []
  const remote = parsed.error.issues.filter((issue) => issue.path[0] === 'allowRemote')
  if (remote.length > 0) throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid configuration in ${node.label}`, formatIssues(remote, raw))
  throw new VerifyConfigError('E_CONFIG_INVALID', `Invalid \`extends\` in ${node.label}`, [...formatIssues(parsed.error.issues, raw), through(node.chain)])
}

/**
 * Every layer under the project's config, lowest first, then the config itself. A layer reached twice (two presets
 * extending the same base) is applied once, at its first place, so it stays below everything that extends it.
 */
export async function collectLayers(rootRaw: unknown, options: CollectOptions): Promise<Layer[]> {
  const { rootDir, context, loaders } = options
  const layers: Layer[] = []
  const done = new Set<unknown>()
  // Validated with the root's `extends` (entriesOf) before any layer is opened.
  const allowRemote = isObject(rootRaw) && rootRaw.allowRemote === true
  const label = (file: string) => relative(rootDir, file) || file
  // What c12 does for a file: `$<env>` and `$env.<env>` merged over the layer.
  const withEnv = (raw: unknown): unknown => {
    const { envName, merge } = options
    if (!envName || !merge || !isObject(raw)) return raw
    const envs = isObject(raw.$env) ? raw.$env : {}
    const override = merge(envs[envName], raw[`$${envName}`])
    return Object.keys(override).length > 0 ? merge(override, raw) : raw
  }

  const open = async (entry: unknown, index: number, node: Node): Promise<{ node: Node; identity: unknown; load: () => Promise<unknown> }> => {
    if (typeof entry !== 'string') {
      const name = typeof entry === 'function' && entry.name ? `${entry.name}()` : `extends[${index}]`
      const child: Node = { label: `${name} in ${node.label}`, dir: node.dir, chain: [...node.chain, `${name} in ${node.label}`] }
      const load = async () => withEnv(typeof entry === 'function' ? await (entry as (c: PresetContext) => unknown)(context) : entry)
      return { node: child, identity: entry, load }
    }
    if (isRemoteEntry(entry) && !entry.startsWith('file:')) {
      if (!allowRemote) {
        throw new VerifyConfigError('E_CONFIG_INVALID', `${node.label} extends the remote source "${entry}", and remote sources are refused`, [
          "set `allowRemote: true` in the project's own config to let verify download it (with giget)",
          through([...node.chain, entry]),
        ])
      }
      const child: Node = { label: entry, dir: node.dir, chain: [...node.chain, entry] }
      const load = async () => {
        const remote = await loaders.remote(entry)
        child.file = remote.file
        child.dir = dirname(remote.file)
        return remote.raw
      }
      return { node: child, identity: `remote:${entry}`, load }
    }
    const path = entry.startsWith('file:') ? new URL(entry).pathname : entry
    const found: Resolution = isPathEntry(path) ? resolvePath(path, node.dir) : resolvePackage(path, node.dir)
    const where = isPathEntry(path) ? `"${entry}"` : `the preset "${entry}"`
    if ('error' in found) {
      throw new VerifyConfigError('E_CONFIG_LOAD', `Cannot find ${where}, extended by ${node.label}: ${found.error}`, [through([...node.chain, entry])])
    }
    const childLabel = isPathEntry(path) ? label(found.file) : entry
    const child: Node = { label: childLabel, file: found.file, dir: dirname(found.file), chain: [...node.chain, childLabel] }
    return { node: child, identity: found.file, load: () => loaders.file(found.file) }
  }

  const visit = async (raw: unknown, node: Node, stack: readonly unknown[]): Promise<void> => {
    const entries = entriesOf(raw, node, stack.length === 1)
    for (const [index, entry] of entries.entries()) {
      const child = await open(entry, index, node)
      if (stack.includes(child.identity)) {
        throw new VerifyConfigError('E_CONFIG_INVALID', `\`extends\` has a cycle: ${child.node.label} extends itself through ${node.label}`, [
          through(child.node.chain),
        ])
      }
      if (done.has(child.identity)) continue
      let childRaw: unknown
      try {
        childRaw = await child.load()
      } catch (error) {
        if (error instanceof VerifyConfigError) throw error
        const file = child.node.file ? ` (${child.node.file})` : ''
        throw new VerifyConfigError('E_CONFIG_LOAD', `Could not load ${child.node.label}${file}: ${errorSummary(error)}`, [through(child.node.chain)], {
          cause: error,
        })
      }
      await visit(childRaw, child.node, [...stack, child.identity])
    }
    done.add(stack.at(-1))
    layers.push({ label: node.label, ...(node.file ? { file: node.file } : {}), chain: node.chain, raw: own(raw) })
  }

  const root: Node = { label: options.rootLabel, file: options.rootFile, dir: dirname(options.rootFile), chain: [options.rootLabel] }
  await visit(rootRaw, root, [options.rootFile])
  return layers
}
