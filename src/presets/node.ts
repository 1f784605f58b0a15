// `verify-protocol/presets/node`: build / typecheck / lint / test from the package.json scripts that exist, run with
// the package manager the project uses. A function of the project: it reads package.json when the config is loaded.
import type { CheckDefinition, PresetContext } from '../config/define.js'
import { detectPackageManager, projectDir, readPackageJson, runScript, type PackageJson } from './project.js'

export type NodeCheckId = 'build' | 'typecheck' | 'lint' | 'test'

/** The node preset's layer: only the checks whose script exists are present. */
export interface NodePreset {
  checks: { [Id in NodeCheckId]?: CheckDefinition<NodeCheckId> }
}

/** Scripts each check runs, first found wins. */
export const NODE_SCRIPTS: Readonly<Record<NodeCheckId, readonly string[]>> = {
  build: ['build'],
  typecheck: ['typecheck', 'type-check', 'check-types', 'test:types', 'types', 'tsc'],
  lint: ['lint'],
  test: ['test'],
}

// What `npm init` writes: a test script that only fails. It is not a test suite.
const NPM_PLACEHOLDER = /no test specified/

/** The script a check would run, if the project has one. */
export function scriptFor(pkg: PackageJson, id: NodeCheckId): string | undefined {
  const scripts = pkg.scripts ?? {}
  return NODE_SCRIPTS[id].find(
    (name) => typeof scripts[name] === 'string' && scripts[name].trim() !== '' && !(id === 'test' && NPM_PLACEHOLDER.test(scripts[name])),
  )
}

const DEFINITIONS: Readonly<Record<NodeCheckId, Pick<CheckDefinition, 'name' | 'evidenceType'>>> = {
  build: { name: 'Build', evidenceType: 'build_success' },
  typecheck: { name: 'Typecheck', evidenceType: 'typecheck_clean' },
  lint: { name: 'Lint', evidenceType: 'lint_clean' },
  test: { name: 'Tests', evidenceType: 'test_pass' },
}

/**
 * The node preset for a project folder (default: the config's folder when extended, else the process's cwd).
 * Tests depend on the build when both exist, since tests often import what the build produces.
 */
export function node(context?: Partial<PresetContext>): NodePreset {
  const rootDir = projectDir(context)
  const pkg = readPackageJson(rootDir)
  const pm = detectPackageManager(rootDir, pkg).name
  const checks: NodePreset['checks'] = {}
  for (const id of Object.keys(NODE_SCRIPTS) as NodeCheckId[]) {
    const script = scriptFor(pkg, id)
    if (script === undefined) continue
    checks[id] = { ...DEFINITIONS[id], command: runScript(pm, script) }
  }
  if (checks.test && checks.build) checks.test.dependsOn = ['build']
  return { checks }
}

export default node
