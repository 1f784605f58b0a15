// `extends` with `$env` overrides, and remote sources behind allowRemote (SPEC §3.3), in process.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture } from '../helpers/cli.js'
import { checkOf as check, configError, ENV, ids, load, projectFolder } from '../helpers/load-config.js'

const { tmp, project } = projectFolder('verify-layers-')

describe('$env overrides (fixtures/compose-env)', () => {
  const cwd = fixture('compose-env')

  it('none apply without an environment name', async () => {
    const loaded = await load({ cwd, env: ENV })
    expect(ids(loaded)).toEqual(['build', 'test', 'lint'])
    expect(loaded.protocol.failFast).toBe(false)
  })

  it('CI selects `ci`: merged by id in the project and in its layers', async () => {
    const loaded = await load({ cwd, env: { ...ENV, CI: 'true' } })
    expect(loaded.protocol.failFast).toBe(true)
    expect(check(loaded, 'test')).toMatchObject({ timeoutMs: 1_200_000, command: 'sh ../bin/exit.sh 0 "tests ok"', dependsOn: ['build'] })
    expect(check(loaded, 'build')?.required).toBe(false)
  })

  it('VERIFY_ENV wins over CI and NODE_ENV; it can add and remove checks', async () => {
    const loaded = await load({ cwd, env: { ...ENV, CI: 'true', NODE_ENV: 'production', VERIFY_ENV: 'staging' } })
    expect(ids(loaded)).toEqual(['build', 'test', 'smoke'])
    expect(loaded.protocol.failFast).toBe(false)
  })

  it('applies to a preset given as a value too', async () => {
    const dir = project('env-value', {
      'verify.config.mjs': `const preset = { checks: { a: { command: 'true', timeout: '1m' } }, $env: { ci: { checks: { a: { timeout: '9m' } } } } }
export default { extends: [preset], checks: {} }`,
    })
    expect(check(await load({ cwd: dir, env: { ...ENV, CI: '1' } }), 'a')).toMatchObject({ command: 'true', timeoutMs: 540_000 })
    expect(check(await load({ cwd: dir, env: ENV }), 'a')?.timeoutMs).toBe(60_000)
  })

  it('NODE_ENV is the last resort', async () => {
    const dir = project('node-env', { 'verify.config.mjs': `export default { checks: { a: 'true' }, $env: { production: { strictMode: true } } }` })
    expect((await load({ cwd: dir, env: { ...ENV, NODE_ENV: 'production' } })).protocol.strictMode).toBe(true)
  })
})

describe('remote sources with allowRemote: true', () => {
  let server: Server
  let url = ''
  const cache = join(tmp, 'cache')
  let previousCache: string | undefined

  beforeAll(async () => {
    // A tarball as giget's http provider expects it: one top folder, stripped on extraction.
    const src = project('remote-src/preset', {
      'verify.config.mjs': `export default { extends: ['./base.mjs'], checks: { remote: { command: 'true', timeout: '7s' } } }`,
      'base.mjs': `export default { checks: { 'remote-base': 'true' } }`,
    })
    const tarball = join(tmp, 'preset.tar.gz')
    execFileSync('tar', ['-czf', tarball, '-C', dirname(src), 'preset'])
    server = createServer((req, res) => {
      if (req.url !== '/preset.tar.gz') return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/gzip' })
      res.end(req.method === 'HEAD' ? undefined : readFileSync(tarball))
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const address = server.address()
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/preset.tar.gz`
    previousCache = process.env.XDG_CACHE_HOME
    process.env.XDG_CACHE_HOME = cache
  })

  afterAll(async () => {
    if (previousCache === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = previousCache
    await new Promise((done) => server?.close(done))
  })

  it('downloads the source with giget and follows its own extends', async () => {
    const dir = project('remote-user', { 'verify.config.mjs': `export default { allowRemote: true, extends: ['${url}'], checks: { own: 'true' } }` })
    const loaded = await load({ cwd: dir })
    expect(ids(loaded)).toEqual(['remote-base', 'remote', 'own'])
    expect(check(loaded, 'remote')?.timeoutMs).toBe(7000)
    expect(loaded.layers.map((l) => l.label)).toEqual([expect.stringMatching(/base\.mjs$/), url, 'verify.config.mjs'])
  })

  it('a download that fails is a config error naming the source', async () => {
    const missing = url.replace('preset.tar.gz', 'missing.tar.gz')
    const dir = project('remote-missing', { 'verify.config.mjs': `export default { allowRemote: true, extends: ['${missing}'], checks: { own: 'true' } }` })
    const error = await configError({ cwd: dir })
    expect(error.code).toBe('E_CONFIG_LOAD')
    expect(error.message).toContain(missing)
    expect(error.problems).toEqual([`extended through: verify.config.mjs → ${missing}`])
  })
})
