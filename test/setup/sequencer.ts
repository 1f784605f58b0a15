// The order files start in: the files that failed in the last run, then those that drive real Vitest and Jest, the
// end-to-end files next, then the rest, each group largest file first. Vitest's own order runs the largest files first,
// or with the timings of an earlier run the longest first; either way some short files that spawn the CLI came last
// and made the run's tail: on two cores a fresh clone's suite took 95 s, a second run 78–82 s, and this order 69–71 s
// either way.
import { relative } from 'node:path'
import { statSync } from 'node:fs'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const GROUPS = [/\/test\/integrations\//, /\/test\/e2e\//]

function group(file: TestSpecification): number {
  const at = GROUPS.findIndex((pattern) => pattern.test(file.moduleId))
  return at < 0 ? GROUPS.length : at
}

export class SlowFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const failed = new Set(
      files.filter((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`)?.failed),
    )
    const size = new Map(files.map((file) => [file, statSync(file.moduleId).size]))
    const rank = (file: TestSpecification) => (failed.has(file) ? -1 : group(file))
    const byWeight = (a: TestSpecification, b: TestSpecification) => rank(a) - rank(b) || (size.get(b) ?? 0) - (size.get(a) ?? 0)
    // Projects in Vitest's order, by name (they run one after another).
    const projects = [...new Set(files.map((file) => file.project.name))].toSorted()
    return Promise.resolve(projects.flatMap((name) => files.filter((file) => file.project.name === name).toSorted(byWeight)))
  }
}
