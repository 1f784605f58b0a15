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
