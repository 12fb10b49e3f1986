import type pg from 'pg'
import { BUILD_CATCH_UP_MS, primaryOf, readPool } from '../../db/replicas.js'
import { reportEngineMemory } from '../../lib/engine-stats.js'
import type { Engine } from '../engine.js'
import { buildNovaData, novaDataBytes, type NovaData } from './data.js'

export { LIST_WEIGHT, Memo, MEMO_BUDGET, novaDataBytes, type NovaData } from './data.js'

/** How long a NovaData serves before it is rebuilt in the background (a bare `data refresh` is seen within it). */
export const SNAPSHOT_TTL_MS = 5 * 60_000

interface Entry {
  version: string
  value: Promise<NovaData>
  /** the data once built */
  data: NovaData | null
}

interface Source {
  current: Entry | null
  /** the last data built (its clinician affiliations are kept for a rebuild of the same version) */
  lastBuilt: NovaData | null
  refreshing: boolean
}

/**
 * Nova's engine (docs/decisions/0054, 0080): the counts, payer mix, clinicians, health systems, ranks, states and
 * territories of a data version, aggregated once from the database (engines/nova/data.ts). Every Nova answer
 * reads the whole aggregate, so its rows are the NovaData itself: a request of a version whose data is not held
 * waits for the build (concurrent requests share it), which reads those rows from the database; there is no
 * second way of computing a figure. The same version older than SNAPSHOT_TTL_MS is rebuilt in the background
 * while the old data keeps answering. Held per primary; the build reads from a read replica that has replayed
 * what the primary held when it started, else from the primary (db/replicas.ts).
 */
export class NovaEngine implements Engine<NovaData, void, NovaData> {
  readonly name = 'nova'
  private readonly sources = new WeakMap<pg.Pool, Source>()

  private sourceOf(pool: pg.Pool): Source {
    const primary = primaryOf(pool)
    let source = this.sources.get(primary)
    if (!source) this.sources.set(primary, (source = { current: null, lastBuilt: null, refreshing: false }))
    return source
  }

  /** The entry of the version: the one held or being built, else a new build. */
  private entryOf(pool: pg.Pool, version: string): Entry {
    const source = this.sourceOf(pool)
    const cached = source.current
    if (cached && cached.version === version) return cached
    const previous = source.lastBuilt
    const value = readPool(primaryOf(pool), { waitMs: BUILD_CATCH_UP_MS }).then((reader) => buildNovaData(reader, version, previous))
    const entry: Entry = { version, value, data: null }
    source.current = entry
    value.then(
      (data) => {
        entry.data = data
        if (source.current === entry) source.lastBuilt = data
      },
      () => {
        if (source.current === entry) source.current = null
      },
    )
    return entry
  }

  async build(pool: pg.Pool, version: string, wait = false): Promise<NovaData | null> {
    const entry = this.entryOf(pool, version)
    return wait ? entry.value : entry.data
  }

  /** The data of the version: held, else built now (awaited; a failed build is tried again on the next call). */
  async rows(pool: pg.Pool, version: string): Promise<NovaData> {
    const source = this.sourceOf(pool)
    const entry = this.entryOf(pool, version)
    const data = await entry.value
    if (source.current === entry && Date.now() - data.builtAt >= SNAPSHOT_TTL_MS && !source.refreshing)
      this.refresh(pool, source, entry, data)
    return data
  }

  memory(pool: pg.Pool): number {
    const source = this.sources.get(primaryOf(pool))
    if (!source) return 0
    const held = new Set([source.current?.data, source.lastBuilt].filter((d): d is NovaData => d !== null && d !== undefined))
    let bytes = 0
    for (const data of held) bytes += novaDataBytes(data)
    return bytes
  }

  evict(pool: pg.Pool): void {
    const source = this.sources.get(primaryOf(pool))
    if (!source) return
    source.current = null
    source.lastBuilt = null
  }

  private refresh(pool: pg.Pool, source: Source, entry: Entry, data: NovaData): void {
    source.refreshing = true
    readPool(primaryOf(pool), { waitMs: BUILD_CATCH_UP_MS })
      .then((reader) => buildNovaData(reader, entry.version, data))
      .then(
        (fresh) => {
          source.refreshing = false
          if (source.current !== entry) return
          source.current = { version: entry.version, value: Promise.resolve(fresh), data: fresh }
          source.lastBuilt = fresh
        },
        () => {
          source.refreshing = false
          data.builtAt = Date.now() // try again one TTL later, not on every call
        },
      )
  }
}

/** The one Nova engine of the process (its data is held per primary pool). */
export const novaEngine = new NovaEngine()
reportEngineMemory('nova_data', (pool) => novaEngine.memory(pool))
