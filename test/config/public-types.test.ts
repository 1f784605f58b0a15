// The published declarations compile in a project without @types/node and with skipLibCheck off: a TypeScript
// config that imports verify-protocol must not need Node's types to typecheck.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import ts from 'typescript'
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
  const config = ts.parseJsonConfigFileContent({ compilerOptions, files: ['verify.config.ts'] }, ts.sys, tmp)
  expect(config.errors).toEqual([])
  // tsc -p, in process, and asked only about the consumer and the package's own declarations: checking every
  // dependency's declarations as well took twice the time.
  const program = ts.createProgram(config.fileNames, config.options)
  const ours = program.getSourceFiles().filter((file) => file.fileName.startsWith(join(ROOT, 'dist')) || file.fileName.startsWith(tmp))
  expect(ours.map((file) => relative(ROOT, file.fileName))).toEqual(
    expect.arrayContaining(['dist/presets/strict.d.ts', 'dist/config/define.d.ts', 'dist/types.d.ts']),
  )
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((file) => ts.getPreEmitDiagnostics(program, file)),
  ]
  const host = { getCanonicalFileName: (name: string) => name, getCurrentDirectory: () => tmp, getNewLine: () => '\n' }
  expect(ts.formatDiagnostics(diagnostics, host)).toBe('')
}, 60_000)
