// Prints the plain closing line 'Tests: N passed, N failed, N skipped' from the JUnit report of the test run.
import { readFileSync } from 'node:fs'
import { countJUnit } from '../dist/runner/test-report.js'

const counts = countJUnit(readFileSync(process.argv[2] ?? '.verify/reports/ci-junit.xml', 'utf8'))
console.log(`Tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`)
process.exitCode = counts.failed > 0 || counts.passed === 0 ? 1 : 0
