// How a check's command is shown and recorded: a shell command as written, argv quoted for a POSIX shell (as Python's
// shlex.join does) so that the line can be pasted into one and runs the same argv.
import { join } from 'shlex'

export function commandText(command: string | readonly string[]): string {
  return typeof command === 'string' ? command : join([...command])
}
