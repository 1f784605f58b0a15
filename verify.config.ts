// verify-protocol verifies itself: this is the protocol `npx verify` runs on this repository.
import { defineProtocol } from 'verify-protocol'

export default defineProtocol({
  name: 'default',
  description: 'What must hold before a change to verify-protocol lands',
  timeout: '15m',
  checks: {
    build: { name: 'Build', command: 'npm run build --silent' },
    typecheck: { name: 'Typecheck', evidenceType: 'typecheck_clean', command: 'npm run typecheck --silent' },
    lint: { name: 'Lint', command: 'npm run lint --silent' },
    test: {
      name: 'Tests',
      command: 'npx vitest run --reporter=default --reporter=junit --outputFile.junit=.verify/reports/junit.xml',
      dependsOn: ['build'],
      tests: { junit: '.verify/reports/junit.xml', min: 50 },
    },
  },
})
