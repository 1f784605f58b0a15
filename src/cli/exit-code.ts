// Every exit code of `verify`, in one place (SPEC §6.2).
import type { Verdict } from '../types.js'

export const ExitCode = {
  approved: 0,
  rejected: 1,
  usage: 2,
  incomplete: 3,
  SIGHUP: 129,
  SIGINT: 130,
  SIGTERM: 143,
} as const

export function exitCodeOfVerdict(verdict: Verdict): number {
  return ExitCode[verdict]
}

export function exitCodeOfSignal(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP'): number {
  return ExitCode[signal]
}
