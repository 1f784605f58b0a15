// Help texts. Kept beside each other so the CLI reads as one document.
export const HELP = `verify — run a verification protocol and gate on evidence

Usage:
  verify [run] [protocol] [options]   run every check and write .verify/evidence.json
  verify --help | --version

Run options:
  --only a,b            run only these checks (and what they depend on)
  --skip a,b            leave these checks out
  --sequential          one check at a time, in declaration order
  --concurrency N       at most N checks at once (default: available parallelism)
  --fail-fast           the first failing required check cancels the rest
  --skip-optional       do not run optional checks
  --timeout 5m          per-check timeout for every check
  --max-age 5m          how long evidence stays fresh
  --reporter name[=file] default | json (repeatable; replaces the default)
  --evidence <path>     where to write the evidence (default .verify/evidence.json)
  --config <file>       the config file (default: verify.config.* found from --cwd)
  --cwd <dir>           the folder to start from
  --no-color            plain output

Exit codes: 0 approved · 1 rejected · 2 usage or config error · 3 incomplete
            130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP
Docs: https://www.npmjs.com/package/verify-protocol (docs/ in the package)
`

export const RUN_HELP = HELP
