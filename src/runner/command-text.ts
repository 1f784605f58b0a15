// How a check's command is shown and recorded: a shell command as written, argv quoted for a POSIX shell so that the
// line can be pasted into one and runs the same argv.
import { quote } from 'shell-quote'

export function commandText(command: string | readonly string[]): string {
  return typeof command === 'string' ? command : quote([...command])
}
