// Named errors with stable codes. Only truly unexpected conditions throw; a failing check is data.

export type VerifyErrorCode = 'E_CONFIG_NOT_FOUND' | 'E_CONFIG_INVALID' | 'E_CONFIG_LOAD' | 'E_PROTOCOL_NOT_FOUND' | 'E_USAGE' | 'E_EVIDENCE' | 'E_WORKSPACE'

export class VerifyError extends Error {
  readonly code: VerifyErrorCode

  constructor(code: VerifyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'VerifyError'
    this.code = code
  }
}

/** The configuration could not be found, loaded or validated. `problems` lists every problem with its path. */
export class VerifyConfigError extends VerifyError {
  readonly problems: string[]

  constructor(code: VerifyErrorCode, message: string, problems: string[] = [], options?: { cause?: unknown }) {
    super(code, message, options)
    this.name = 'VerifyConfigError'
    this.problems = problems
  }
}

/** The command line was wrong: an unknown flag, a missing argument. */
export class VerifyUsageError extends VerifyError {
  constructor(message: string) {
    super('E_USAGE', message)
    this.name = 'VerifyUsageError'
  }
}
