// Which evidence files Jest's watch mode sees (src/integrations/jest/watch.ts): a write of one it sees starts another
// run, so the reporter does not write it in watch mode, and says once how to have Jest leave it alone.
import { describe, expect, it } from 'vitest'
import { partialRunReason } from '../../src/integrations/jest/reporter.js'
import { ignorePattern, recordWouldRerun, watchingProject, type JestProjectConfig } from '../../src/integrations/jest/watch.js'

const project = (config: Partial<JestProjectConfig> = {}): JestProjectConfig => ({
  rootDir: '/repo',
  roots: ['/repo'],
  moduleFileExtensions: ['js', 'mjs', 'cjs', 'jsx', 'ts', 'tsx', 'json', 'node'],
  modulePathIgnorePatterns: [],
  watchPathIgnorePatterns: [],
  cacheDirectory: '/tmp/jest_rs',
  ...config,
})

describe('watchingProject', () => {
  it("sees a JSON file under the project's root, by default, node_modules included (watch mode keeps every file)", () => {
    const config = project()
    expect(watchingProject([config], '/repo/.verify/evidence.json')).toBe(config)
    expect(watchingProject([config], '/repo/node_modules/.cache/evidence.json')).toBe(config)
  })

  it('does not see it once an ignore pattern matches it (either list), nor outside its roots or extensions', () => {
    expect(watchingProject([project({ watchPathIgnorePatterns: ['/repo/.verify/'] })], '/repo/.verify/evidence.json')).toBeNull()
    expect(watchingProject([project({ modulePathIgnorePatterns: ['<never>', '\\.verify'] })], '/repo/.verify/evidence.json')).toBeNull()
    expect(watchingProject([project({ roots: ['/repo/src', '/repo/test'] })], '/repo/.verify/evidence.json')).toBeNull()
    expect(watchingProject([project()], '/elsewhere/evidence.json')).toBeNull()
    expect(watchingProject([project({ moduleFileExtensions: ['js'] })], '/repo/.verify/evidence.json')).toBeNull()
  })

  it("nor in version control's folders, the project's cache directory under its root, or the coverage directory", () => {
    expect(watchingProject([project()], '/repo/.git/verify/evidence.json')).toBeNull()
    expect(watchingProject([project({ cacheDirectory: '/repo/.jest-cache' })], '/repo/.jest-cache/evidence.json')).toBeNull()
    expect(watchingProject([project()], '/repo/coverage/evidence.json', '/repo/coverage')).toBeNull()
  })

  it('finds the one project of several that sees it', () => {
    const web = project({ rootDir: '/repo/web', roots: ['/repo/web'] })
    const api = project({ rootDir: '/repo/api', roots: ['/repo/api'] })
    expect(watchingProject([web, api], '/repo/api/.verify/evidence.json')).toBe(api)
    expect(watchingProject([web, api], '/repo/.verify/evidence.json')).toBeNull()
  })
})

describe('the pattern the hint gives', () => {
  it("names the evidence file's folder from <rootDir>, each part escaped; a folder outside the root by its path", () => {
    expect(ignorePattern(project(), '/repo/.verify/evidence.json')).toBe('<rootDir>/\\.verify/')
    expect(ignorePattern(project(), '/repo/packages/a+b/.verify/evidence.json')).toBe('<rootDir>/packages/a\\+b/\\.verify/')
    expect(ignorePattern(project(), '/repo/evidence.json')).toBe('<rootDir>/')
    expect(ignorePattern(project({ roots: ['/data'] }), '/data/out/evidence.json')).toBe('/data/out/')
    // What it gives leaves the file out.
    const pattern = ignorePattern(project(), '/repo/.verify/evidence.json').replace('<rootDir>', '/repo')
    expect(watchingProject([project({ watchPathIgnorePatterns: [pattern] })], '/repo/.verify/evidence.json')).toBeNull()
  })
})

// What is said, not looked at.
const ignore = () => {}

describe('recordWouldRerun', () => {
  it('says so once per evidence file; a run of no test (its projects unknown) records nothing, silently', () => {
    const said: string[] = []
    const write = (text: string) => void said.push(text)
    expect(recordWouldRerun([], '/w/.verify/evidence.json', 'test', undefined, write)).toBe(true)
    expect(said).toEqual([])
    const contexts = [{ config: project({ rootDir: '/w', roots: ['/w'] }) }]
    expect(recordWouldRerun(contexts, '/w/.verify/evidence.json', 'test', undefined, write)).toBe(true)
    expect(recordWouldRerun(contexts, '/w/.verify/evidence.json', 'test', undefined, write)).toBe(true)
    expect(said).toHaveLength(1)
    // In JSON, as package.json's "jest" key takes it.
    expect(said[0]).toContain('"watchPathIgnorePatterns": ["<rootDir>/\\\\.verify/"]')
  })

  it('a project seen in an earlier run still counts when a later run ran only the tests of another', () => {
    const api = { config: project({ rootDir: '/m/api', roots: ['/m/api'] }) }
    const web = { config: project({ rootDir: '/m/web', roots: ['/m/web'], watchPathIgnorePatterns: ['/m/web/\\.verify/'] }) }
    expect(recordWouldRerun([api, web], '/m/web/.verify/evidence.json', 'test', undefined, ignore)).toBe(false)
    const root = { config: project({ rootDir: '/m', roots: ['/m'], watchPathIgnorePatterns: [] }) }
    expect(recordWouldRerun([root], '/m/web/.verify/evidence.json', 'test', undefined, ignore)).toBe(true)
    expect(recordWouldRerun([web], '/m/web/.verify/evidence.json', 'test', undefined, ignore)).toBe(true)
  })
})

describe('a run in watch mode that counts', () => {
  it('not after `u` rewrote the snapshots that did not match', () => {
    const base = { rootDir: '/repo', bail: 0, watchAll: true }
    expect(partialRunReason(base)).toBeNull()
    expect(partialRunReason({ ...base, updateSnapshot: 'new' })).toBeNull()
    expect(partialRunReason({ ...base, updateSnapshot: 'all' })).toBe('snapshots that did not match were rewritten (-u, or u in watch mode)')
  })
})
