// "Did you mean …?": the closest of a few known words to a mistyped one, by edit distance.

/** Levenshtein distance, with a transposition counted as one edit (`lsit` → `list`). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_cell, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const row = rows[i] as number[]
      const above = rows[i - 1] as number[]
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1)
    }
  }
  return (rows[a.length] as number[])[b.length] as number
}

/** The known word closest to `word` when it is close enough to be a typo of it (at most 2 edits, or a third of it). */
export function closest(word: string, known: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.min(2, Math.floor(word.length / 3)))
  let best: { word: string; d: number } | undefined
  for (const candidate of known) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase())
    if (d <= limit && (!best || d < best.d)) best = { word: candidate, d }
  }
  return best?.word
}
