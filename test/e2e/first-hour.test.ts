// What a newcomer sees in the first hour: honest progress, reuse said out loud, a config found from a subfolder, typos
// answered with a suggestion, a closed prompt taken as a no, and a package that ships what it claims.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { cleanup, fixture, ROOT, runCli, sandbox } from '../helpers/cli.js'
import { runCliInProcess } from '../helpers/in-process.js'
import { editEvidence, project, removeProjects } from '../helpers/project.js'

afterEach(cleanup)
afterAll(removeProjects)

describe('progress without a terminal', () => {
  it('a long check gets a heartbeat line, so a CI log never sits silent', async () => {
    const result = await sandbox().run([], { cwd: fixture('newcomer-slow'), env: { CI: 'true', VERIFY_HEARTBEAT: '300ms' } })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^… slow still running \((\d+ms|[\d.]+s)\)$/m)
    // A finished check gets no heartbeat: none for `quick` after its result line (before it, a loaded machine may
    // really have kept it running past one beat).
    const afterQuick = result.stdout.slice(result.stdout.search(/^✓ quick /m))
    expect(afterQuick).toMatch(/^✓ quick /)
    expect(afterQuick).not.toMatch(/^… quick still running/m)
  })
})

describe('reuse, said in every reporter', () => {
  it('marks reused checks with when they were recorded, and counts what ran and what was reused', async () => {
    const p = project('validity-reuse', { git: true })
    expect((await p.verify('run')).code).toBe(0)
    // c's evidence no longer matches its definition: it runs again, a and b are reused.
    editEvidence(p, (file) => {
      const c = file.checks.find((r) => r.id === 'c')
      if (c?.evidence) c.evidence.checkDigest = `sha256:${'0'.repeat(64)}`
    })
    const junit = join(p.outside, 'junit.xml')
    const again = await p.verify('run', [
      '--reuse',
      '--reporter',
      'default',
      '--reporter',
      `junit=${junit}`,
      '--reporter',
      `markdown=${join(p.outside, 'summary.md')}`,
    ])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toMatch(/↺ a\s+reused \(recorded \d+(ms|\.\ds|s) ago\)/)
    expect(again.stdout).toMatch(/\(3; 1 ran, 2 reused\)/)
    expect(readFileSync(junit, 'utf8')).toMatch(/<system-out>reused \(recorded [^)]+ ago\): evidence of an earlier run, still valid<\/system-out>/)
    const md = readFileSync(join(p.outside, 'summary.md'), 'utf8')
    expect(md).toContain('(1 ran, 2 reused)')
    expect(md).toMatch(/_\(reused \(recorded [^)]+ ago\)\)_/)
    const agent = await p.verify('run', ['--reuse', '--reporter', 'agent'])
    expect(agent.stdout).toMatch(/3 passed \(0 ran, 3 reused\)/)
  })
})

describe('finding the config', () => {
  it('from a subfolder of the project, as git and Vitest do', async () => {
    const p = project('validity-reuse', { git: true })
    mkdirSync(join(p.dir, 'docs', 'deep'), { recursive: true })
    const result = await runCliInProcess(['list'], { cwd: join(p.dir, 'docs', 'deep') })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('config: ../../verify.config.ts')
  })

  it('without one, says every folder it looked in, up to the repository top', async () => {
    const p = project('validity-reuse', { git: true })
    execFileSync('git', ['rm', '-q', 'verify.config.ts'], { cwd: p.dir })
    mkdirSync(join(p.dir, 'docs', 'deep'), { recursive: true })
    const result = await runCliInProcess(['list'], { cwd: join(p.dir, 'docs', 'deep') })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`in ${join(p.dir, 'docs', 'deep')}, ${join(p.dir, 'docs')} and ${p.dir})`)
    expect(result.stderr).toContain('npx verify init')
  })
})

describe('typos', () => {
  it.each([
    [['lsit'], /Did you mean `verify list`\?/],
    [['chek'], /Did you mean `verify check`\?/],
    [['--bogus'], /^verify: `verify run` has no option --bogus\. Run `verify run --help` for the options\.$/m],
    [['run', '--sequntial'], /has no option --sequntial — did you mean --sequential\?/],
    [['check', '--requre-signature'], /did you mean --require-signature\?/],
    [['run', '--only'], /^verify: --only needs a value\./m],
    [['run', '--only', 'bulid'], /No check "bulid" in protocol "all-pass" — did you mean "build"\? Checks: /],
    [['run', '--reporter', 'jnuit'], /Unknown reporter "jnuit" — did you mean "junit"\?/],
    [['run', '--reporter', './tools/notify.mjs'], /A reporter module is named in the config's `reporters`/],
    [['run', '--only', 'build', '--skip', 'build'], /--only and --skip both name "build"/],
    [['run', '--sequential', '--concurrency', '3'], /--sequential runs one check at a time and --concurrency 3 asks for more/],
  ])('verify %j answers in its own words', async (args, expected) => {
    // The bin for the first; the same words come from cli() for the others.
    const result = await (args[0] === 'lsit' ? runCli : runCliInProcess)(args, { cwd: fixture('all-pass') })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(expected)
    expect(result.stderr).not.toContain('To specify a positional argument')
    expect(result.stderr).not.toMatch(/^\s+at /m)
  })
})

describe('a flag given twice', () => {
  it('the last one wins, as a wrapper script expects (npm run verify -- --timeout 10m), and the run says so', async () => {
    const box = sandbox({ inProcess: true })
    const result = await box.run(['run', '--only', 'build', '--timeout', '5m', '--timeout', '10m'], { cwd: fixture('all-pass') })
    // Incomplete (3), as any --only run: the others were left out. Not a usage error (2).
    expect(result.code, result.stderr).toBe(3)
    expect(result.stdout).toContain('--timeout was given more than once ("5m", then "10m"): the last one is used.')
    const one = await box.run(['run', '--only', 'build', '--sequential', '--concurrency', '1'], { cwd: fixture('all-pass') })
    expect(one.code, one.stderr).toBe(3)
  })
})

// Python's pty module gives verify a real terminal on stdin and stdout; Ctrl-D closes the input.
function drive(dir: string, keys: string[]) {
  return spawnSync(
    'python3',
    [
      '-c',
      `import os, pty, re, select, sys, time
pid, fd = pty.fork()
if pid == 0:
  os.chdir(sys.argv[1]); os.execvp(sys.argv[2], sys.argv[2:])
out = b''
keys = [k.encode() for k in ${JSON.stringify(keys)}]
deadline = time.time() + 25
while time.time() < deadline:
  r, _, _ = select.select([fd], [], [], 0.1)
  if r:
      try:
          data = os.read(fd, 65536)
      except OSError:
          break
      if not data:
          break
      out += data
      # A prompt is waiting when the text, without the cursor moves readline adds, ends with one.
      shown = re.sub(rb'\\x1b\\[[0-9;?]*[A-Za-z]', b'', out)
      if keys and (shown.endswith(b'] ') or shown.endswith(b': ')):
          time.sleep(0.1); os.write(fd, keys.pop(0))
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode('utf8', 'replace'))
sys.exit(os.waitstatus_to_exitcode(status))`,
      dir,
      process.execPath,
      join(ROOT, 'bin', 'verify.cjs'),
      '--no-color',
    ],
    { encoding: 'utf8', timeout: 30_000, env: { ...process.env, CI: '', NO_COLOR: '1', VALIDITY_COUNTER: '/dev/null' } },
  )
}

describe('the approval prompt at a real terminal', () => {
  it('closing the input at the name prompt declines the approval: exit 3, nothing recorded, and it says so', () => {
    const p = project('validity-manual', { git: true })
    const result = drive(p.dir, ['y\r', '\x04'])
    expect(result.status, result.stdout).toBe(3)
    expect(result.stdout).toContain('Input closed before a name was given: "review" is not approved.')
    expect(result.stdout).not.toContain('interrupted')
    expect(p.check('review').status).toBe('pending_manual')
  })
})

describe('the package', () => {
  it('ships a LICENSE, and source maps that carry their sources', () => {
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as {
      files: { path: string }[]
    }[]
    const files = (pack?.files ?? []).map((f) => f.path)
    expect(files).toContain('LICENSE')
    expect(files.some((f) => f.startsWith('src/'))).toBe(false)
    const maps = readdirSync(join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js.map'))
    expect(maps.length).toBeGreaterThan(10)
    for (const map of maps) {
      const data = JSON.parse(readFileSync(join(ROOT, 'dist', map), 'utf8')) as { sources: string[]; sourcesContent?: string[] }
      expect(data.sourcesContent?.length, map).toBe(data.sources.length)
    }
  })

  it('the README says how long the quick start takes and that `npm run verify` runs the gate', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme).toMatch(/npm run verify/)
    expect(readme).toMatch(/takes about \d+ minutes?/)
  })
})
