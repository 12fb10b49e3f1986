import type pg from 'pg'

/**
 * Build times of the in-memory engines (Care Select candidate index, Atlas patient and claim indexes, Nova), for
 * GET /metrics (plugins/metrics.ts, docs/operations.md). Kept per process: each process builds its own engines.
 */
export interface EngineBuildStats {
  /** builds finished, and failed */
  builds: number
  failures: number
  /** seconds of the last finished build, and of all of them */
  lastSeconds: number
  totalSeconds: number
}

const stats = new Map<string, EngineBuildStats>()

/** Records how long `build` takes under `engine`'s name; gives `build` back unchanged. */
export function timedBuild<T>(engine: string, build: Promise<T>): Promise<T> {
  const started = performance.now()
  const record = (failed: boolean) => {
    let s = stats.get(engine)
    if (!s) stats.set(engine, (s = { builds: 0, failures: 0, lastSeconds: 0, totalSeconds: 0 }))
    const seconds = (performance.now() - started) / 1000
    if (failed) s.failures++
    else {
      s.builds++
      s.lastSeconds = seconds
      s.totalSeconds += seconds
    }
  }
  build.then(
    () => record(false),
    () => record(true),
  )
  return build
}

/** Every engine's build figures so far, by name. */
export function engineBuildStats(): ReadonlyMap<string, Readonly<EngineBuildStats>> {
  return stats
}

type PoolProbe<T> = (pool: pg.Pool) => T

const memoryProbes = new Map<string, PoolProbe<number>>()
const lookupProbes = new Map<string, PoolProbe<{ hits: number; misses: number }>>()

/** An engine tells how many bytes it holds for a pool (read by GET /metrics; the engines live under engines/). */
export function reportEngineMemory(engine: string, bytes: PoolProbe<number>): void {
  memoryProbes.set(engine, bytes)
}

/** A cache of answers tells its hits and misses for a pool. */
export function reportCacheLookups(cache: string, lookups: PoolProbe<{ hits: number; misses: number }>): void {
  lookupProbes.set(cache, lookups)
}

/** The bytes each reporting engine holds for `pool`. */
export function engineMemory(pool: pg.Pool): [string, number][] {
  return [...memoryProbes].map(([engine, bytes]) => [engine, bytes(pool)])
}

/** The hits and misses of each reporting cache for `pool`. */
export function cacheLookups(pool: pg.Pool): [string, { hits: number; misses: number }][] {
  return [...lookupProbes].map(([cache, lookups]) => [cache, lookups(pool)])
}
