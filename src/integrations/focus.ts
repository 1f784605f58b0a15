// What a test runner's reporter reads of the run's files and folders before the recording starts: whether a file
// focuses tests, whether two folders are one. Light on purpose: the reporters import it when the runner loads its
// config, and the recording itself is loaded only when a run starts (integrations/bundled.ts).
import { realpathSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'

// `test.only(`, `it.concurrent.only(`, `describe.only(`, `fit(`, `fdescribe(`: focused tests make the runner skip the
// others. Neither runner reports focus to reporters, so the source of files that skipped tests is read: any `.only`
// or `['only']` counts, whatever it is called on (`const t = test; t.only(…)`), at the price of a file that skipped
// tests and calls some other `.only` being taken for focused.
const FOCUS = /\.\s*only\b|\[\s*(['"`])only\1\s*\]|\b(?:fit|fdescribe)\s*\(/
// Vitest's options form: an `only:` key anywhere but `only: false` and values no test option has (a list, a string,
// an object): `test('x', { only: true }, …)`, through `test.extend`, with a computed name; and a shorthand `{ only }`
// in the options of a call (`myTest('x', { retry: { count: 1 }, only }, …)`). An object of the code under test with
// `only: true` in a file that skipped tests reads as focus too.
const OPTIONS_FOCUS = /(?<![\w$.])(['"`]?)only\1\s*:(?!\s*(?:false\b|[[{'"`]))|[\w$)\]]\s*\([^()]*,\s*\{(?:[^{}]|\{[^{}]*\})*?(?<![\w$.])only\s*[,}]/

/** The first of these test files that focuses tests with `.only` (they skipped tests), or null. */
export async function focusedFile(files: Iterable<string>): Promise<string | null> {
  for (const file of files) {
    const source = await readFile(file, 'utf8').catch(() => '')
    if (FOCUS.test(source) || OPTIONS_FOCUS.test(source)) return file
  }
  return null
}

function realPath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/** Are two paths the same folder, links followed? */
export function samePlace(a: string, b: string): boolean {
  return realPath(a) === realPath(b)
}
