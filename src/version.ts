// The package's own name and version, read once from its package.json (one folder above src/ and dist/).
import { readFileSync } from 'node:fs'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

export const TOOL = { name: pkg.name, version: pkg.version } as const
