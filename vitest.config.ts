import { defineConfig } from 'vitest/config'
// From the sources, not the package's dist/: the config loads before the global setup builds dist/.
import { verifyPlugin } from './src/integrations/vitest/index.js'

export default defineConfig({
  // Every run records the `test` check's evidence (.verify/evidence.json), so `npx verify --reuse` after `npm test`
  // does not run the suite again; a filtered run is recorded as not counting.
  plugins: [verifyPlugin()],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/build.ts'],
    setupFiles: ['test/setup/env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
