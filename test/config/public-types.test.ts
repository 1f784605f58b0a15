// The published declarations compile in a project without @types/node and with skipLibCheck off: a TypeScript
// config that imports verify-protocol must not need Node's types to typecheck.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

const tmp = mkdtempSync(join(tmpdir(), 'verify-types-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const CONSUMER = `import { defineConfig, defineProtocol, loadVerifyConfig, type LoadOptions } from 'verify-protocol'
import node from 'verify-protocol/presets/node'
import strict, { todoCheck } from 'verify-protocol/presets/strict'
import typescript from 'verify-protocol/presets/typescript'

export const one = defineProtocol({ extends: [node, strict, typescript], checks: { e2e: { command: 'x', dependsOn: ['build', 'todo'] }, todo: todoCheck() } })
export const several = defineConfig({ protocols: { default: { checks: { build: 'x' } }, deploy: { extends: 'default', checks: { smoke: { command: 'y', dependsOn: ['build'] } } } } })
export const options: LoadOptions = { cwd: '.', env: { CI: 'true' } }
export const loaded = loadVerifyConfig(options)
`

it('the config API and the presets typecheck without @types/node (skipLibCheck: false)', () => {
  mkdirSync(join(tmp, 'node_modules'))
  symlinkSync(ROOT, join(tmp, 'node_modules', 'verify-protocol'), 'dir')
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }))
  writeFileSync(join(tmp, 'verify.config.ts'), CONSUMER)
  const compilerOptions = { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: false, types: [] }
  writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['verify.config.ts'] }))
  let output = ''
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: tmp, encoding: 'utf8' })
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error)
  }
  // Declarations of the config loader, the DSL, the presets and the shared types.
  const ours = output.split('\n').filter((line) => /dist\/(config\/|presets\/|types\.d\.ts)|verify\.config\.ts/.test(line))
  expect(ours).toEqual([])
}, 60_000)
