// picomatch is loaded by the first check with `inputs`: a command or a protocol that has none never pays for it.
import type picomatchFunction from 'picomatch'

export type Picomatch = typeof picomatchFunction

export async function loadPicomatch(): Promise<Picomatch> {
  // A CommonJS module: Node's import gives its `module.exports` as the default export.
  const loaded = (await import('picomatch')) as unknown as { default: Picomatch }
  return loaded.default
}
