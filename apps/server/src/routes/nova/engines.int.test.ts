import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { currentNovaData, novaEngine } from '../../engines/nova/index.ts'
import { dataVersion } from '../../lib/versioned-cache.ts'

/**
 * One implementation per figure (docs/decisions/0080, 0086): while Nova's data builds, the engine reads a call's rows
 * straight from the database and the same functions answer. Each call below is asked with the data held and again
 * right after it is evicted (nothing held: the rows come from the database), and the two bodies are the same text.
 */
describe('Nova answers while its data builds equal the answers of the data', () => {
  const ctx = useTestApp({}, { dataset: true })
  let token: string
  let state: string
  let territory: { id: number; name: string }
  let systemCode: string
  let activeNpi: string
  let inactiveNpi: string

  beforeAll(async () => {
    const tenant = await createTenant(ctx.db, { roles: ['citrus'], products: [{ product_group: 'NOVA' }] })
    token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const pool = ctx.db.pool
    ;({ state } = (
      await pool.query<{ state: string }>(
        `SELECT f.state FROM snakebite_cases s JOIN facilities f ON f.id = s.facility_id GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      )
    ).rows[0]!)
    territory = (
      await pool.query<{ id: number; name: string }>(
        `SELECT t.id, t.name FROM sales_territories t JOIN sales_territory_counties tc ON tc.territory_id = t.id
         JOIN facilities f ON f.county_fips = tc.county_fips JOIN snakebite_cases s ON s.facility_id = f.id
         WHERE t.nova_use_case = 'serb_crofab' GROUP BY t.id, t.name ORDER BY count(*) DESC, t.id LIMIT 1`,
      )
    ).rows[0]!
    ;({ systemCode } = (
      await pool.query<{ systemCode: string }>(
        `SELECT h.healthsystem_id AS "systemCode" FROM snakebite_cases s JOIN facilities f ON f.id = s.facility_id
         JOIN health_systems h ON h.id = f.health_system_id GROUP BY 1 ORDER BY count(DISTINCT f.id) DESC, 1 LIMIT 1`,
      )
    ).rows[0]!)
    ;({ activeNpi } = (
      await pool.query<{ activeNpi: string }>(
        `SELECT f.npi AS "activeNpi" FROM snakebite_cases s JOIN facilities f ON f.id = s.facility_id
         WHERE f.npi IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      )
    ).rows[0]!)
    // a facility without antivenom activity but with affiliated clinicians (its specialties are still listed)
    ;({ inactiveNpi } = (
      await pool.query<{ inactiveNpi: string }>(
        `SELECT f.npi AS "inactiveNpi" FROM facilities f JOIN providers p ON p.facility_id = f.id
         WHERE f.npi IS NOT NULL AND NOT EXISTS (SELECT 1 FROM snakebite_cases s WHERE s.facility_id = f.id)
           AND NOT EXISTS (SELECT 1 FROM antivenom_purchases a WHERE a.facility_id = f.id)
         GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      )
    ).rows[0]!)
  })

  /** The body of a call with the data held, and of the same call with none held. */
  const bothWays = async (call: () => request.Test) => {
    const pool = ctx.app.db.pool
    const version = await dataVersion(pool)
    // held, and no build in flight (an eviction below then leaves nothing to answer from but the database)
    await novaEngine.build(pool, version, true)
    expect(novaEngine.held(pool)?.version).toBe(version)
    const indexed = await call()
    expect(indexed.status, indexed.text.slice(0, 300)).toBe(200)
    novaEngine.evict(pool)
    expect(novaEngine.held(pool)).toBeNull()
    expect(novaEngine.memory(pool)).toBe(0)
    const before = novaEngine.served.database
    const building = await call()
    expect(building.status, building.text.slice(0, 300)).toBe(200)
    expect(novaEngine.served.database).toBeGreaterThan(before)
    return { indexed: indexed.text, building: building.text }
  }
  const post = (path: string, body: Record<string, unknown>) => () =>
    request(ctx.app.server)
      .post(`/api/nova/v1${path}`)
      .set('Accept-Encoding', 'identity')
      .set('Authorization', `Bearer ${token}`)
      .send(body)
  const get = (path: string) => () =>
    request(ctx.app.server).get(`/api/nova/v1${path}`).set('Accept-Encoding', 'identity').set('Authorization', `Bearer ${token}`)
  const geo = (region_level: string, search_within_region: string, granularity?: string) => ({
    filter_value: { region_level, search_within_region, ...(granularity ? { granularity } : {}) },
  })

  it('the map: the country by state with its points, a state by territory, a territory', async () => {
    for (const body of [
      {
        geo_filter_input: geo('COUNTRY', 'US', 'STATE'),
        map_selection: { filter_value: 'serb_crofab_opportunity_score' },
        point_selection: 'ALL',
      },
      { geo_filter_input: geo('COUNTRY', 'US', 'SALES_TERRITORY'), map_selection: { filter_value: 'snake_envenomination_count' } },
      {
        geo_filter_input: geo('STATE', state, 'SALES_TERRITORY'),
        map_selection: { filter_value: 'drug_use_count_crofab_anavip' },
        point_selection: 'ALL',
      },
      {
        geo_filter_input: geo('SALES_TERRITORY', territory.name, 'SALES_TERRITORY'),
        map_selection: { filter_value: 'serb_crofab_drug_patient_share' },
        point_selection: 'ALL',
      },
    ]) {
      const { indexed, building } = await bothWays(post('/atlas/tiles', { nova_use_case: 'serb_crofab', ...body }))
      const map = JSON.parse(indexed) as { geojson: { features: unknown[] } }
      expect(map.geojson.features.length, JSON.stringify(body)).toBeGreaterThan(0)
      expect(building, JSON.stringify(body)).toBe(indexed)
    }
  })

  it('summaries of the country (its treating clinicians, top prescribers, payer mix), a state and a territory', async () => {
    for (const geoInput of [geo('COUNTRY', 'US'), geo('STATE', state), geo('SALES_TERRITORY', String(territory.id))]) {
      const body = {
        geo_filter_input: geoInput,
        map_selection: { filter_value: 'snake_envenomination_count' },
        nova_use_case: 'serb_crofab',
      }
      const { indexed, building } = await bothWays(post('/atlas/summary', body))
      const summary = JSON.parse(indexed) as { counts: { provider_count: number } }
      expect(summary.counts.provider_count, JSON.stringify(geoInput)).toBeGreaterThan(0)
      expect(building, JSON.stringify(geoInput)).toBe(indexed)
    }
  })

  it('account lists: both kinds, scopes, a health system, sorts, quick filters and a later page', async () => {
    const list = (body: Record<string, unknown>) => post('/insights/accounts', { nova_use_case: 'serb_crofab', ...body })
    for (const body of [
      { geo_filter_input: geo('COUNTRY', 'US') },
      { geo_filter_input: geo('COUNTRY', 'US'), account_query_type: 'FACILITY', page: 1, page_size: 10 },
      {
        geo_filter_input: geo('COUNTRY', 'US'),
        page_size: 25,
        sort_input: { code: 'opportunity_score', sort_direction: 'ASC' },
        filter_inputs: [{ code: 'hpg_affiliated', filter_value: true }],
      },
      {
        geo_filter_input: geo('STATE', state),
        account_query_type: 'FACILITY',
        sort_input: { code: 'crofab_patient_share', sort_direction: 'DESC' },
      },
      { geo_filter_input: geo('SALES_TERRITORY', territory.name), page_size: 50 },
      {
        geo_filter_input: geo('COUNTRY', 'US'),
        account_query_type: 'FACILITY',
        filter_inputs: [{ code: 'health_system_id', filter_value: systemCode }],
      },
    ]) {
      const { indexed, building } = await bothWays(list(body))
      const answer = JSON.parse(indexed) as { page_results: { total_results: number; results: unknown[] } }
      expect(answer.page_results.results.length, JSON.stringify(body)).toBeGreaterThan(0)
      expect(building, JSON.stringify(body)).toBe(indexed)
    }
  })

  it('a facility with activity and one without, and the clinicians of a facility', async () => {
    for (const npi of [activeNpi, inactiveNpi]) {
      const { indexed, building } = await bothWays(post(`/insights/facility/${npi}`, {}))
      expect(building, npi).toBe(indexed)
    }
    const inactive = JSON.parse((await post(`/insights/facility/${inactiveNpi}`, {})()).text) as {
      facility_insight: { specialty_breakdown: unknown[] }
    }
    expect(inactive.facility_insight.specialty_breakdown.length).toBeGreaterThan(0)
    const hcps = {
      nova_use_case: 'serb_crofab',
      geo_filter_input: geo('STATE', state),
      filter_inputs: [{ code: 'facility_npi', filter_value: activeNpi }],
    }
    const { indexed, building } = await bothWays(post('/insights/hcps', hcps))
    expect((JSON.parse(indexed) as { page_results: { total_results: number } }).page_results.total_results).toBeGreaterThan(0)
    expect(building).toBe(indexed)
  })

  it('metadata and territory names', async () => {
    for (const path of ['/metadata/', '/territories/names?nova_use_case=serb_crofab']) {
      const { indexed, building } = await bothWays(get(path))
      expect(building, path).toBe(indexed)
    }
  })

  it('errors alike: an unknown state', async () => {
    const unknown = post('/insights/accounts', { nova_use_case: 'serb_crofab', geo_filter_input: geo('STATE', 'Atlantis') })
    const held = await unknown()
    expect(held.status).toBe(400)
    novaEngine.evict(ctx.app.db.pool)
    expect(currentNovaData.held(ctx.app.db.pool)).toBeNull()
    const building = await unknown()
    expect(building.status).toBe(400)
    expect(building.text).toBe(held.text)
  })
})
