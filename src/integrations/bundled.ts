// The parts of the integrations that need verify's core, loaded when they are used. A test runner imports its reporter
// when it loads its own config, every run, and a test file imports `describeProtocol` as Vitest collects it: they
// import only light modules, and take the rest from here. In the package it comes from the CLI's bundle
// (`dist/<name>.cjs`), compiled with V8's code cache as the CLI is (cli/code-cache.ts): verify's ~70 modules with zod,
// c12 and jiti as ES modules cost a Vitest run about 0.27 s of CPU more (docs/performance.md). From the sources, it
// is the source module itself.
import { existsSync } from 'node:fs'
import * as nodeModule from 'node:module'
import { fileURLToPath } from 'node:url'

export type Recorder = typeof import('./test-run.js')
export type ProtocolRunner = typeof import('./vitest/protocol-run.js')

const loaded = new Map<string, Promise<unknown>>()

/** The bundle's entry `name`, loaded once per process, or `source()` when verify runs from its sources. */
function fromBundle<T>(name: string, source: () => Promise<T>): Promise<T> {
  let module = loaded.get(name) as Promise<T> | undefined
  if (!module) {
    module = load(name, source)
    loaded.set(name, module)
    // A failed load is tried again by the next run (a watch-mode rerun after a reinstall).
    module.catch(() => loaded.delete(name))
  }
  return module
}

async function load<T>(name: string, source: () => Promise<T>): Promise<T> {
  // tsc's output is dist/integrations/bundled.js; the bundle and its loader sit in dist/, written by the same build.
  const bundle = fileURLToPath(new URL(`../${name}.cjs`, import.meta.url))
  const loader = fileURLToPath(new URL('../cli-loader.cjs', import.meta.url))
  if (!existsSync(bundle) || !existsSync(loader)) return source()
  try {
    // Node's own `node:module`: in Vitest's VM pools, the one a test file imports is Vitest's stand-in, whose modules
    // jiti cannot evaluate (the config would not load); the bundle then runs in Node's context, outside the VM.
    const { createRequire } = process.getBuiltinModule?.('node:module') ?? nodeModule
    const { requireBundle } = createRequire(import.meta.url)(loader) as { requireBundle(file: string): unknown }
    return requireBundle(bundle) as T
  } catch (error) {
    throw damagedInstall(bundle, error)
  }
}

/** A bundle that does not load (a file damaged or missing after an interrupted install), said in one paragraph. */
function damagedInstall(bundle: string, error: unknown): Error {
  const why = (error instanceof Error ? error.message : String(error)).split('\n')[0]
  const shown = new Error(
    `verify-protocol: its install is damaged: ${bundle} does not load (${why}). Reinstall it (\`npm ci\`, or \`npm run build\` in a checkout of verify-protocol).`,
  )
  shown.stack = shown.message
  return shown
}

/** The recording of a test run (the config, the fingerprint, the evidence file), for the reporters. */
export const loadRecorder = (): Promise<Recorder> => fromBundle('recorder', () => import('./test-run.js'))

/** The run of `describeProtocol` and its checks' test bodies. */
export const loadProtocolRunner = (): Promise<ProtocolRunner> => fromBundle('protocol-run', () => import('./vitest/protocol-run.js'))
