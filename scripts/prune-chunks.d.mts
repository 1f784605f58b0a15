export declare function pruneChunks(dir: string, produced: readonly string[], options: { keepPrevious: boolean }): void
export declare function packing(env?: Record<string, string | undefined>): boolean
