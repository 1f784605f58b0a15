#!/usr/bin/env node
// The test suite's time against an earlier commit's, both measured here, in turn: the figure a change to the suite's
// speed is judged by (docs/architecture.md, "Tests").
//   node bench/suite.mjs [--baseline 73ad715] [--rounds 2] [--no-warmup] [--unset NAME …] [--keep]
// Clones this repository into a folder of the system's temp dir twice, at HEAD (committed work only) and at the
// baseline, installs each from its lockfile and builds it, then runs `npm test` in each, alternating (A B A B …; the
// first round warms the caches the suites keep in node_modules and is discarded), and prints medians, each round's
// ratio and the ratio of the medians. Every process of a run gets a TMPDIR inside that folder, which is removed at the
// end: what a suite leaves in its temp dir goes with it. `--unset` removes a variable from both suites' environment
// (NODE_EXTRA_CA_CERTS, say, which the suite at HEAD drops for its own processes and older suites do not).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, stripVTControlCharacters } from 'node:util'
import { machine, measure, table, TIME } from './measure.mjs'

const OPTIONS = {
  // The last commit before the layers were drawn and the suite was reorganised (1,250 tests, one worker).
  baseline: { type: 'string', default: '73ad715' },
  rounds: { type: 'string', default: '2' },
  warmup: { type: 'boolean', default: true },
  unset: { type: 'string', multiple: true, default: [] },
  keep: { type: 'boolean', default: false },
}
let values
try {
  values = parseArgs({ options: OPTIONS, allowNegative: true }).values
} catch (error) {
  console.error(`bench/suite: ${error.message}. Options: --baseline <commit>, --rounds <n>, --no-warmup, --unset <NAME>, --keep.`)
  values = null
}
const ROUNDS = Number(values?.rounds)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
// The suite's own goal: at most about 40 % of the baseline's time.
const GOAL = 0.4

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
const seconds = (msecs) => (Number.isNaN(msecs) ? '-' : `${(msecs / 1000).toFixed(1)} s`)

function commitOf(name) {
  try {
    return git('rev-parse', '--verify', '--quiet', `${name}^{commit}`)
  } catch {
    return null
  }
}

/** A clone of this repository at `commit`, installed from its lockfile and built. */
function install(dir, commit, label) {
  console.error(`bench/suite: ${label}: cloning ${commit.slice(0, 12)}, npm ci, build …`)
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', '--no-checkout', ROOT, dir], { stdio: ['ignore', 'ignore', 'inherit'] })
  execFileSync('git', ['checkout', '--quiet', '--detach', commit], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
  const scripts = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts ?? {}
  if (scripts.build) execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
}

/** "Tests  1609 passed (1609)": the summary line of Vitest's default reporter. */
const testsLine = (stdout) =>
  stripVTControlCharacters(stdout)
    .split('\n')
    .find((line) => /^\s*Tests\s/.test(line))
    ?.replace(/^\s*Tests\s+/, '')
    .trim() ?? '?'

const sides = [
  { name: 'now', ref: 'HEAD' },
  { name: 'baseline', ref: values?.baseline },
]
for (const side of sides) side.commit = values && commitOf(side.ref)
const missing = sides.find((side) => !side.commit)
if (!values) {
  process.exitCode = 2
} else if (missing) {
  console.error(
    `bench/suite: the ${missing.name} commit "${missing.ref}" is not in this repository (a shallow clone has no history: run git fetch --unshallow), or pass another with --baseline.`,
  )
  process.exitCode = 2
} else if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error(`bench/suite: --rounds takes a whole number of at least 1, not "${values.rounds}".`)
  process.exitCode = 2
} else {
  if (git('status', '--porcelain', '--untracked-files=no')) console.error('bench/suite: uncommitted changes are not measured: the clone is of HEAD.')
  // A Ctrl-C reaches the running suite as well; it ends, its run throws, and the clones are removed below.
  process.on('SIGINT', () => {})
  const work = mkdtempSync(join(tmpdir(), 'verify-bench-suite-'))
  try {
    for (const side of sides) {
      side.dir = join(work, side.name)
      install(side.dir, side.commit, side.name)
      const temp = join(work, `${side.name}-tmp`)
      mkdirSync(temp)
      const env = { ...process.env, TMPDIR: temp }
      for (const name of values.unset) delete env[name]
      side.contender = {
        name: side.name,
        cmd: 'npm',
        args: ['test', '--silent'],
        cwd: side.dir,
        env,
        capture: true,
        onSample: (sample, round) => {
          side.tests = testsLine(sample.stdout)
          console.error(`bench/suite: round ${round}${round === 0 ? ' (warm-up)' : ''}, ${side.name}: ${seconds(sample.wall)}, ${side.tests}`)
        },
      }
    }
    const stats = measure(
      sides.map((side) => side.contender),
      ROUNDS,
      { warmup: values.warmup },
    )
    const now = stats.get('now')
    const base = stats.get('baseline')
    const rows = sides.map((side) => {
      const s = stats.get(side.name)
      return [
        side.name,
        side.commit.slice(0, 7),
        side.tests,
        `${seconds(s.wall)} (${seconds(s.min)}–${seconds(s.max)})`,
        seconds(s.cpu),
        `${s.rssMiB.toFixed(0)} MiB`,
      ]
    })
    const perRound = now.samples.map((sample, i) => (sample.wall / base.samples[i].wall).toFixed(2)).join(', ')
    const wallRatio = now.wall / base.wall
    console.log(`\nmachine: ${machine()}`)
    const unset = values.unset.length ? `; unset for both: ${values.unset.join(', ')}` : ''
    console.log(`npm test, ${ROUNDS} round(s) in turn${values.warmup ? ' after a warm-up round' : ''}, medians of whole processes${unset}\n`)
    console.log(table(['suite', 'commit', 'tests', 'wall (min–max)', 'CPU', 'peak RSS'], rows))
    console.log(`\nwall, now / baseline: ${wallRatio.toFixed(2)} (round by round: ${perRound}); goal ≤ ${GOAL}: ${wallRatio <= GOAL ? 'met' : 'MISSED'}`)
    if (TIME) console.log(`CPU, now / baseline: ${(now.cpu / base.cpu).toFixed(2)}`)
  } catch (error) {
    // A clone, an install or a suite that failed: what it printed last, no stack of this script's.
    console.error(`bench/suite: no figures: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  } finally {
    if (values.keep) console.error(`bench/suite: kept ${work}`)
    else rmSync(work, { recursive: true, force: true })
  }
}
