// `node --import` this file: every module the process resolves, ES modules (a resolve hook) and CommonJS (the
// require resolver) alike, is appended to the file named by IMPORT_LOG.
import { appendFileSync } from 'node:fs'
import Module, { register } from 'node:module'

const log = process.env.IMPORT_LOG
register('./hooks.mjs', import.meta.url)
const resolveFilename = Module._resolveFilename
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args)
  appendFileSync(log, `${file}\n`)
  return file
}
