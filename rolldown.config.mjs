// The CLI as a few bundled files (SPEC §13): Node 20 has no module compile cache, and loading ~120 small modules cost
// more than running the command. The library (exports of package.json) stays tsc's output in dist/; these files sit
// beside it in dist/ so that `../package.json` and `./function-child.js` resolve as they do from the sources.
import { readdirSync, rmSync } from 'node:fs'
import { defineConfig } from 'rolldown'

// Chunks are named by content hash: the previous build's would pile up.
for (const name of readdirSync('dist', { withFileTypes: true })) {
  if (name.isFile() && name.name.startsWith('cli-chunk-')) rmSync(`dist/${name.name}`)
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
  plugins: [jitiByRequire],
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  treeshake: true,
  output: {
    dir: 'dist',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'cli-chunk-[hash].js',
    sourcemap: true,
  },
})
