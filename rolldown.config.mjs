// The CLI as a few bundled files (SPEC §13): Node 20 has no module compile cache, and loading ~120 small modules cost
// more than running the command. The library (exports of package.json) stays tsc's output in dist/; these files sit
// beside it in dist/ so that `../package.json` and `./function-child.js` resolve as they do from the sources. The test
// runners' reporters and describeProtocol take their core from it too (dist/recorder.cjs, dist/protocol-run.cjs).
// CommonJS, so that each file compiles with V8's code cache (src/cli/code-cache.ts); the two files other code reaches
// by path are ES modules written beside them: dist/cli-api.js, the bundle's public API as a config's import of
// verify-protocol gets it (src/config/jiti-options.ts), and dist/function-child.js, which starts a function check.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'rolldown'
import { packing, pruneChunks } from './scripts/prune-chunks.mjs'

// The ES module entry of the bundle before it became CommonJS: nothing loads it any more.
const FORMER = /^cli\.js(\.map)?$/
const OWN = /^(cli|cli-api|cli-light|cli-loader|function-child|recorder|protocol-run)\.(c?js|d\.ts)(\.map)?$|^cli-exports\.json$/
const CHUNK = /^cli-chunk-/
// tsc's output of a source that is gone would stay, be published, and keep dist/ older than the sources
// (test/setup/build.ts would rebuild on every run). The chunks are pruned once the new ones are written (writeBundle).
for (const entry of readdirSync('dist', { withFileTypes: true, recursive: true })) {
  if (!entry.isFile()) continue
  const file = join(entry.parentPath, entry.name)
  const top = entry.parentPath === 'dist'
  if (top && FORMER.test(entry.name)) rmSync(file)
  else if (!(top && (OWN.test(entry.name) || CHUNK.test(entry.name) || entry.name === '.bundle-chunks.json'))) {
    const source = join('src', file.slice('dist/'.length)).replace(/\.(js|d\.ts)(\.map)?$/, '.ts')
    if (!existsSync(source)) rmSync(file)
  }
}

// jiti is CommonJS that loads its TypeScript transform lazily, by path: it stays a package, and is required rather than
// imported, which spares Node's scan of its 190 kB for named exports on every start.
const jitiByRequire = {
  name: 'jiti-by-require',
  resolveId: (id) => (id === 'jiti' ? '\0jiti' : null),
  load: (id) =>
    id === '\0jiti'
      ? "import { createRequire } from 'node:module'\nexport const createJiti = (...args) => createRequire(import.meta.url)('jiti').createJiti(...args)\n"
      : null,
}

// import() in a function V8 took from a code cache fails on Node 20: the bundle calls the loader's own instead
// (src/cli/code-cache.ts), and Node's import() when it runs without that loader.
const importThroughLoader = {
  name: 'import-through-loader',
  renderChunk(code) {
    return code.replace(/(?<![\w$.])import\(/g, "(typeof __verifyImport === 'function' ? __verifyImport : (url) => import(url))(")
  },
}

// What a config reads as it loads: the DSL (define.ts), the errors it may throw and the schemas (values, not
// functions). The rest of the public API is functions, which the config's copy loads on their first call.
const LIGHT = '\0cli-light'
const source = (file) => JSON.stringify(fileURLToPath(new URL(`./src/${file}`, import.meta.url)))
const lightEntry = {
  name: 'light-entry',
  resolveId: (id) => (id === LIGHT ? LIGHT : null),
  load: (id) =>
    id === LIGHT
      ? [
          `export * from ${source('config/define.ts')}`,
          `export * from ${source('errors.ts')}`,
          `export { configFileSchema } from ${source('config/json-schema.ts')}`,
          `export { evidenceFileSchema } from ${source('evidence/schema.ts')}`,
          `export { approvalsFileSchema } from ${source('evidence/approvals.ts')}`,
        ].join('\n')
      : null,
}

// The faces of the CommonJS entries that other code reaches by path, written beside them.
let later = []
const faces = {
  name: 'faces',
  // A name the face calls on first use must be a plain function (a class or a value belongs in the light entry).
  writeBundle(options, bundle) {
    pruneChunks(options.dir, Object.keys(bundle), { keepPrevious: !packing() })
    const api = createRequire(import.meta.url)(join(process.cwd(), options.dir, 'cli-api.cjs'))
    const wrong = later.filter((name) => typeof api[name] !== 'function' || /^class\b/.test(Function.prototype.toString.call(api[name])))
    if (wrong.length > 0) throw new Error(`not plain functions, add them to the light entry: ${wrong.join(', ')}`)
  },
  async generateBundle(_options, bundle) {
    const entry = (name) => Object.values(bundle).find((file) => file.type === 'chunk' && file.isEntry && file.name === name)
    const api = entry('cli-api')?.exports.toSorted() ?? []
    const light = entry('cli-light')?.exports ?? []
    if (!api.includes('defineProtocol') || !light.includes('defineProtocol')) throw new Error('the cli-api and cli-light entries must export the DSL')
    // An ES module, as jiti gives a config every name of it; Node's require, so that the config shares the modules
    // the CLI holds. The functions beyond the light entry (the runner, the fingerprint, loading) load on first call.
    const eager = api.filter((name) => light.includes(name))
    later = api.filter((name) => !light.includes(name))
    this.emitFile({
      type: 'asset',
      fileName: 'cli-api.js',
      source:
        "// The bundle's copy of the public API, for a config this CLI loads (rolldown.config.mjs).\n" +
        "import { createRequire } from 'node:module'\n\n" +
        'const load = createRequire(import.meta.url)\n' +
        'let api\n' +
        "const full = () => (api ??= load('./cli-api.cjs'))\n\n" +
        `export const { ${eager.join(', ')} } = load('./cli-light.cjs')\n` +
        later.map((name) => `export function ${name}(...args) {\n  return full().${name}(...args)\n}\n`).join(''),
    })
    // Where each other export of the package resolves from the package itself (src/config/jiti-options.ts aliases a
    // config's imports of them): the same for every project, so resolved here, by the same resolver, once.
    const { resolvePackage } = await import('./dist/config/locate.js')
    const { name, exports } = JSON.parse(readFileSync('package.json', 'utf8'))
    const resolved = {}
    for (const key of Object.keys(exports)) {
      if (key === '.' || key.includes('*')) continue
      const found = resolvePackage(`${name}/${key.slice(2)}`, process.cwd())
      if (!('file' in found)) throw new Error(`the package's export ${key} does not resolve: ${found.error}`)
      resolved[`${name}/${key.slice(2)}`] = relative(process.cwd(), found.file)
    }
    this.emitFile({ type: 'asset', fileName: 'cli-exports.json', source: `${JSON.stringify(resolved, null, 2)}\n` })
    this.emitFile({
      type: 'asset',
      fileName: 'function-child.js',
      source:
        '// The process of a function check (src/runner/function-child.ts), compiled with the code cache.\n' +
        "import { fileURLToPath } from 'node:url'\n" +
        "import { requireBundle } from './cli/code-cache.js'\n\n" +
        "requireBundle(fileURLToPath(new URL('./function-child.cjs', import.meta.url)))\n",
    })
  },
}

const resolve = { extensionAlias: { '.js': ['.ts', '.js'] } }

export default defineConfig([
  {
    input: {
      cli: 'src/cli/main.ts',
      // Spawned by path (runner/function-process.ts) for each function check.
      'function-child': 'src/runner/function-child.ts',
      // The public API as a config loaded by this CLI imports it (cli-api.js): the modules the CLI already holds.
      'cli-api': 'src/index.ts',
      'cli-light': LIGHT,
      // What the integrations load when they are used (integrations/bundled.ts): the recording of a test run, for the
      // Vitest and Jest reporters, and the run of describeProtocol.
      recorder: 'src/integrations/test-run.ts',
      'protocol-run': 'src/integrations/vitest/protocol-run.ts',
    },
    platform: 'node',
    // jsonc-parser's main file is a UMD module whose require('./impl/…') calls a bundler cannot follow: it stays a package.
    external: [/^node:/, 'jsonc-parser'],
    plugins: [lightEntry, jitiByRequire, importThroughLoader, faces],
    // The rewrite keeps every line where it was (a call on the same line): the source maps stay right to the line.
    onLog(level, log, handler) {
      if (log.code === 'SOURCEMAP_BROKEN' && log.plugin === 'import-through-loader') return
      handler(level, log)
    },
    resolve,
    treeshake: true,
    output: {
      dir: 'dist',
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: 'cli-chunk-[hash].cjs',
      sourcemap: true,
    },
  },
  {
    // The loader of the bundle (src/cli/code-cache.ts), in one CommonJS file for bin/verify.cjs: a bin that is an ES
    // module makes Node set up its ES module loader before anything runs.
    input: { 'cli-loader': 'src/cli/code-cache.ts' },
    platform: 'node',
    external: [/^node:/],
    resolve,
    output: { dir: 'dist', format: 'cjs', entryFileNames: '[name].cjs', sourcemap: true },
  },
])
