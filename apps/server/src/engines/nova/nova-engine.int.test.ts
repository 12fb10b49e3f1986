import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../../test/helpers.ts'
import { dataVersion, facilityCounts, hcpCountsAll, novaYears } from '../../services/nova/queries.ts'
import { NovaService } from '../../services/nova/service.ts'
import { NovaEngine, novaDataBytes, novaEngine } from './index.ts'

/*
 * The Nova engine behind the Engine interface (engines/engine.ts): its data of a version is the rows the
 * database holds (no second way of computing a figure), it is held until evicted, and an evicted version built
 * again answers the same.
 */
describe('Nova engine', () => {
  const ctx = useTestDatabase({ dataset: true })

  it('builds the data of a version from the database rows, holds it, and builds it again after an eviction', async () => {
    const engine = new NovaEngine()
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    expect(engine.memory(pool)).toBe(0)
    // not waited for: null while it builds, then held
    expect(await engine.build(pool, version)).toBeNull()
    const data = await engine.build(pool, version, true)
    expect(data).not.toBeNull()
    expect(await engine.build(pool, version)).toBe(data)
    expect(await engine.rows(pool, version)).toBe(data)
    expect(engine.memory(pool)).toBe(novaDataBytes(data!))
    expect(engine.memory(pool)).toBeGreaterThan(0)

    // the held rows are the database's: facilities with their counts, and the clinicians' counts
    const year = (await novaYears(pool)).latest_year
    expect(year).not.toBeNull()
    const facilities = await facilityCounts(pool, year!, { level: 'COUNTRY' })
    expect(data!.rows).toEqual(facilities)
    expect(facilities.length).toBeGreaterThan(0)
    const hcps = await hcpCountsAll(pool, year!)
    expect([...data!.hcps.values()].flat()).toEqual(hcps)

    engine.evict(pool)
    expect(engine.memory(pool)).toBe(0)
    expect(await engine.build(pool, version)).toBeNull()
    const again = await engine.rows(pool, version)
    expect(again).not.toBe(data)
    expect(again.rows).toEqual(data!.rows)
    expect(again.ranks).toEqual(data!.ranks)
    expect(again.payers).toEqual(data!.payers)
  })

  it('answers the same after the process engine drops its data', async () => {
    const nova = new NovaService(ctx.db.pool)
    const input = {
      geo_filter_input: { filter_value: { region_level: 'COUNTRY' as const, search_within_region: 'US' } },
      map_selection: { filter_value: 'snake_envenomination_count' as const },
      nova_use_case: 'serb_crofab',
    }
    const before = await nova.summary(input)
    novaEngine.evict(ctx.db.pool)
    expect(novaEngine.memory(ctx.db.pool)).toBe(0)
    expect(await nova.summary(input)).toEqual(before)
    expect(novaEngine.memory(ctx.db.pool)).toBeGreaterThan(0)
  })
})
