// The layers of src/ hold: the engine (config, runner, evidence, verdict) never reaches up into what prints
// (reporters) or into the command line (cli); reporters never into the command line; the runner runs and does not
// judge (no import of the verdict layer). Read from the sources' own import statements, type-only ones included.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/cli.js'

const SRC = join(ROOT, 'src')

/** Every relative import of every source file: [importing file, imported file], relative to src/. */
function imports(): [string, string][] {
  const edges: [string, string][] = []
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(SRC, file), 'utf8')
    for (const match of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      edges.push([file, relative(SRC, resolve(dirname(join(SRC, file)), match[1] as string))])
    }
  }
  return edges
}

const layer = (file: string) => (file.includes('/') ? (file.split('/')[0] as string) : '')

// Which layers each layer must never import.
const FORBIDDEN: Record<string, readonly string[]> = {
  config: ['reporters', 'cli', 'integrations', 'runner', 'verdict'],
  evidence: ['reporters', 'cli', 'integrations', 'verdict'],
  runner: ['reporters', 'cli', 'integrations', 'verdict'],
  verdict: ['reporters', 'cli', 'integrations'],
  presets: ['reporters', 'cli', 'integrations'],
  reporters: ['cli', 'integrations'],
}

describe('the layers of src/', () => {
  const edges = imports()

  it('reads the imports (the check would pass vacuously otherwise)', () => {
    expect(edges.length).toBeGreaterThan(200)
    expect(edges).toContainEqual(['cli/run/execute.ts', 'runner/schedule.js'])
  })

  // The shared shapes sit under every layer: types.ts derives the evidence types from the evidence schema, which
  // therefore imports nothing of src/ but the lists of statuses and verdicts.
  it('types.ts, status.ts and evidence/schema.ts import only one another', () => {
    const leaves = ['types.ts', 'status.ts', 'evidence/schema.ts']
    const reach = edges.filter(([file]) => leaves.includes(file)).map(([file, target]) => `${file} → ${target.replace(/\.js$/, '.ts')}`)
    expect(reach).toContain('types.ts → evidence/schema.ts')
    expect(reach.filter((edge) => !leaves.includes(edge.split(' → ')[1] as string))).toEqual([])
  })

  for (const [from, banned] of Object.entries(FORBIDDEN)) {
    it(`${from}/ imports nothing from ${banned.join(', ')}`, () => {
      const crossing = edges.filter(([file, target]) => layer(file) === from && banned.includes(layer(target))).map(([file, target]) => `${file} → ${target}`)
      expect(crossing).toEqual([])
    })
  }
})
