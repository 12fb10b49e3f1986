import { afterEach, describe, expect, it } from 'vitest'
import { statementsDuring, useTestDatabase } from '../../../../../test/helpers.ts'
import { oneBuildAtATime } from '../../lib/build-queue.ts'
import { engineBudgetStats, engineMemoryBudget, holdEngine, releaseEngine, setEngineMemoryBudget } from '../../lib/engine-budget.ts'
import { DATA_VERSION_SQL, dataVersion, readDataVersion } from '../../lib/versioned-cache.ts'
import { facilityCounts, facilityCountsSql, hcpCountsAll, novaYears } from '../../services/nova/queries.ts'
import { NovaService } from '../../services/nova/service.ts'
import { buildNovaData, type NovaQuery } from './data.ts'
import { currentNovaData, novaEngine } from './index.ts'

/*
 * The Nova engine on the shared engine layer (engines/versioned-build.ts, docs/decisions/0086): keyed by the shared
 * data version, its data is the rows the database holds, held under the shared memory budget, and no call waits for
 * its build: meanwhile the call's rows are read from the database.
 */
describe('Nova engine', () => {
  const ctx = useTestDatabase({ dataset: true })
  const summaryInput = {
    geo_filter_input: { filter_value: { region_level: 'COUNTRY' as const, search_within_region: 'US' } },
    map_selection: { filter_value: 'snake_envenomination_count' as const },
    nova_use_case: 'serb_crofab',
  }
  const budget = engineMemoryBudget()
  afterEach(() => setEngineMemoryBudget(Number.isFinite(budget) ? budget : null))

  it("reads a page's details from the list's data: its years, states, territories and facilities are not read again", async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    const list = await buildNovaData(pool, version, { facilities: {} })
    const ids = list.rows.slice(0, 5).map((r) => r.id)
    const details = { facilityIds: ids, facilities: { clinicians: true, payers: true, affiliations: true } }
    const build = (query: NovaQuery) => {
      let data: Awaited<ReturnType<typeof buildNovaData>> | undefined
      return statementsDuring(pool, async () => void (data = await buildNovaData(pool, version, query))).then((statements) => ({
        data: data!,
        statements,
      }))
    }
    const taken = await build({ ...details, from: list })
    const read = await build(details)
    // the same details as read whole
    const detailsOf = (d: typeof read.data) => ({
      rows: d.rows.map((r) => r.id).sort((x, y) => x - y),
      years: d.years,
      hcps: [...d.hcps].sort(([x], [y]) => x - y),
      payers: [...d.payers].sort(([x], [y]) => x - y).map(([id, byType]) => [id, [...byType].sort()]),
      providers: [...d.providers].sort(),
      systems: [...d.systems].sort(([x], [y]) => x - y),
      specialties: [...d.affiliations.byFacility].sort(([x], [y]) => x - y).map(([id, bySpecialty]) => [id, [...bySpecialty].sort()]),
      ranks: [...d.ranks],
    })
    expect(detailsOf(taken.data)).toEqual(detailsOf(read.data))
    // neither the years, the states nor the facilities' counts were read again (the territories are read by Kysely)
    const again = (t: string) =>
      t.includes('FROM mv_facility_snakebite), (SELECT max(year)') || t.includes('FROM states ORDER BY abbr') || t === facilityCountsSql()
    expect(taken.statements.filter(again)).toEqual([])
    expect(read.statements.filter(again)).toHaveLength(3)
  })

  it('is keyed by the shared data version (DATA_VERSION_SQL): a load that only started is not a new version', async () => {
    const pool = ctx.db.pool
    const nova = new NovaService(pool)
    await nova.metadata()
    const version = (await pool.query<{ v: string }>(`SELECT ${DATA_VERSION_SQL} AS v`)).rows[0]!.v
    const data = await currentNovaData(pool, version, true)
    expect(data?.version).toBe(version)
    expect(data?.version).toBe(await readDataVersion(pool))
    const { rows } = await pool.query<{ id: number }>(
      "INSERT INTO data_loads (kind, scale, status) VALUES ('import', 'nova-engine-test', 'running') RETURNING id",
    )
    try {
      // Nova's own version (0038's) changed when a load started; the shared one moves only when a load finishes
      expect(await readDataVersion(pool)).toBe(version)
      const served = novaEngine.served.index
      await nova.summary(summaryInput)
      expect(novaEngine.served.index).toBe(served + 1)
      expect(novaEngine.held(pool)).toBe(data)
    } finally {
      await pool.query('DELETE FROM data_loads WHERE id = $1', [rows[0]!.id])
    }
  })

  it('builds the data of a version from the database rows, holds it, and builds it again after an eviction', async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    const data = await novaEngine.build(pool, version, true)
    expect(data).not.toBeNull()
    expect(data!.partial).toBe(false)
    expect(await novaEngine.build(pool, version)).toBe(data)
    expect(await novaEngine.rows(pool, version, { facilities: false })).toBe(data)
    expect(novaEngine.memory(pool)).toBe(data!.bytes)
    expect(novaEngine.memory(pool)).toBeGreaterThan(0)

    // the held rows are the database's: facilities with their counts, and the clinicians' counts
    const year = (await novaYears(pool)).latest_year
    expect(year).not.toBeNull()
    const facilities = await facilityCounts(pool, year!, { level: 'COUNTRY' })
    expect(data!.rows).toEqual(facilities)
    expect(facilities.length).toBeGreaterThan(0)
    const hcps = await hcpCountsAll(pool, year!)
    expect([...data!.hcps.values()].flat()).toEqual(hcps)

    novaEngine.evict(pool)
    expect(novaEngine.memory(pool)).toBe(0)
    const again = await novaEngine.build(pool, version, true)
    expect(again).not.toBe(data)
    expect(again!.rows).toEqual(data!.rows)
    expect(again!.ranks).toEqual(data!.ranks)
    expect(again!.payers).toEqual(data!.payers)
    expect(again!.affiliations).toEqual(data!.affiliations)
  })

  it('answers a call while the data builds without waiting for the build, from rows read from the database', async () => {
    const pool = ctx.db.pool
    const nova = new NovaService(pool)
    const version = await dataVersion(pool)
    await novaEngine.build(pool, version, true)
    const held = await nova.summary(summaryInput)
    novaEngine.evict(pool)
    // the build line is taken by a build that does not end until released: Nova's build waits its turn behind it
    let release = () => {}
    const blocker = oneBuildAtATime(() => new Promise<void>((resolve) => (release = resolve)))
    try {
      const database = novaEngine.served.database
      const answer = await Promise.race([
        nova.summary(summaryInput),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the call waited for the build')), 20_000)),
      ])
      expect(answer).toEqual(held)
      expect(novaEngine.served.database).toBe(database + 1)
      expect(novaEngine.held(pool)).toBeNull()
      // a call's rows are not held: only the whole data is
      expect(novaEngine.memory(pool)).toBe(0)
    } finally {
      release()
      await blocker
    }
    const built = await novaEngine.build(pool, version, true)
    expect(built?.partial).toBe(false)
    expect(novaEngine.held(pool)).toBe(built)
  })

  it('is held under the shared memory budget: reported, weighed as its memo fills, dropped least recently used first', async () => {
    const pool = ctx.db.pool
    const nova = new NovaService(pool)
    const version = await dataVersion(pool)
    setEngineMemoryBudget(null)
    novaEngine.evict(pool)
    const data = (await novaEngine.build(pool, version, true))!
    const heldBefore = engineBudgetStats().heldBytes
    expect(heldBefore).toBeGreaterThanOrEqual(data.bytes)
    // a written answer kept in the data's memo counts under the budget as it is kept
    const tiles = (await nova.tilesJson({ ...summaryInput, point_selection: 'ALL' })).toString()
    expect(data.memo.weight).toBeGreaterThan(0)
    expect(engineBudgetStats().heldBytes).toBe(heldBefore + data.memo.weight * 2)
    expect(novaEngine.memory(pool)).toBe(data.bytes)

    // another index used more recently: a budget that holds only one drops Nova's data, the least recently used
    const other = {}
    holdEngine(other, 'nova-engine-test', 1, () => undefined)
    try {
      const evictions = engineBudgetStats().evictions.get('nova_data') ?? 0
      setEngineMemoryBudget(data.bytes)
      expect(novaEngine.held(pool)).toBeNull()
      expect(novaEngine.memory(pool)).toBe(0)
      expect(engineBudgetStats().evictions.get('nova_data')).toBe(evictions + 1)
      // and the next call answers the same from the database meanwhile
      const database = novaEngine.served.database
      expect((await nova.tilesJson({ ...summaryInput, point_selection: 'ALL' })).toString()).toBe(tiles)
      expect(novaEngine.served.database).toBeGreaterThan(database)
    } finally {
      releaseEngine(other)
    }
  })
})
