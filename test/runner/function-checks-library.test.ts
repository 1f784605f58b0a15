// The library API runs function checks the same way: a protocol loaded from a config runs each in a process of its
// own (the config is loaded again there); one built in memory cannot be, and runs in the caller's process with the
// limits docs/function-checks.md states. In process, through the built library (dist/) as a user's code imports it:
// its function checks start the bundle's child.
import { afterAll, describe, expect, test } from 'vitest'
import { cleanup, fixture, ROOT } from '../helpers/cli.js'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'

const built = <T>(path: string) => import(pathToFileURL(join(ROOT, 'dist', path)).href) as Promise<T>
const { createProtocol, runVerification } = await built<typeof import('../../src/api.js')>('api.js')
const { loadVerifyConfig } = await built<typeof import('../../src/config/index.js')>('config/index.js')
const { createChecklist } = await built<typeof import('../../src/runner/schedule.js')>('runner/schedule.js')

afterAll(cleanup)

describe('function checks through the library API', () => {
  test('loaded from a config: each runs in a child process; its process.exit is its error, not the caller’s exit', async () => {
    const { protocol } = await loadVerifyConfig({ cwd: fixture('function-checks') })
    expect(protocol.source).toEqual({ cwd: fixture('function-checks') })
    const checklist = createChecklist(protocol)
    await runVerification(checklist, { only: ['prints', 'exit-zero'], logDir: null, env: { ...process.env, FN_API_TOKEN: 'library-secret-1234' } })
    const byId = Object.fromEntries(checklist.results.map((r) => [r.id, r]))
    expect(byId.prints?.status).toBe('passed')
    expect(byId.prints?.evidence?.metadata.pid).not.toBe(process.pid)
    expect(byId.prints?.evidence?.metadata.child).toBe(join(ROOT, 'dist', 'function-child.js'))
    expect(byId.prints?.evidence?.output.text).toContain('console.log sees token ***')
    expect(byId['exit-zero']).toMatchObject({ status: 'error', reason: expect.stringMatching(/process\.exit\(0\)/) })
  })

  test('built in memory: it runs in the caller’s process (closures work); a timeout abandons it', async () => {
    let calls = 0
    const protocol = createProtocol('in-memory', 'function checks without a config file', [
      { id: 'closure', run: () => ({ passed: ++calls === 1, metadata: { pid: process.pid } }) },
      { id: 'ignores-signal', timeout: '200ms', run: () => new Promise<boolean>(() => {}) },
    ])
    expect(protocol.source).toBeUndefined()
    const checklist = createChecklist(protocol)
    await runVerification(checklist, { logDir: null })
    const [closure, stuck] = checklist.results
    expect(calls).toBe(1)
    expect(closure).toMatchObject({ status: 'passed', evidence: { metadata: { pid: process.pid } } })
    expect(stuck).toMatchObject({ status: 'timed_out', reason: expect.stringMatching(/abandoned/) })
  })
})
