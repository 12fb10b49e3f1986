import type pg from 'pg'

interface Slot<T> {
  index: T | null
  building: { version: string; promise: Promise<T> } | null
  /** the version whose build failed: not retried until the data changes (SQL answers) */
  failed: string | null
}

/**
 * One in-process index per pool and data version, built in the background. The returned function gives the
 * index of the version, or null while it is being built (the caller answers from SQL meanwhile); `wait` awaits
 * the build instead (tests, the bench's warm-up). A failed build is not retried until the version changes.
 */
export function versionedBuild<T extends { version: string }>(build: (pool: pg.Pool, version: string) => Promise<T>) {
  const slots = new WeakMap<pg.Pool, Slot<T>>()
  async function current(pool: pg.Pool, version: string, wait = false): Promise<T | null> {
    let slot = slots.get(pool)
    if (!slot) slots.set(pool, (slot = { index: null, building: null, failed: null }))
    if (slot.index?.version === version) return slot.index
    if (slot.failed === version && !wait) return null
    let building = slot.building
    if (!building || building.version !== version) {
      const s = slot
      const promise = build(pool, version)
      building = s.building = { version, promise }
      promise.then(
        (index) => {
          if (s.building?.promise === promise) {
            s.index = index
            s.building = null
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
  const held = (pool: pg.Pool): T | null => slots.get(pool)?.index ?? null
  return Object.assign(current, { held })
}
