// Reading all of stdin: a hook's input is one JSON object written by the agent, which then closes the pipe. Bounded in
// size and time, so a hook started by hand at a terminal, or by an agent that never closes the pipe, still answers.

export class StdinError extends Error {
  override name = 'StdinError'
}

export function readStream(stream: NodeJS.ReadableStream & { isTTY?: boolean }, maxBytes: number, timeoutMs: number): Promise<string> {
  if (stream.isTTY) return Promise.reject(new StdinError('stdin is a terminal, not the JSON an agent sends: pipe the hook input into `verify hook`'))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = (error: Error | null) => {
      clearTimeout(timer)
      stream.removeListener('data', onData).removeListener('end', onEnd).removeListener('error', onError)
      stream.pause()
      if (error) reject(error)
      else resolve(Buffer.concat(chunks).toString('utf8'))
    }
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      size += buffer.length
      if (size > maxBytes) return finish(new StdinError(`the hook input is larger than ${Math.round(maxBytes / 1024)} KiB`))
      chunks.push(buffer)
    }
    const onEnd = () => finish(null)
    const onError = (error: Error) => finish(new StdinError(`cannot read the hook input: ${error.message}`))
    const timer = setTimeout(() => finish(new StdinError(`no hook input arrived on stdin within ${timeoutMs / 1000}s`)), timeoutMs)
    timer.unref()
    stream.on('data', onData).on('end', onEnd).on('error', onError)
    stream.resume()
  })
}
