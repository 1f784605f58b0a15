// The CLI as a few bundled files (SPEC §13): Node 20 has no module compile cache, and loading ~120 small modules cost
// more than running the command. The library (exports of package.json) stays tsc's output in dist/; these files sit
// beside it in dist/ so that `../package.json` and `./function-child.js` resolve as they do from the sources.
// CommonJS, so that each file compiles with V8's code cache (src/cli/code-cache.ts); the two files other code reaches
// by path stay ES modules of the same names: dist/cli-api.js re-exports the bundle's public API (a config's import of
// verify-protocol, src/config/jiti-options.ts) and dist/function-child.js starts the function-check process.
import { readdirSync, rmSync } from 'node:fs'
import { defineConfig } from 'rolldown'

// Chunks are named by content hash: the previous build's would pile up.
for (const name of readdirSync('dist', { withFileTypes: true })) {
  if (name.isFile() && /^(cli-chunk-|cli\.(c?js|cjs\.map|js\.map)$)/.test(name.name)) rmSync(`dist/${name.name}`)
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

// The ES module faces of two CommonJS entries, written beside them.
const moduleFaces = {
  name: 'module-faces',
  generateBundle(_options, bundle) {
    const api = Object.values(bundle).find((file) => file.type === 'chunk' && file.isEntry && file.name === 'cli-api')
    if (!api || api.exports.length === 0) throw new Error('the cli-api entry exports nothing')
    this.emitFile({
      type: 'asset',
      fileName: 'cli-api.js',
      source:
        "// The bundle's copy of the public API, for a config this CLI loads (rolldown.config.mjs).\n" +
        "import { createRequire } from 'node:module'\n\n" +
        `export const { ${api.exports.toSorted().join(', ')} } = createRequire(import.meta.url)('./cli-api.cjs')\n`,
    })
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

export default defineConfig({
  input: {
    cli: 'src/cli/main.ts',
    // Spawned by path (runner/function-process.ts) for each function check.
    'function-child': 'src/runner/function-child.ts',
    // The public API as a config loaded by this CLI imports it: the modules the CLI already holds.
    'cli-api': 'src/index.ts',
  },
  platform: 'node',
  // jsonc-parser's main file is a UMD module whose require('./impl/…') calls a bundler cannot follow: it stays a package.
  external: [/^node:/, 'jsonc-parser'],
  plugins: [jitiByRequire, importThroughLoader, moduleFaces],
  // The rewrite keeps every line where it was (a call on the same line): the source maps stay right to the line.
  onLog(level, log, handler) {
    if (log.code === 'SOURCEMAP_BROKEN' && log.plugin === 'import-through-loader') return
    handler(level, log)
  },
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  treeshake: true,
  output: {
    dir: 'dist',
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'cli-chunk-[hash].cjs',
    sourcemap: true,
  },
})
