import type { FastifyRequest } from 'fastify'
import type pg from 'pg'
import { coalescedRead } from './coalesce.js'

/**
 * The data version as one SQL expression (text): `count:highest id:latest finish` of the finished data loads. Read
 * alone (dataVersion), with the login principal (plugins/auth.ts) and with Care Select's input check.
 */
export const DATA_VERSION_SQL = `(SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || coalesce(max(finished_at)::text, '') FROM data_loads WHERE status = 'done')`

/** The data version read now (no coalescing: a check before and after a read must see both moments). */
export async function readDataVersion(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ v: string }>({ name: 'data-version', text: `SELECT ${DATA_VERSION_SQL} AS v` })
  return rows[0]?.v ?? '0:0:'
}

/**
 * Orders two data versions: negative when `a` is older than `b`, 0 when the same, positive when newer. A version
 * (readDataVersion, and the resolve query of Care Select) is `count:highest id:latest finish` of the finished
 * data_loads, an append-only journal: its count only grows, then its highest id; the latest finish breaks what is
 * left. Caches kept per version move forward only with it: a request that read an older version than one already
 * seen (a slower request, or one that read just before a load finished) must not replace the newer state.
 */
export function compareDataVersions(a: string, b: string): number {
  const pa = a.split(':')
  const pb = b.split(':')
  for (let k = 0; k < 2; k++) {
    const x = Number(pa[k])
    const y = Number(pb[k])
    if (Number.isFinite(x) && Number.isFinite(y) && x !== y) return x < y ? -1 : 1
  }
  return a < b ? -1 : a > b ? 1 : 0
}

const readers = new WeakMap<pg.Pool, () => Promise<string>>()

/**
 * The data version: changes whenever a seed or an import finishes (data_loads), in this process or any
 * other (the CLI imports in its own process). Cached answers are keyed by it, so a re-import invalidates
 * them at once without any message between processes (docs/decisions/0028). The requests that arrive
 * while a read is in flight share the next one (lib/coalesce.ts, docs/decisions/0051): each still sees
 * every load that finished before it arrived.
 */
export function dataVersion(pool: pg.Pool): Promise<string> {
  let read = readers.get(pool)
  if (!read) readers.set(pool, (read = coalescedRead(() => readDataVersion(pool))))
  return read()
}

/**
 * The data version for a request: the one read with its login principal (the same statement, after the request
 * arrived), else a read of its own (API keys, link guests), kept on the request.
 */
export async function requestDataVersion(request: FastifyRequest): Promise<string> {
  // kept on the request: its ETag, its inputs' check and its answer all speak of the same version, read once
  request.dataVersion ??= await dataVersion(request.server.db.pool)
  return request.dataVersion
}

interface Entry<V> {
  version: string
  value: V
  expires: number
  /** the entry's share of `maxWeight` (e.g. bytes); 0 unless given */
  weight: number
}

/**
 * A bounded least-recently-used cache with a time to live, whose entries belong to one data version.
 * `get` answers only an entry of the current version that has not expired. Bounded by its number of entries and,
 * optionally, by the sum of their weights (`maxWeight`, e.g. bytes held): the least recently used go first.
 */
export class VersionedLruCache<V> {
  private readonly entries = new Map<string, Entry<V>>()
  private weights = 0
  /** look-ups answered (hits) and not (misses) since the cache was made (GET /metrics) */
  readonly stats = { hits: 0, misses: 0 }

  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    readonly maxWeight = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.entries.size
  }

  /** the sum of the entries' weights */
  get weight(): number {
    return this.weights
  }

  get(key: string, version: string): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) {
      this.stats.misses++
      return undefined
    }
    if (entry.version !== version || entry.expires <= this.now()) {
      this.delete(key)
      this.stats.misses++
      return undefined
    }
    this.stats.hits++
    // most recently used last
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  set(key: string, version: string, value: V, weight = 0): void {
    this.delete(key)
    this.entries.set(key, { version, value, expires: this.now() + this.ttlMs, weight })
    this.weights += weight
    this.evict()
  }

  /**
   * Gives the entry of `key`, when it still holds `value`, its weight (known once a computation kept as a promise
   * has finished), without changing its recency; evicts what no longer fits (the entry itself when it alone is
   * heavier than maxWeight).
   */
  reweigh(key: string, value: V, weight: number): void {
    const entry = this.entries.get(key)
    if (!entry || entry.value !== value) return
    this.weights += weight - entry.weight
    entry.weight = weight
    this.evict()
  }

  /** Removes one entry (e.g. a computation that failed). */
  delete(key: string): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.weights -= entry.weight
    this.entries.delete(key)
  }

  /** Removes every entry whose value `drop` selects. */
  deleteWhere(drop: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (drop(entry.value)) this.delete(key)
  }

  clear(): void {
    this.entries.clear()
    this.weights = 0
  }

  private evict(): void {
    while (this.entries.size > this.maxEntries || (this.weights > this.maxWeight && this.entries.size > 0)) {
      const oldest = this.entries.keys().next().value
      if (oldest === undefined) break
      this.delete(oldest)
    }
  }
}
