// Where a failing test is: the first `file:line` of a stack trace or a code frame that points into the project.
import { isAbsolute, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestFailure } from '../types.js'

/** Failing tests kept in the evidence; `tests.failed` still counts every one. */
export const MAX_FAILURES = 10
const MAX_NAME = 300
const MAX_MESSAGE = 300
const MAX_FILE = 500

// `path/to/file.ext:12` or `…:12:5`, as stack frames (`at fn (file:12:5)`), code frames (`❯ file:12:5`) and
// compilers print them. The path has an extension and no spaces or brackets.
const AT = /(?:file:\/\/)?((?:[A-Za-z]:)?[^\s()[\]'"`<>:]*[^\s()[\]'"`<>:./\\]\.[A-Za-z0-9]{1,6}):(\d{1,7})(?::\d{1,7})?/g
// Frames of the runner and of Node itself say nothing about where the test is.
const NOT_PROJECT = /(?:^|[\\/])node_modules[\\/]|^node:|^internal[\\/]/

export interface Location {
  file: string
  line: number
}

/**
 * The first location in `text` inside the project. With `file` (the test's file as the report names it), a location
 * in that file is preferred.
 */
export function findLocation(text: string, file?: string): Location | undefined {
  let first: Location | undefined
  for (const match of text.slice(0, 64 * 1024).matchAll(AT)) {
    const path = match[1] as string
    const line = Number(match[2])
    if (NOT_PROJECT.test(path) || line < 1) continue
    if (file === undefined || sameFile(path, file)) return { file: path, line }
    first ??= { file: path, line }
  }
  return file === undefined ? first : undefined
}

const norm = (p: string) => p.replace(/\\/g, '/').replace(/^\.\//, '')

function sameFile(a: string, b: string): boolean {
  const [x, y] = [norm(a), norm(b)]
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`)
}

/** A path a report gave, relative to the check's folder when it lies inside it (reports often write absolute ones). */
export function projectPath(path: string, cwd: string): string {
  let p = path
  if (p.startsWith('file://')) {
    try {
      p = fileURLToPath(p)
    } catch {
      return cut(p, MAX_FILE)
    }
  }
  if (isAbsolute(p)) {
    const rel = relative(cwd, p)
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) p = rel
  }
  return cut(p, MAX_FILE)
}

function cut(text: string, max: number): string {
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}

/** The first non-blank line of a failure message, bounded. */
export function firstMessageLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  const line = text
    .slice(0, 64 * 1024)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '')
  return line === undefined ? undefined : cut(line, MAX_MESSAGE)
}

/** A TestFailure with every field bounded and only the fields that are known. */
export function testFailure(name: string, details: { file?: string | undefined; line?: number | undefined; message?: string | undefined } = {}): TestFailure {
  const failure: TestFailure = { name: cut(name.trim() || '(unnamed test)', MAX_NAME) }
  if (details.file) failure.file = cut(details.file, MAX_FILE)
  if (details.line !== undefined && Number.isInteger(details.line) && details.line >= 1) failure.line = details.line
  const message = firstMessageLine(details.message)
  if (message) failure.message = message
  return failure
}
