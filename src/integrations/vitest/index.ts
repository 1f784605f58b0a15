// `verify-protocol/vitest`: a protocol's checks as Vitest tests, and the plugin that records test evidence from
// Vitest's own run. The core CLI never imports this module (nor vitest).
export { describeProtocol } from './describe-protocol.js'
export type { DescribeProtocolOptions } from './describe-protocol.js'
export { verifyPlugin } from './plugin.js'
export { default as VerifyReporter } from './reporter.js'
export type { VerifyReporterOptions } from './reporter.js'
export { shellEnvironment } from '../shell-env.js'
