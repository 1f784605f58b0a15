// `verify-protocol/presets/strict`: strictMode (any failure, optional checks too, rejects), plus `todo` (no new
// TODO/FIXME/XXX in the lines a change adds) and `error-free` (no errors in the output of the other checks).
import type { CheckDefinition } from '../config/define.js'
import { errorFreeCheck, type ErrorFreeOptions } from './error-free.js'
import { todoCheck, type TodoOptions } from './todo.js'

export { errorFreeCheck, ERROR_LINE_PATTERNS, scanLog, type ErrorFreeOptions, type ErrorFinding, type ErrorPattern } from './error-free.js'
export { addedLines, BASE_CANDIDATES, DEFAULT_MARKERS, scanNewMarkers, todoCheck, type AddedLine, type TodoOptions, type TodoScan } from './todo.js'

export interface StrictPreset {
  strictMode: true
  checks: { todo: CheckDefinition<'todo' | 'error-free'>; 'error-free': CheckDefinition<'todo' | 'error-free'> }
}

/** The strict preset with options for its two checks. */
export function strictPreset(options: { todo?: TodoOptions; errorFree?: ErrorFreeOptions } = {}): StrictPreset {
  return {
    strictMode: true,
    checks: { todo: todoCheck(options.todo), 'error-free': errorFreeCheck(options.errorFree) },
  }
}

/** The strict preset with its defaults: what `extends: ['verify-protocol/presets/strict']` loads. */
export const strict: StrictPreset = strictPreset()

export default strict
