import type pg from 'pg'
import { BUILD_CATCH_UP_MS, primaryOf, readPool } from '../db/replicas.js'
import { holdEngine, releaseEngine, touchEngine } from '../lib/engine-budget.js'
import { reportEngineMemory } from '../lib/engine-stats.js'
import { compareDataVersions } from '../lib/versioned-cache.js'
import type { Engine } from './engine.js'

interface Slot<T> {
  index: T | null
  building: { version: string; promise: Promise<T> } | null
  /** the version whose build failed: not retried until the data changes (SQL answers) */
  failed: string | null
}

/**
 * One in-process index per pool and data version, built in the background. The returned function gives the
 * index of the version, or null while it is being built (the engine's rows come from the database meanwhile); `wait` awaits
 * the build instead (tests, the bench's warm-up). A failed build is not retried until the version changes.
 * Held per primary (a replica's pool counts as its primary's); the build reads from a read replica that has replayed
 * everything the primary held when it started, else from the primary (db/replicas.ts, docs/decisions/0078).
 */
export function versionedBuild<T extends { version: string; bytes?: number }>(
  build: (pool: pg.Pool, version: string) => Promise<T>,
  /** the name it holds its index under in the shared memory budget (lib/engine-budget.ts); none: not held there */
  engine?: string,
) {
  const slots = new WeakMap<pg.Pool, Slot<T>>()
  async function current(given: pg.Pool, version: string, wait = false): Promise<T | null> {
    const pool = primaryOf(given)
    let slot = slots.get(pool)
    if (!slot) slots.set(pool, (slot = { index: null, building: null, failed: null }))
    if (slot.index?.version === version) {
      touchEngine(slot.index)
      return slot.index
    }
    if (slot.failed === version && !wait) return null
    // An older version than the one held or being built: the database has moved past it, so a build would read the
    // newer data; its request reads its own rows (or, awaiting, is given the newer index). Never a build that would
    // replace the newer one.
    const newest = slot.building?.version ?? slot.index?.version
    if (newest !== undefined && compareDataVersions(version, newest) < 0) return wait ? (slot.building?.promise ?? slot.index) : null
    let building = slot.building
    if (!building || building.version !== version) {
      const s = slot
      // the older version's index is let go as the new one starts (issue 34 §5: not both held at once); its requests
      // read their rows from the database until the new one is built, as at a start
      if (s.index) {
        releaseEngine(s.index)
        s.index = null
      }
      const promise = readPool(pool, { waitMs: BUILD_CATCH_UP_MS }).then((reader) => build(reader, version))
      building = s.building = { version, promise }
      promise.then(
        (index) => {
          if (s.building?.promise === promise) {
            if (s.index) releaseEngine(s.index)
            s.index = index
            s.building = null
            // dropped to fit the budget: built again on its next use, answered from SQL meanwhile
            if (engine !== undefined) {
              holdEngine(index, engine, index.bytes ?? 0, () => {
                if (s.index === index) s.index = null
              })
            }
          }
        },
        () => {
          if (s.building?.promise === promise) {
            s.building = null
            s.failed = version
          }
        },
      )
    }
    return wait ? building.promise : null
  }
  /** the index this pool holds now, whatever its version, without starting a build */
  const held = (pool: pg.Pool): T | null => slots.get(primaryOf(pool))?.index ?? null
  /** drops the index this pool holds (built again on its next use) */
  const evict = (pool: pg.Pool): void => {
    const slot = slots.get(primaryOf(pool))
    if (!slot?.index) return
    releaseEngine(slot.index)
    slot.index = null
  }
  return Object.assign(current, { held, evict })
}

/** What versionedBuild returns: the index of a version (null while it builds), `held` and `evict`. */
export type VersionedBuild<T extends { version: string; bytes?: number }> = ReturnType<typeof versionedBuild<T>>

/** An engine over one versioned index, with how many requests it served from the index and from the database. */
export type VersionedEngine<T, Q> = Engine<T, Q, T> & {
  held(pool: pg.Pool): T | null
  /** requests given the index, and given their rows from the database (per process) */
  served: { index: number; database: number }
}

/**
 * The engine of a versioned index (docs/decisions/0080): a request's rows are the index of the data version when it
 * is held, else (while it builds) `fromDatabase`: an index of the request's rows only, read from the database by the
 * same builder, so the same function counts either. Its memory is reported to GET /metrics under `name`.
 */
export function versionedEngine<T extends { version: string; bytes?: number }, Q>(
  name: string,
  current: VersionedBuild<T>,
  fromDatabase: (pool: pg.Pool, version: string, query: Q) => Promise<T>,
): VersionedEngine<T, Q> {
  const memory = (pool: pg.Pool) => current.held(pool)?.bytes ?? 0
  reportEngineMemory(name, memory)
  const engine: VersionedEngine<T, Q> = {
    name,
    build: (pool, version, wait) => current(pool, version, wait),
    async rows(pool, version, query) {
      const index = await current(pool, version)
      if (index) {
        engine.served.index++
        return index
      }
      engine.served.database++
      return fromDatabase(pool, version, query)
    },
    memory,
    evict: (pool) => current.evict(pool),
    held: (pool) => current.held(pool),
    served: { index: 0, database: 0 },
  }
  return engine
}
