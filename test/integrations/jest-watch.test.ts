// Which evidence files Jest's watch mode sees (src/integrations/jest/reporter.ts, watchingProject): a write of one
// it sees starts another run, so the reporter does not write it in watch mode.
import { describe, expect, it } from 'vitest'
import { watchingProject, type JestProjectConfig } from '../../src/integrations/jest/reporter.js'

const project = (config: Partial<JestProjectConfig> = {}): JestProjectConfig => ({
  rootDir: '/repo',
  roots: ['/repo'],
  moduleFileExtensions: ['js', 'mjs', 'cjs', 'jsx', 'ts', 'tsx', 'json', 'node'],
  modulePathIgnorePatterns: [],
  watchPathIgnorePatterns: [],
  ...config,
})

describe('watchingProject', () => {
  it("sees a JSON file under the project's root, by default", () => {
    const config = project()
    expect(watchingProject([config], '/repo/.verify/evidence.json')).toBe(config)
  })

  it('does not see it once an ignore pattern matches it (either list), nor outside its roots or extensions, nor in node_modules', () => {
    expect(watchingProject([project({ watchPathIgnorePatterns: ['/repo/.verify/'] })], '/repo/.verify/evidence.json')).toBeNull()
    expect(watchingProject([project({ modulePathIgnorePatterns: ['<never>', '\\.verify'] })], '/repo/.verify/evidence.json')).toBeNull()
    expect(watchingProject([project({ roots: ['/repo/src', '/repo/test'] })], '/repo/.verify/evidence.json')).toBeNull()
    expect(watchingProject([project()], '/elsewhere/evidence.json')).toBeNull()
    expect(watchingProject([project({ moduleFileExtensions: ['js'] })], '/repo/.verify/evidence.json')).toBeNull()
    expect(watchingProject([project()], '/repo/node_modules/.cache/evidence.json')).toBeNull()
  })

  it('finds the one project of several that sees it', () => {
    const web = project({ rootDir: '/repo/web', roots: ['/repo/web'] })
    const api = project({ rootDir: '/repo/api', roots: ['/repo/api'] })
    expect(watchingProject([web, api], '/repo/api/.verify/evidence.json')).toBe(api)
    expect(watchingProject([web, api], '/repo/.verify/evidence.json')).toBeNull()
  })
})
