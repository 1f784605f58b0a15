// `node --import` this file: every module the process loads, ES modules (a resolve hook) and CommonJS (what the
// require cache holds at exit) alike, is appended to the file named by IMPORT_LOG.
import { appendFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'

register('./hooks.mjs', import.meta.url)
const { cache } = createRequire(import.meta.url)
process.on('exit', () =>
  appendFileSync(
    process.env.IMPORT_LOG,
    Object.keys(cache)
      .map((file) => `${file}\n`)
      .join(''),
  ),
)
