// The strict preset's checks on real git repositories and real logs: `todo` reads what a change adds, `error-free`
// reads what the other checks printed.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { errorFreeCheck, scanLog } from '../../src/presets/error-free.js'
import { addedLines, scanNewMarkers, todoCheck } from '../../src/presets/todo.js'
import { context, folder, git, removeFolders, repository, run, write } from './helpers.js'

afterAll(removeFolders)

describe('addedLines', () => {
  it('reads added lines with their new line numbers, even a line that starts with "++"', () => {
    const patch = [
      'diff --git a/x.ts b/x.ts',
      '--- a/x.ts',
      '+++ b/x.ts',
      '@@ -3,0 +4,2 @@ context',
      '+const a = 1',
      '+++counter // TODO',
      '@@ -10 +12 @@',
      '-old',
      '+new',
      'diff --git a/gone.ts b/gone.ts',
      '--- a/gone.ts',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-// TODO',
    ].join('\n')
    expect(addedLines(patch)).toEqual([
      { file: 'x.ts', line: 4, text: 'const a = 1' },
      { file: 'x.ts', line: 5, text: '++counter // TODO' },
      { file: 'x.ts', line: 12, text: 'new' },
    ])
  })
})

describe('the todo check', () => {
  it('finds markers only in lines the change adds: changed tracked files and untracked files', async () => {
    const dir = repository()
    write(dir, 'src/a.ts', 'export const a = 1 // TODO: an old one, not new\nexport const b = 3 // FIXME: new\n')
    write(dir, 'src/new.ts', 'const x = 1\n// XXX brand new file\n')
    write(dir, 'notes.md', 'todo in lower case is prose, TODOS is another word\n')
    git(dir, 'rm', '-q', 'src/gone.ts')
    const scan = await scanNewMarkers(dir)
    expect(scan.base).toBe('HEAD')
    expect(scan.found).toEqual([
      { file: 'src/a.ts', line: 2, text: 'export const b = 3 // FIXME: new' },
      { file: 'src/new.ts', line: 2, text: '// XXX brand new file' },
    ])
  })

  it('compares a branch with its merge base on main, committed changes included', async () => {
    const dir = repository()
    git(dir, 'checkout', '-qb', 'feature')
    write(dir, 'src/b.ts', '// TODO: committed on the branch\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-qm', 'feature')
    const scan = await scanNewMarkers(dir)
    expect(scan.base).toMatch(/^main \(merge base [0-9a-f]{7}\)$/)
    expect(scan.found.map((l) => l.file)).toEqual(['src/b.ts'])
    // Against HEAD, the committed line is not new.
    expect((await scanNewMarkers(dir, { base: 'HEAD' })).found).toEqual([])
    expect((await scanNewMarkers(dir, { env: { VERIFY_BASE: 'HEAD' } })).found).toEqual([])
  })

  it('honours ignore globs and custom markers', async () => {
    const dir = repository()
    write(dir, 'fixtures/sample.ts', '// TODO: on purpose\n')
    write(dir, 'src/c.ts', '// HACK: new\n')
    expect((await scanNewMarkers(dir, { ignore: ['fixtures/**'] })).found).toEqual([])
    expect((await scanNewMarkers(dir, { markers: ['HACK'] })).found.map((l) => l.file)).toEqual(['src/c.ts'])
  })

  it('passes on a clean change and fails with file:line for each marker', async () => {
    const dir = repository()
    expect(await run(todoCheck(), context(dir))).toMatchObject({ passed: true, output: expect.stringContaining('No TODO/FIXME/XXX') })
    write(dir, 'src/d.ts', 'const d = 1 // TODO later\n')
    const result = await run(todoCheck(), context(dir))
    expect(result.passed).toBe(false)
    expect(result.output).toContain('src/d.ts:1: const d = 1 // TODO later')
    expect(result.metadata).toMatchObject({ base: 'HEAD', markers: 1 })
  })

  it('works in a repository without commits', async () => {
    const dir = folder()
    git(dir, 'init', '-q')
    write(dir, 'a.ts', '// FIXME\n')
    expect((await scanNewMarkers(dir)).found).toHaveLength(1)
  })

  it('refuses to pass outside git, and on a base that does not exist', async () => {
    await expect(scanNewMarkers(folder())).rejects.toThrow(/not in a git repository/)
    await expect(scanNewMarkers(repository(), { base: 'nope' })).rejects.toThrow(/"nope" is not a commit/)
  })
})

describe('scanLog', () => {
  it('finds uncaught errors, unhandled rejections, error log lines, console.error in vitest and errors with a stack', async () => {
    const dir = folder()
    write(
      dir,
      'a.log',
      [
        'all good',
        'Uncaught TypeError: x is not a function',
        '(node:123) UnhandledPromiseRejectionWarning: boom',
        '[ERROR] could not connect',
        'stderr | test/a.test.ts > does things',
        'Error: caught but printed',
        '    at main (file.js:1:1)',
        '    at next (file.js:2:1)',
        'a TypeError mentioned in prose',
        'errors: 0',
      ].join('\n'),
    )
    const findings = await scanLog(join(dir, 'a.log'), 'a')
    expect(findings.map((f) => [f.line, f.kind])).toEqual([
      [2, 'uncaught exception'],
      [3, 'unhandled rejection'],
      [4, 'error-level log line'],
      [5, 'console.error in a test (vitest)'],
      [6, 'error with a stack trace'],
    ])
    expect(await scanLog(join(dir, 'a.log'), 'a', { ignore: [/Uncaught|Unhandled|ERROR|stderr/, 'caught but printed'] })).toEqual([])
  })
  it('reads a masked line with each secret in its masks: a variable that looks secret cannot hide an error', async () => {
    const dir = folder()
    write(dir, 'a.log', ['token *** accepted', 'all *** done', 'done'].join('\n'))
    write(dir, 'b.log', ['***: first', '    at main (file.js:1:1)', 'done'].join('\n'))
    const found = async (file: string, secrets: string[]) => (await scanLog(join(dir, file), 'a', { secrets })).map((f) => [f.line, f.kind, f.text])
    expect(await found('a.log', ['abcdef123', 'Unhandled Rejection'])).toEqual([
      [1, 'unhandled rejection', 'token *** accepted'],
      [2, 'unhandled rejection', 'all *** done'],
    ])
    expect(await found('b.log', ['TypeError'])).toEqual([[1, 'error with a stack trace', '***: first']])
    expect(await found('a.log', ['abcdef123'])).toEqual([])
    expect(await found('b.log', [])).toEqual([])
  })
})

describe('the error-free check', () => {
  it('scans the logs of the checks it depends on (the last attempt after retries)', async () => {
    const logs = folder()
    write(logs, 'build.log', 'built\n')
    write(logs, 'test.log', 'Error: first attempt\n    at x (y.js:1:1)\n')
    write(logs, 'test.attempt-2.log', 'all passed\n')
    const result = await run(errorFreeCheck(), context(folder(), { VERIFY_DEPENDS_ON: 'build,test,quiet', VERIFY_LOG_DIR: logs }))
    expect(result).toMatchObject({ passed: true, metadata: { scanned: 2, silent: ['quiet'], findings: 0 } })
  })

  it('fails with each error it found', async () => {
    const logs = folder()
    write(logs, 'test.log', 'ok\nUncaught Error: late failure\n')
    const result = await run(errorFreeCheck(), context(folder(), { VERIFY_DEPENDS_ON: 'test', VERIFY_LOG_DIR: logs }))
    expect(result.passed).toBe(false)
    expect(result.output).toContain('test.log:2: [uncaught exception] Uncaught Error: late failure')
  })

  it('fails when it has nothing to scan, or cannot find a single log where verify did not say', async () => {
    expect((await run(errorFreeCheck(), context(folder(), {}))).passed).toBe(false)
    const result = await run(errorFreeCheck(), context(folder(), { VERIFY_DEPENDS_ON: 'build' }))
    expect(result.passed).toBe(false)
    expect(result.output).toMatch(/may be elsewhere/)
  })

  it('reads .verify/logs in its folder by default', async () => {
    const dir = folder()
    write(dir, '.verify/logs/build.log', '[ERROR] disk full\n')
    const result = await run(errorFreeCheck(), context(dir, { VERIFY_DEPENDS_ON: 'build' }))
    expect(result).toMatchObject({ passed: false, output: expect.stringContaining('[error-level log line] [ERROR] disk full') })
  })
})
