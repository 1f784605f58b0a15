// Help texts. Kept beside each other so the CLI reads as one document; the option lists come from the flag tables.
import { APPROVE_FLAGS, CHECK_FLAGS, HOOK_FLAGS, INIT_FLAGS, LIST_FLAGS, MERGE_FLAGS, optionLines, RUN_FLAGS } from './flags.js'

export const HELP = `verify — run a verification protocol and gate on evidence

Usage:
  verify [run] [protocol] [options]   run every check and write .verify/evidence.json
  verify check [protocol]             is the stored evidence still valid? (runs nothing)
  verify approve <checkId>            approve a manual check for the current code
  verify merge <evidence...>          combine the evidence of shards into one verdict
  verify list [protocol] [--json]     the resolved protocol(s): checks, types, order, layers
  verify init [--yes] [--agent name]  write a verify.config.ts from package.json scripts; add an agent's stop hook
  verify schema [kind]                print a JSON Schema: config, evidence or approvals
  verify hook <agent> [protocol]      the stop gate of a coding agent (claude-code, codex, cursor, gemini, copilot)
  verify --help | --version

Run options:
${optionLines(RUN_FLAGS)}
Exit codes: 0 approved · 1 rejected · 2 usage or config error · 3 incomplete
            130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP
Docs: https://www.npmjs.com/package/verify-protocol (docs/ in the package)
`

export const RUN_HELP = HELP

export const CHECK_HELP = `verify check [protocol] — validate stored evidence without running anything

Each check's evidence must be of the check's type, passing, younger than maxAge (and not from the future),
bound to the current code (workspace fingerprint, or its inputs) and to the check's current definition.

Options:
${optionLines(CHECK_FLAGS)}
Exit codes: 0 approved · 1 rejected · 2 usage or config error · 3 incomplete (missing, stale or unreadable evidence)
`

export const APPROVE_HELP = `verify approve <checkId> — approve a manual check for the code as it is now

The approval records who approved, when, and the fingerprint of the code and of the check's definition; a later
change to either makes it stale. Approvals live in .verify/approvals.json beside the evidence.

Options:
${optionLines(APPROVE_FLAGS)}`

export const MERGE_HELP = `verify merge <evidence...> [--evidence out] — combine shards into one verdict

Takes the evidence files of \`verify run --shard i/n\` jobs, refuses files from a different protocol definition
or a different workspace fingerprint (or, when VERIFY_SIGNING_KEY is set, a shard that is unsigned or altered), judges
every shard's records like \`verify check\` does — against the code checked out here, the clock and the config — and
writes one evidence file whose verdict covers the whole protocol. A missing shard leaves its checks skipped.

Options:
${optionLines(MERGE_FLAGS)}`

export const LIST_HELP = `verify list [protocol] [--json] — the resolved protocol(s) after every layer

Shows each protocol's options and its checks in declaration order: id, evidence type, required, kind
(command / function / manual), dependencies, timeout, the layers it came from (lowest first) and its command.

Options:
${optionLines(LIST_FLAGS)}
Exit codes: 0 listed · 2 usage or config error
`

export const INIT_HELP = `verify init [--yes] [--force] [--agent <name>] — write a verify.config.ts from package.json

Spells out build / typecheck / lint / test checks for the scripts package.json has, run with the package manager of
the lockfile, and adds .verify/ to .gitignore. Asks before each check in an interactive terminal (not in CI).

Options:
${optionLines(INIT_FLAGS)}
Exit codes: 0 written · 2 a config exists (without --force), no package.json, or a usage error
`

export const SCHEMA_HELP = `verify schema [config|evidence|approvals] — print a JSON Schema (default: config)

  config     what a verify.config.json, .verifyrc or the "verify" key of package.json may hold
  evidence   the evidence file verify writes (.verify/evidence.json)
  approvals  the approvals verify approve writes beside it (.verify/approvals.json)
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
${optionLines(HOOK_FLAGS)}
Exit code: always 0 with the answer on stdout, as the agents read it (2 for a usage error of the hook line itself)
`
