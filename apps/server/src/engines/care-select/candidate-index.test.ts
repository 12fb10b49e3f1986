import type pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { compareDataVersions } from '../../lib/versioned-cache.ts'
import {
  careSelectCandidates,
  facilityPoints,
  indexFromRows,
  isHeldIndex,
  readSpecialtyRows,
  setCandidateIndexMaxProviders,
  specialtyIndex,
  type ProviderRow,
  type SpecialtyIndex,
} from './candidate-index.ts'
import type { ScoredSearch } from '../../services/care-select/score.ts'
import { ScoredSearchCache, scoredSearchCache } from '../../services/care-select/scored-cache.ts'

/** A pool that answers the index's queries from fixed rows (specialty A: 2 providers, B: 2, C: 1) and counts its builds. */
function fakePool(gates: Record<string, Promise<void>> = {}) {
  const sizes: Record<string, number> = { A: 2, B: 2, C: 1 }
  const builds: Record<string, number> = {}
  let facilityReads = 0
  const query = async (config: string | { text: string }, values?: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text
    const taxonomy = (values ?? (config as { values?: unknown[] }).values ?? [])[0] as string
    if (/from "?facilities"?$/i.test(text.trim())) {
      facilityReads++
      return { rows: [{ id: 1, npi: null, latitude: 40, longitude: -74, hco_compile_level_1: 'Hospital' }] }
    }
    if (
      text.includes('mv_provider_code_volume') ||
      text.includes('mv_provider_prices') ||
      text.includes('tic_rates') ||
      !text.includes('FROM providers')
    )
      return { rows: [] }
    builds[taxonomy] = (builds[taxonomy] ?? 0) + 1
    await gates[taxonomy]
    const rows: ProviderRow[] = Array.from({ length: sizes[taxonomy] ?? 0 }, (_, k) => ({
      npi: `${taxonomy}${k}`.padEnd(10, '0'),
      latitude: 40 + k / 100,
      longitude: -74,
      provider_kind: 'MD',
      facility_id: null,
      accepting_new_patients: true,
      networks: null,
    }))
    return { rows }
  }
  const pool = { query, connect: async () => ({ query, release: () => {} }) }
  return { pool: pool as unknown as pg.Pool, builds, facilityReads: () => facilityReads }
}

/** A scored search pointing into `index` (what the result cache checks), with no columns of its own. */
const scoredOn = (index: SpecialtyIndex) =>
  ({
    candidates: { index, members: new Int32Array(0), exact: new Float64Array(0) },
    givenCols: [],
    topicalCols: [],
    codeRanks: [],
    prices: [],
    rankedFacilities: [],
  }) as unknown as ScoredSearch

const V1 = '9:9:2026-11-26 04:00:00+00'
const V2 = '10:10:2026-11-26 04:10:00+00'

describe('data versions', () => {
  it('orders versions by their count of finished loads, then highest id, then latest finish', () => {
    expect(compareDataVersions(V2, V1)).toBeGreaterThan(0)
    expect(compareDataVersions(V1, V2)).toBeLessThan(0)
    expect(compareDataVersions(V1, V1)).toBe(0)
    expect(compareDataVersions('3:7:b', '3:5:c')).toBeGreaterThan(0)
    expect(compareDataVersions('0:0:', '1:1:2026-11-26')).toBeLessThan(0)
  })
})

describe('candidate index per data version', () => {
  let previous: number | null = null
  afterEach(() => {
    if (previous !== null) setCandidateIndexMaxProviders(previous)
    previous = null
  })

  it('evicts the least recently used specialty beyond the bound; the result cache drops scorings on an evicted index', async () => {
    previous = setCandidateIndexMaxProviders(3)
    const { pool, builds } = fakePool()
    const cache = scoredSearchCache(pool)
    const scoreA = async () => scoredOn(await specialtyIndex(pool, V1, 'A'))
    const first = await cache.scored('a', V1, false, scoreA)
    const indexA = first.scored.candidates.index
    expect(isHeldIndex(pool, indexA)).toBe(true)
    expect((await cache.scored('a', V1, false, scoreA)).cached).toBe(true)
    // B (2 providers) with A (2) exceeds the bound of 3: A, the least recently used, is evicted, and the cache
    // drops the entry scored on it at once (it would keep the evicted index alive)
    await specialtyIndex(pool, V1, 'B')
    expect(isHeldIndex(pool, indexA)).toBe(false)
    expect(cache.size).toBe(0)
    // the cached scoring points into the evicted index: a miss, scored on a new index of A (and the old one let go)
    const again = await cache.scored('a', V1, false, scoreA)
    expect(again.cached).toBe(false)
    expect(again.scored.candidates.index).not.toBe(indexA)
    expect(isHeldIndex(pool, again.scored.candidates.index)).toBe(true)
    expect(builds).toEqual({ A: 2, B: 1 })
    expect(cache.size).toBe(1)
    expect((await cache.scored('a', V1, false, scoreA)).cached).toBe(true)
    expect([cache.hits, cache.scorings]).toEqual([2, 2])
  })

  it('builds one specialty at a time and keeps the bound: the index just built stays, the least recently used goes', async () => {
    previous = setCandidateIndexMaxProviders(3)
    let openA = () => {}
    const { pool, builds } = fakePool({ A: new Promise<void>((resolve) => (openA = resolve)) })
    // A (2 providers) is asked for first and holds the line (lib/build-queue.ts): B's build waits its turn
    const pendingA = specialtyIndex(pool, V1, 'A')
    const pendingB = specialtyIndex(pool, V1, 'B')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(builds).toEqual({ A: 1 })
    openA()
    const [indexA, indexB] = await Promise.all([pendingA, pendingB])
    expect(builds).toEqual({ A: 1, B: 1 })
    // both would hold 4 > 3: A goes, B (just built for its search) stays
    expect(isHeldIndex(pool, indexA)).toBe(false)
    expect(isHeldIndex(pool, indexB)).toBe(true)
    // C (1) fits beside B
    const indexC = await specialtyIndex(pool, V1, 'C')
    expect([isHeldIndex(pool, indexB), isHeldIndex(pool, indexC)]).toEqual([true, true])
  })

  it('reads the providers, volumes and prices in one snapshot: a read-only REPEATABLE READ transaction on one connection', async () => {
    const { pool } = fakePool()
    const onPool: string[] = []
    const onClient: string[] = []
    const kind = (config: string | { text: string }) => {
      const text = (typeof config === 'string' ? config : config.text).trim()
      return /^(BEGIN|COMMIT|ROLLBACK)/.exec(text)?.[0] ?? /mv_provider_\w+/.exec(text)?.[0] ?? /FROM (\w+)/.exec(text)?.[1] ?? text
    }
    const query = pool.query.bind(pool) as (config: string | { text: string }, values?: unknown[]) => Promise<unknown>
    const spied = {
      query: (config: string | { text: string }, values?: unknown[]) => (onPool.push(kind(config)), query(config, values)),
      connect: async () => ({
        query: (config: string | { text: string }, values?: unknown[]) => {
          if (typeof config === 'string' && config.startsWith('BEGIN')) onClient.push(config)
          else onClient.push(kind(config))
          return query(config, values)
        },
        release: () => {},
      }),
    } as unknown as pg.Pool
    await specialtyIndex(spied, V1, 'A')
    expect(onPool).toEqual([])
    expect(onClient).toEqual([
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      'providers',
      'mv_provider_code_volume',
      'mv_provider_prices',
      'tic_rates',
      'COMMIT',
    ])
  })

  it('treats a hit on an index no longer held as a miss even when the eviction was not seen', async () => {
    const { pool, builds } = fakePool()
    // a cache of its own (no eviction listener): only the check on a hit applies
    const cache = new ScoredSearchCache(4, 60_000, undefined, undefined, (scored) => isHeldIndex(pool, scored.candidates.index))
    const scoreA = async (version: string) => scoredOn(await specialtyIndex(pool, version, 'A'))
    const first = await cache.scored('a', V1, false, () => scoreA(V1))
    expect((await cache.scored('a', V1, false, () => scoreA(V1))).cached).toBe(true)
    // a newer version replaces the held indexes (another search, of another key, saw it first)
    await specialtyIndex(pool, V2, 'A')
    expect(isHeldIndex(pool, first.scored.candidates.index)).toBe(false)
    const again = await cache.scored('a', V1, false, () => scoreA(V1))
    expect(again.cached).toBe(false)
    expect(isHeldIndex(pool, again.scored.candidates.index)).toBe(true)
    expect(builds).toEqual({ A: 2 })
  })

  it('moves forward only: a search of an older version neither replaces nor rebuilds the newer indexes', async () => {
    const { pool, builds, facilityReads } = fakePool()
    const oldA = await specialtyIndex(pool, V1, 'A')
    const newA = await specialtyIndex(pool, V2, 'A')
    expect(newA).not.toBe(oldA)
    expect(isHeldIndex(pool, newA)).toBe(true)
    const facilities = await facilityPoints(pool, V2)
    // a request that read the version before the last load: answered from what is held, nothing replaced
    expect(await specialtyIndex(pool, V1, 'A')).toBe(newA)
    expect(await facilityPoints(pool, V1)).toBe(facilities)
    expect(await specialtyIndex(pool, V2, 'A')).toBe(newA)
    expect(builds).toEqual({ A: 2 })
    // a specialty not held: built for that request alone, not kept
    const oldC = await specialtyIndex(pool, V1, 'C')
    expect(isHeldIndex(pool, oldC)).toBe(false)
    expect(await specialtyIndex(pool, V2, 'A')).toBe(newA)
    const newC = await specialtyIndex(pool, V2, 'C')
    expect(newC).not.toBe(oldC)
    expect(isHeldIndex(pool, newC)).toBe(true)
    expect(builds).toEqual({ A: 2, C: 2 })
    expect(facilityReads()).toBe(1)
  })

  it('is an engine: rows from the database before a specialty is held, the same index after; memory; evict', async () => {
    const { pool, builds } = fakePool()
    // nothing held: build does not wait (null), with wait the version's facilities are read
    expect(await careSelectCandidates.build(pool, V1)).toBeNull()
    const built = await careSelectCandidates.build(pool, V1, true)
    expect(built?.version).toBe(V1)
    expect(built?.specialties.size).toBe(0)
    expect(built?.facilities.size).toBe(1)
    expect(careSelectCandidates.memory(pool)).toBe(0)
    // the first search of A reads A's rows from the database; the index is indexFromRows of those rows
    const first = await careSelectCandidates.rows(pool, V1, { taxonomy: 'A' })
    const rows = await readSpecialtyRows(pool, 'A')
    expect(first.index).toEqual(indexFromRows('A', rows.providers, rows.volumes, rows.prices, rows.payerRates))
    expect(first.facilities).toBe(built?.facilities)
    const held = careSelectCandidates.memory(pool)
    expect(held).toBeGreaterThan(0)
    expect((await careSelectCandidates.build(pool, V1))?.specialties.get('A')).toBe(first.index)
    // held: the same index, no read
    expect((await careSelectCandidates.rows(pool, V1, { taxonomy: 'A' })).index).toBe(first.index)
    expect(builds).toEqual({ A: 2 })
    // evicted: nothing held, the next search reads the rows again and gets an equal index
    careSelectCandidates.evict(pool)
    expect(careSelectCandidates.memory(pool)).toBe(0)
    expect(isHeldIndex(pool, first.index)).toBe(false)
    const again = await careSelectCandidates.rows(pool, V1, { taxonomy: 'A' })
    expect(again.index).not.toBe(first.index)
    expect(again.index).toEqual(first.index)
    expect(builds).toEqual({ A: 3 })
    expect(careSelectCandidates.memory(pool)).toBe(held)
  })
})
