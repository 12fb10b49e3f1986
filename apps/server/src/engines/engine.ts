import type pg from 'pg'

/**
 * An engine: an in-memory index over one data version, only a faster source of the rows the database holds
 * (docs/decisions/0080). Every figure is computed by one function over an engine's rows; whether they came from
 * the index or straight from the database (while the index builds: at start, for a new data version, after an
 * eviction, or for a specialty searched for the first time) cannot change the figure. Engines live in engines/,
 * one folder per product; services call them, routes never do.
 */
export interface Engine<Index, Query, Rows> {
  /** its name in the shared memory budget (lib/engine-budget.ts) and in GET /metrics */
  readonly name: string
  /**
   * the index of the data version: built in the background on first ask, null while it builds (`wait`: awaited).
   * An engine kept per key (Care Select's specialties) builds here what every key shares, and each key on its
   * first `rows`.
   */
  build(pool: pg.Pool, version: string, wait?: boolean): Promise<Index | null>
  /** the rows a request needs: from the index when it is held for the version, else read from the database */
  rows(pool: pg.Pool, version: string, query: Query): Promise<Rows>
  /** bytes held for the pool's primary */
  memory(pool: pg.Pool): number
  /** drops what is held for the pool's primary (built again on its next use) */
  evict(pool: pg.Pool): void
}
