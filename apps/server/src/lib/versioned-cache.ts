import type pg from 'pg'
import { coalescedRead } from './coalesce.js'

async function readDataVersion(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ n: number; last: string | null; top: number | null }>(
    `SELECT count(*)::int AS n, max(finished_at)::text AS last, max(id) AS top FROM data_loads WHERE status = 'done'`,
  )
  const row = rows[0]
  return `${row?.n ?? 0}:${row?.top ?? 0}:${row?.last ?? ''}`
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

interface Entry<V> {
  version: string
  value: V
  expires: number
}

/**
 * A bounded least-recently-used cache with a time to live, whose entries belong to one data version.
 * `get` answers only an entry of the current version that has not expired.
 */
export class VersionedLruCache<V> {
  private readonly entries = new Map<string, Entry<V>>()

  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size
  }

  get(key: string, version: string): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.version !== version || entry.expires <= this.now()) {
      this.entries.delete(key)
      return undefined
    }
    // most recently used last
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  set(key: string, version: string, value: V): void {
    this.entries.delete(key)
    this.entries.set(key, { version, value, expires: this.now() + this.ttlMs })
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value
      if (oldest === undefined) break
      this.entries.delete(oldest)
    }
  }

  /** Removes one entry (e.g. a computation that failed). */
  delete(key: string): void {
    this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}
