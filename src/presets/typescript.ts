// `verify-protocol/presets/typescript`: `tsc --noEmit` with the project's tsconfig, through its package manager.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { CheckDefinition, PresetContext } from '../config/define.js'
import { detectPackageManager, execBin, projectDir, readPackageJson } from './project.js'

export interface TypeScriptPresetOptions extends Partial<PresetContext> {
  /** The tsconfig to check, relative to the project (default `tsconfig.json`). */
  tsconfig?: string
}

export interface TypeScriptPreset {
  checks: { typecheck: CheckDefinition<'typecheck'> }
}

/** The typescript preset. Its check id is `typecheck`, the node preset's too: extending both keeps one. */
export function typescript(options?: TypeScriptPresetOptions): TypeScriptPreset {
  const rootDir = projectDir(options)
  const tsconfig = options?.tsconfig ?? 'tsconfig.json'
  if (!existsSync(join(rootDir, tsconfig))) throw new Error(`no ${tsconfig} in ${rootDir}`)
  const pm = detectPackageManager(rootDir, existsSync(join(rootDir, 'package.json')) ? readPackageJson(rootDir) : undefined).name
  return {
    checks: {
      typecheck: {
        name: 'Typecheck',
        evidenceType: 'typecheck_clean',
        command: execBin(pm, 'tsc', ['--noEmit', '-p', tsconfig]),
      },
    },
  }
}

export default typescript
