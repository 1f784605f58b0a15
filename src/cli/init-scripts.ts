// Which command each check `verify init` writes runs. A package.json script often chains others
// (`"test": "pnpm lint && pnpm test:types && vitest run"`): a step that is another check's script is left to that check,
// so nothing runs twice, and what is left runs the project's binaries through its package manager.
import type { NodeCheckId } from '../presets/node.js'
import type { PackageJson, PackageManager } from '../presets/project.js'
import { runScript } from '../presets/project.js'

export interface PlannedCheck {
  id: NodeCheckId
  command: string
  /** Scripts of other checks this one's script ran, now left to those checks. */
  leftOut?: string[]
}

// `npm run x`, `npm test`, `pnpm x`, `pnpm run x`, `yarn x`, `yarn run x`, `bun run x`: a step that runs a script.
const SCRIPT_STEP = /^(?:npm\s+run(?:-script)?|pnpm(?:\s+run)?|yarn(?:\s+run)?|bun\s+run)\s+([\w:.@/-]+)$|^npm\s+(test|start)$/
// Anything but `&&` between steps (`||`, `;`, `|`, `&`, subshells, redirections) makes the script too subtle to split.
const NOT_A_CHAIN = /\|\||;|\||(?<!&)&(?!&)|\$\(|`|[<>]|\n/

function scriptStep(step: string): string | undefined {
  const match = SCRIPT_STEP.exec(step.trim())
  return match ? (match[1] ?? match[2]) : undefined
}

/** A binary of the project run through the package manager (never downloaded). */
function execStep(pm: PackageManager, step: string): string {
  const prefix = { npm: 'npm exec --no --', pnpm: 'pnpm exec', yarn: 'yarn run', bun: 'bun run' }[pm]
  // `NODE_ENV=test vitest run`: the assignments stay in front, for the shell.
  const assignments = /^(?:\w+=\S*\s+)*/.exec(step)?.[0] ?? ''
  return `${assignments}${prefix} ${step.slice(assignments.length)}`
}

/**
 * The commands of the checks found (`scripts` maps each check to its script), with each chained step that runs another
 * check's script removed. A check whose script was nothing but other checks' steps is dropped (the others cover it).
 */
export function planCommands(pkg: PackageJson, pm: PackageManager, scripts: ReadonlyMap<NodeCheckId, string>): PlannedCheck[] {
  const owned = new Map([...scripts].map(([id, script]) => [script, id]))
  const planned: PlannedCheck[] = []
  for (const [id, script] of scripts) {
    const body = pkg.scripts?.[script] ?? ''
    const steps = body.split('&&').map((s) => s.trim())
    const others = steps.map(scriptStep).filter((name): name is string => name !== undefined && owned.has(name) && owned.get(name) !== id)
    if (others.length === 0 || NOT_A_CHAIN.test(body)) {
      planned.push({ id, command: runScript(pm, script) })
      continue
    }
    const kept = steps.filter((step) => {
      const name = scriptStep(step)
      return !(name !== undefined && owned.has(name) && owned.get(name) !== id)
    })
    if (kept.length === 0) continue
    const command = kept.map((step) => (scriptStep(step) !== undefined ? step : execStep(pm, step))).join(' && ')
    planned.push({ id, command, leftOut: others })
  }
  return planned
}
