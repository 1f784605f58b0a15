// Waiting for a process's own stdout/stderr to be written out: exiting with writes queued for a pipe loses them.
import { Writable } from 'node:stream'

/** Resolves once everything written to the stream has been handed to the system, or the stream failed or closed. */
export function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.closed || (!stream.destroyed && stream.writableLength === 0)) return Promise.resolve()
  return new Promise((resolve) => {
    // A failed stream reports its error just before it closes: what is said about it must come out first.
    if (stream.destroyed) return void stream.once('close', () => resolve())
    const done = () => {
      stream.off('close', done)
      resolve()
    }
    stream.once('close', done)
    // Callbacks run in write order: this one runs once every earlier write is out (or failed). The stream's own write:
    // the CLI points process.stdout.write at stderr for everything but its commands (cli/io.ts).
    Writable.prototype.write.call(stream, '', 'utf8', done)
  })
}

/** Flushes stdout and stderr, after one turn of the event loop so that a write error already raised is reported. */
export async function flushOutput(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
  await Promise.all([process.stdout, process.stderr].map(flushed))
}
