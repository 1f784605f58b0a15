// Help texts. Kept beside each other so the CLI reads as one document.
export const HELP = `verify — run a verification protocol and gate on evidence

Usage:
  verify [run] [protocol] [options]   run every check and write .verify/evidence.json
  verify check [protocol]             is the stored evidence still valid? (runs nothing)
  verify approve <checkId>            approve a manual check for the current code
  verify merge <evidence...>          combine the evidence of shards into one verdict
  verify list [protocol] [--json]     the resolved protocol(s): checks, types, order, layers
  verify init [--yes] [--agent name]  write a verify.config.ts from package.json scripts; add an agent's stop hook
  verify schema [config|evidence]     print a JSON Schema
  verify hook <agent> [protocol]      the stop gate of a coding agent (claude-code, codex, cursor, gemini, copilot)
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
  --reuse               run only checks without valid evidence; reuse the rest
  --shard i/n           run the i-th of n deterministic shares (dependencies kept together)
  --no-interactive      never offer to approve manual checks at the terminal
  --wait[=<duration>]   another run holds the evidence file: wait for it (at most <duration>), not exit 2
  --reporter name[=file] default | verbose | json | junit | markdown | github-actions | agent
                        (repeatable; replaces the default)
  --evidence <path>     where to write the evidence (default .verify/evidence.json)
  --config <file>       the config file (default: verify.config.* found from --cwd)
  --cwd <dir>           the folder to start from
  --no-color            plain output

Exit codes: 0 approved · 1 rejected · 2 usage or config error · 3 incomplete
            130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP
Docs: https://www.npmjs.com/package/verify-protocol (docs/ in the package)
`

export const RUN_HELP = HELP

export const CHECK_HELP = `verify check [protocol] — validate stored evidence without running anything

Each check's evidence must be of the check's type, passing, younger than maxAge (and not from the future),
bound to the current code (workspace fingerprint, or its inputs) and to the check's current definition.

Options:
  --max-age 5m          freshness window (default: the config's maxAge, else 5m)
  --require-signature   reject unsigned or altered evidence (needs VERIFY_SIGNING_KEY; with the key set,
                        such evidence is rejected anyway)
  --protocol-from <ref> judge against the protocol as the config at this git ref defines it (e.g. origin/main),
                        so the change under test cannot weaken its own gate
  --json                the judgement as JSON
  --evidence <path>     the evidence file (default .verify/evidence.json)
  --config <file>  --cwd <dir>  --no-color

Exit codes: 0 approved · 1 rejected · 2 usage or config error · 3 incomplete (missing, stale or unreadable evidence)
`

export const APPROVE_HELP = `verify approve <checkId> — approve a manual check for the code as it is now

The approval records who approved, when, and the fingerprint of the code and of the check's definition; a later
change to either makes it stale. Approvals live in .verify/approvals.json beside the evidence.

Options:
  --by <name>           who approves (default: git user.name, else the login name)
  --note <text>         why, or what was looked at
  --protocol <name>     the protocol the check belongs to (default: "default")
  --wait[=<duration>]   another run holds the evidence file: wait for it (at most <duration>), not exit 2
  --evidence <path>  --config <file>  --cwd <dir>
`

export const MERGE_HELP = `verify merge <evidence...> [--evidence out] — combine shards into one verdict

Takes the evidence files of \`verify run --shard i/n\` jobs, refuses files from a different protocol definition
or a different workspace fingerprint (or, when VERIFY_SIGNING_KEY is set, a shard that is unsigned or altered), judges
every shard's records like \`verify check\` does — against the code checked out here, the clock and the config — and
writes one evidence file whose verdict covers the whole protocol. A missing shard leaves its checks skipped.

Options:
  --evidence <path>     where to write the merged file (default .verify/evidence.json)
  --wait[=<duration>]   another run holds that file: wait for it (at most <duration>), not exit 2
  --protocol-from <ref> judge against the protocol as the config at this git ref defines it (e.g. origin/main)
  --max-age 5m          freshness window (default: the config's maxAge, else 5m)
  --config <file>  --cwd <dir>  --no-color
`

export const LIST_HELP = `verify list [protocol] [--json] — the resolved protocol(s) after every layer

Shows each protocol's options and its checks in declaration order: id, evidence type, required, kind
(command / function / manual), dependencies, timeout, the layers it came from (lowest first) and its command.

Options:
  --json                the same as JSON (stable format, see docs/cli.md)
  --config <file>  --cwd <dir>

Exit codes: 0 listed · 2 usage or config error
`

export const INIT_HELP = `verify init [--yes] [--force] [--agent <name>] — write a verify.config.ts from package.json

Spells out build / typecheck / lint / test checks for the scripts package.json has, run with the package manager of
the lockfile, and adds .verify/ to .gitignore. Asks before each check in an interactive terminal (not in CI).

Options:
  --yes, -y             no questions: take every check found
  --force               replace an existing verify config (verify init never overwrites one otherwise)
  --agent <name>        add verify's stop gate to the agent's settings (claude-code, codex, cursor, gemini,
                        copilot), merged with the hooks already there; with a config present, only that
  --cwd <dir>           the project folder

Exit codes: 0 written · 2 a config exists (without --force), no package.json, or a usage error
`

export const SCHEMA_HELP = `verify schema [config|evidence] — print a JSON Schema (default: config)

  config     what a verify.config.json, .verifyrc or the "verify" key of package.json may hold
  evidence   the evidence file verify writes (.verify/evidence.json)
`

export const HOOK_HELP = `verify hook <agent> [protocol] — keep a coding agent working until the verdict is approved

Reads the agent's stop event (JSON) on stdin, runs the protocol in the folder the event names, reusing valid
evidence, and answers on stdout in the agent's form: nothing to act on when approved; otherwise a block whose reason
is what failed, the command, the lines that matter and the command to run. Anything that goes wrong (bad input, a
broken config, a crash, the time budget) blocks, with the problem as the reason. After --max-blocks blocks in a row
the stop goes through, and the user is told the work is NOT verified. VERIFY_HOOK=off lets every stop through.

Agents: claude-code (Stop, SubagentStop) · codex (Stop) · cursor (stop) · gemini (AfterAgent) · copilot (agentStop)
Install: verify init --agent <agent>   (see docs/agents.md)

Options:
  --max-blocks N        blocks in a row before the stop goes through unverified (default 8)
  --timeout 10m         the time the agent gives the hook; verify answers within it (default 10m)
  --evidence <path>  --config <file>  --cwd <dir>

Exit code: always 0 with the answer on stdout, as the agents read it (2 for a usage error of the hook line itself)
`
