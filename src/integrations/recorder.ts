// The recording of a test run (test-run.ts: the config, the fingerprint, the evidence file), loaded when a run starts.
// A test runner imports its reporter when it loads its own config, every run: the reporters import only light modules,
// and take the recording from here. In the package it comes from the CLI's bundle (dist/recorder.cjs), compiled with
// V8's code cache as the CLI is (cli/code-cache.ts): verify's ~70 modules and zod, c12 and jiti as ES modules cost a
// Vitest or Jest run about 0.17 s of CPU more (docs/performance.md). From the sources, it is test-run.ts itself.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

export type Recorder = typeof import('./test-run.js')

let loading: Promise<Recorder> | undefined

/** The recording's module, loaded once per process. */
export function loadRecorder(): Promise<Recorder> {
  return (loading ??= load())
}

async function load(): Promise<Recorder> {
  // tsc's output is dist/integrations/recorder.js; the bundle and its loader sit in dist/, written by the same build.
  const bundle = fileURLToPath(new URL('../recorder.cjs', import.meta.url))
  const loader = fileURLToPath(new URL('../cli-loader.cjs', import.meta.url))
  if (!existsSync(bundle) || !existsSync(loader)) return import('./test-run.js')
  const { requireBundle } = createRequire(import.meta.url)(loader) as { requireBundle(file: string): unknown }
  return requireBundle(bundle) as Recorder
}
