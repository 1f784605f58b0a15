import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
// From the sources, not the package's dist/: the config loads before the global setup builds dist/.
import { verifyPlugin } from './src/integrations/vitest/index.js'
import { SlowFirst } from './test/setup/sequencer.js'

// Files that replace a module with vi.mock need a module registry of their own; every other file shares its worker's.
// So do the files that leave a worker hundreds of MiB larger (the floods' capped logs read back, the step summary of 200
// checks of 400 KB output each, the TypeScript compiler checking the package's declarations): every fork of a larger
// worker costs more, and the files after them in the same worker start thousands of processes.
const ISOLATED = ['test/evidence/full-disk.test.ts', 'test/e2e/floods.test.ts', 'test/reporters/github-actions.test.ts', 'test/config/public-types.test.ts']

export default defineConfig({
  // Every run records the `test` check's evidence (.verify/evidence.json), so `npx verify --reuse` after `npm test`
  // does not run the suite again; a filtered run is recorded as not counting.
  plugins: [verifyPlugin()],
  test: {
    globalSetup: ['test/setup/build.ts', 'test/setup/temporary.ts'],
    setupFiles: ['test/setup/env.ts'],
    // Most files wait on the processes they start (the CLI, checks, git): one worker per core leaves the cores idle
    // half the time. Vitest's default on 2 cores is a single worker; in the order of test/setup/sequencer.ts, 4 ran
    // the suite in 73 s, 5 in 69–71 s, 6 in 70–71 s (two runs each). 4: with 5, one run in eight had a test time out.
    maxWorkers: Math.max(4, availableParallelism() + 2),
    // A worker forks for every git and check process its in-process runs start; after each fork, every page the worker
    // then writes is copied, and V8's young generation (up to 16 MiB by default) is written all over between two
    // collections. A young generation of 2 MiB: the in-process matrices (test/verdict, evidence, cli) took 118–127 s of
    // CPU instead of 138–152 s on the 2-core machine.
    execArgv: ['--max-semi-space-size=2'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    unstubEnvs: true,
    sequence: { sequencer: SlowFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          // A fresh worker per file costs about 0.3 s of CPU; the tests leave no state behind them.
          isolate: false,
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.typetests.json' },
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
})
