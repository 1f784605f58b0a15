// What every reporter is given: where to write, and what kind of terminal that is.
export interface ReporterOptions {
  /** Writes to the run's main output (stdout for the CLI). */
  write: (text: string) => void
  /** A file named with `--reporter name=<file>` (or `[name, { file }]` in the config), absolute. */
  file?: string
  color: boolean
  /** The output is an interactive terminal. */
  isTTY: boolean
  /** Running in CI: no live redraws, no prompts. */
  ci: boolean
  /** Terminal height, when known. */
  rows?: number
  /** The folder paths are shown relative to. */
  cwd: string
  /** The environment of the run (e.g. `GITHUB_STEP_SUMMARY`); reporters only read it. */
  env: Readonly<Record<string, string | undefined>>
}
