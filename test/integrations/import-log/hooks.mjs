// Module resolve hook (runs on the loader thread): logs each resolved URL to IMPORT_LOG.
import { appendFileSync } from 'node:fs'

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.IMPORT_LOG, `${result.url}\n`)
  return result
}
