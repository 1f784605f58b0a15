// `verify [run] [protocol]`: load, run under supervision, write evidence, report, exit by the verdict.
import { dirname, join, resolve } from 'node:path'
import { loadVerifyConfig } from '../config/load.js'
import { VerifyUsageError } from '../errors.js'
import { buildEvidenceFile } from '../evidence/record.js'
import { writeEvidenceFile, writeEvidenceFileSync } from '../evidence/store.js'
import { combineReporters } from '../reporters/index.js'
import { createReporters, useColor } from '../reporters/select.js'
import { createChecklist, runVerification } from '../runner/schedule.js'
import { killAllGroups } from '../runner/spawn.js'
import { summarize } from '../verdict/summary.js'
import { duration, list, parse, positiveInt } from './args.js'
import { exitCodeOfSignal, exitCodeOfVerdict } from './exit-code.js'
import type { CliIO } from './io.js'

export const RUN_OPTIONS = {
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  sequential: { type: 'boolean' },
  concurrency: { type: 'string' },
  'fail-fast': { type: 'boolean' },
  'skip-optional': { type: 'boolean' },
  timeout: { type: 'string' },
  'max-age': { type: 'string' },
  reporter: { type: 'string', multiple: true },
  evidence: { type: 'string' },
  config: { type: 'string' },
  cwd: { type: 'string' },
  color: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

type Signal = 'SIGINT' | 'SIGTERM' | 'SIGHUP'

// Last resort: if verify exits for any reason, no check's process group outlives it.
const killEveryGroup = () => killAllGroups('SIGKILL')

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse('run', argv, RUN_OPTIONS)
  if (positionals.length > 1) throw new VerifyUsageError(`verify run takes one protocol name, got: ${positionals.join(' ')}`)
  const cwd = resolve(io.cwd, values.cwd ?? '.')
  const loaded = await loadVerifyConfig({
    cwd,
    ...(values.config ? { configFile: resolve(io.cwd, values.config) } : {}),
    ...(positionals[0] ? { protocol: positionals[0] } : {}),
    overrides: {
      ...(values.sequential ? { parallel: false } : {}),
      ...(values['fail-fast'] ? { failFast: true } : {}),
      ...(values['skip-optional'] ? { skipOptional: true } : {}),
      concurrency: positiveInt('concurrency', values.concurrency),
      timeoutMs: duration('timeout', values.timeout),
      maxAgeMs: duration('max-age', values['max-age']),
    },
  })
  const { protocol } = loaded
  const ids = new Set(protocol.checks.map((c) => c.id))
  const only = list(values.only)
  const skip = list(values.skip)
  for (const id of [...(only ?? []), ...(skip ?? [])]) {
    if (!ids.has(id)) throw new VerifyUsageError(`No check "${id}" in protocol "${protocol.name}". Checks: ${[...ids].join(', ')}.`)
  }
  const color = useColor(io, values.color)
  const reporter = combineReporters(await createReporters(values.reporter, io, color))
  const evidencePath = values.evidence ? resolve(io.cwd, values.evidence) : join(loaded.rootDir, '.verify', 'evidence.json')

  const checklist = createChecklist(protocol)
  const controller = new AbortController()
  let interrupted: Signal | null = null
  const onSignal = (signal: Signal) => {
    if (interrupted) {
      // A second signal: stop waiting for graceful ends, record what is known and leave now.
      killAllGroups('SIGKILL')
      const summary = summarize(checklist.results, protocol.strictMode, { interrupted: true })
      writeEvidenceFileSync(evidencePath, buildEvidenceFile(checklist, summary, interrupted))
      process.exit(exitCodeOfSignal(interrupted))
    }
    interrupted = signal
    controller.abort(signal)
  }
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = () => onSignal(signal)
    process.on(signal, handler)
    return [signal, handler] as const
  })
  process.on('exit', killEveryGroup)
  try {
    const summary = await runVerification(checklist, {
      signal: controller.signal,
      reporter,
      sequential: values.sequential ?? false,
      ...(only ? { only } : {}),
      ...(skip ? { skip } : {}),
      logDir: join(dirname(evidencePath), 'logs'),
      env: io.env,
    })
    const file = buildEvidenceFile(checklist, summary, interrupted)
    await writeEvidenceFile(evidencePath, file)
    await reporter.onRunEnd({ checklist, summary, file, evidencePath, interrupted })
    return interrupted ? exitCodeOfSignal(interrupted) : exitCodeOfVerdict(summary.verdict)
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler)
    process.off('exit', killEveryGroup)
  }
}
