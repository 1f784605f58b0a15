// Prints the plain closing line 'Tests: N passed, N failed, N skipped' from the JUnit report of the test run.
import { readFileSync } from 'node:fs'
import { countJUnit } from '../dist/test-reports/junit.js'

const file = process.argv[2] ?? '.verify/reports/ci-junit.xml'
try {
  const counts = countJUnit(readFileSync(file, 'utf8'))
  console.log(`Tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`)
  process.exitCode = counts.failed > 0 || counts.passed === 0 ? 1 : 0
} catch (error) {
  console.log(`Tests: the report ${file} cannot be used: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}
