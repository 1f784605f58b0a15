// What every reporter is given: where to write, and what kind of terminal that is.
export interface ReporterOptions {
  /** Writes to the run's main output (stdout for the CLI), through the output layer that masks and defuses it. */
  write: (text: string) => void
  /**
   * Writes verify's own terminal control (a live redraw) and workflow commands past the output layer, masked only.
   * Given to built-in reporters; where absent, `write` is used.
   */
  writeControl?: (text: string) => void
  /** A file named with `--reporter name=<file>` (or `[name, { file }]` in the config), absolute. */
  file?: string
  color: boolean
  /** The output is an interactive terminal. */
  isTTY: boolean
  /** Running in CI: no live redraws, no prompts. */
  ci: boolean
  /** Terminal height, when known. */
  rows?: number
  /** Terminal width, when known: the live task list cuts its rows to it (80 when unknown). */
  columns?: number
  /**
   * The command that ran this protocol, to suggest again: `<bin> run [protocol]` and only the flags that say where
   * (`--config`, `--cwd`, `--evidence`), e.g. `npx verify run deploy --config sub/verify.config.ts`.
   * Default `npx verify run [protocol]`.
   */
  invocation?: string
  /** The folder paths are shown relative to. */
  cwd: string
  /** The environment of the run (e.g. `GITHUB_STEP_SUMMARY`); reporters only read it. */
  env: Readonly<Record<string, string | undefined>>
}

/** What choosing the reporters needs of the process they write to (the CLI's IO has all of it). */
export interface ReporterHost {
  stdout: (text: string) => void
  stderr: (text: string) => void
  env: NodeJS.ProcessEnv
  cwd: string
  /** stdout is an interactive terminal. */
  isTTY: boolean
  rows?: number
  /** Terminal width, when stdout is one. */
  columns?: number
  /**
   * verify's own terminal control (a live redraw) and GitHub Actions workflow commands, written as they are apart from
   * secret masking: the one way past the output layer (cli/output.ts). Only built-in reporters use it.
   */
  unguarded?: { stdout: (text: string) => void; stderr: (text: string) => void }
}
