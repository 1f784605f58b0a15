// V8's code cache for the bundled CLI (SPEC §13). Node 20 has no module compile cache (`module.enableCompileCache`
// came with Node 22), and compiling the CLI's JavaScript on every start is about a fifth of `verify list`. The bundle
// is CommonJS so that each of its files can be compiled through `vm.Script` with the code V8 produced for the same
// source last time. What is cached is a pure function of a file's bytes: the cache file is named by the SHA-256 of
// the source (and the Node version), and V8 itself refuses data made by another V8 or other flags. Nothing the CLI
// computes is cached here, only the compiled form of its own code and of jiti's.
//
// Node 20 loses the dynamic import() callback of a function V8 took from a code cache, so the bundle's import() calls
// (a custom reporter's module) are rewritten at build time (rolldown.config.mjs) to call `__verifyImport`, which the
// wrapper below passes in: this ES module's own import(), given absolute URLs only. jiti's entry (lib/jiti.cjs), whose
// import() loads an ES module config, is compiled by Node as usual; its runtime (dist/jiti.cjs) takes the cache.
//
// Compiled code is code: the cache lives beside verify's own install (the `node_modules/.cache` that `npm ci` wipes),
// never in the temp dir, where a check of one job could leave code for every later job; its folders are made 0700 and
// refused when a symlink, owned by another user, writable by others, or writable by a group that cannot write verify's
// own folder (version.ts, privateCacheFolder). Each file carries the SHA-256 of its data, so a damaged one is compiled
// again rather than crashing V8. VERIFY_CODE_CACHE=0 turns it off; deleting the folder is always safe.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire, Module } from 'node:module'
import { dirname, join, sep } from 'node:path'
import { privateCacheFolder } from '../version.js'
import * as vm from 'node:vm'

/** More files than a few builds leave: the folder is emptied before it grows without bound. */
const MAX_FILES = 400
const COMPILE = '_compile'
/**
 * jiti's runtime (190 kB), which every config load requires, and its TypeScript transform (babel, 1.5 MB), which a
 * config file loads when jiti has no transform of it cached yet (a fresh clone, after `npm ci`). Neither makes an
 * import() of its own (jiti's entry hands the runtime one).
 */
const JITI_FILES = [`${sep}node_modules${sep}jiti${sep}dist${sep}jiti.cjs`, `${sep}node_modules${sep}jiti${sep}dist${sep}babel.cjs`]

interface Pending {
  script: vm.Script
  file: string
}

type Compile = (this: Module & { exports: unknown }, content: string, filename: string) => unknown

const importModule = (url: string): Promise<unknown> => import(url)

/**
 * Requires the bundle's entry `file` (a `.cjs` file), compiling each file of the bundle (those beside it) with V8's
 * code cache when a safe cache folder exists or can be made. Returns the entry's exports.
 */
export function requireBundle(file: string): unknown {
  installCompiler(dirname(file) + sep, cacheFolder(process.env, dirname(dirname(file))))
  return createRequire(file)(file)
}

function installCompiler(root: string, folder: string | null): void {
  const pending: Pending[] = []
  // Node's own hook for compiling a CommonJS file, the one every cache of compiled CommonJS replaces.
  const proto = Module.prototype as unknown as Record<typeof COMPILE, Compile>
  const compile = proto[COMPILE]
  proto[COMPILE] = function (content, filename) {
    if (!filename.endsWith('.cjs') || !(filename.startsWith(root) || JITI_FILES.some((jiti) => filename.endsWith(jiti))))
      return compile.call(this, content, filename)
    const file = folder ? join(folder, `${createHash('sha256').update(content).digest('hex').slice(0, 40)}.bin`) : null
    let cachedData: Buffer | undefined
    try {
      if (file) cachedData = verified(readFileSync(file))
    } catch {
      // Not cached yet: compiled from the source, cached at exit.
    }
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __verifyImport) {${content}\n})`, {
      filename,
      ...(cachedData ? { cachedData } : {}),
    })
    if (file && (!cachedData || script.cachedDataRejected)) pending.push({ script, file })
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, dirname(filename), importModule)
  }
  if (!folder) return
  // At exit the scripts hold every function the command compiled, not only the top level of each file.
  process.once('exit', () => {
    if (pending.length > 0) writeCache(folder, pending)
  })
}

function writeCache(folder: string, pending: readonly Pending[]): void {
  try {
    if (readdirSync(folder).length > MAX_FILES) {
      for (const name of readdirSync(folder)) rmSync(join(folder, name), { force: true })
    }
    for (const { script, file } of pending) {
      // Written aside and renamed: a verify starting meanwhile reads the old data or the new, never half of it.
      const temporary = `${file}.${process.pid}.tmp`
      try {
        const data = script.createCachedData()
        writeFileSync(temporary, Buffer.concat([digest(data), data]), { mode: 0o600 })
        renameSync(temporary, file)
      } finally {
        rmSync(temporary, { force: true })
      }
    }
  } catch {
    // A full disk or a folder removed meanwhile: the next start compiles again.
  }
}

const digest = (data: Buffer): Buffer => createHash('sha256').update(data).digest()

/**
 * The V8 data of a cache file, or undefined when its SHA-256 header does not match: V8 checks its data's version and
 * flags and the source's length, not the bytes, and a flipped bit would crash verify (a native abort) on every start.
 */
function verified(file: Buffer): Buffer | undefined {
  const data = file.subarray(32)
  return file.length > 32 && digest(data).equals(file.subarray(0, 32)) ? data : undefined
}

/**
 * The folder for this Node, made if missing; null when it is off or not safe to use. It sits in the `node_modules`
 * that holds verify (`<that node_modules>/.cache/verify-protocol/v8/`), or in verify's own `node_modules` when it is
 * not installed as a package: no easier to write than verify's own files, and gone with them on `npm ci` or a
 * reinstall. Never in the temp dir, where anything a job ran could leave compiled code for every later job.
 */
export function cacheFolder(env: Readonly<Record<string, string | undefined>>, packageRoot: string): string | null {
  const setting = env.VERIFY_CODE_CACHE?.toLowerCase()
  if (setting === '0' || setting === 'false') return null
  return privateCacheFolder('v8', `${process.version}-${process.arch}`, packageRoot)
}
