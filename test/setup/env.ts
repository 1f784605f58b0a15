// Tests must not inherit the variables of the job that runs them: under GitHub Actions or a coding agent, a spawned
// `verify` would add its reporters and append to the real job summary. Tests that want them set them explicitly.
export const INHERITED = [
  'GITHUB_ACTIONS',
  'GITHUB_STEP_SUMMARY',
  'AI_AGENT',
  'CLAUDECODE',
  'CLAUDE_CODE',
  'CLAUDE_PROJECT_DIR',
  'GEMINI_PROJECT_DIR',
  'CODEX_SANDBOX',
  'CODEX_THREAD_ID',
  'CURSOR_AGENT',
  'GEMINI_CLI',
  'OPENCODE',
  'COPILOT_AGENT',
  'COPILOT_CLI',
  'REPL_ID',
  'AUGMENT_AGENT',
  'GOOSE_PROVIDER',
  'JUNIE_DATA',
  'VERIFY_SIGNING_KEY',
  'VERIFY_ENV',
]
for (const name of INHERITED) delete process.env[name]

// Node reads and parses the certificates NODE_EXTRA_CA_CERTS names at every start (a machine that sets it to Debian's
// whole bundle spends about 50 ms of CPU on it, half of `node -e 0`), and the suite starts some 1,500 Node processes
// (the CLI, function checks, fixtures, real Vitest and Jest runs), none of which opens a TLS connection.
delete process.env.NODE_EXTRA_CA_CERTS
