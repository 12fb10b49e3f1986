import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { atlasClaims } from '../../engines/atlas/claim-index.ts'
import { atlasPatients, EVERY_PATIENT } from '../../engines/atlas/patient-index.ts'
import { dataVersion } from '../../lib/versioned-cache.ts'

/**
 * One implementation per figure (docs/decisions/0080): while the Atlas indexes build, the engines read a request's
 * rows from the database and the same functions count them. Each answer below is asked with the indexes held and
 * again right after they are evicted (nothing held: the rows come from the database), recounted each time
 * (`_bypass_cache`), and the two bodies are the same text.
 */
describe('Atlas answers while its indexes build equal the answers of the indexes', () => {
  const ctx = useTestApp({}, { dataset: true })
  let token: string
  let state: string
  let zip: string
  let facility: number

  beforeAll(async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'ATLAS' }] })
    await ctx.db.pool.query(`UPDATE companies SET plan_tier = 'ENTERPRISE' WHERE id = $1`, [company.id])
    token = await loginTokenFor(users[0]!, company.company_name)
    const pool = ctx.db.pool
    ;({ state } = (await pool.query<{ state: string }>(`SELECT state FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)).rows[0]!)
    ;({ zip } = (
      await pool.query<{ zip: string }>(`SELECT zip_code AS zip FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
    ).rows[0]!)
    ;({ facility } = (
      await pool.query<{ facility: number }>(
        `SELECT facility_id AS facility FROM claims WHERE facility_id IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      )
    ).rows[0]!)
  })

  /** The body of a call with the indexes held, and of the same call with none held. */
  const bothWays = async (call: () => request.Test) => {
    const pool = ctx.app.db.pool
    const version = await dataVersion(pool)
    // held, and no build in flight (an eviction below then leaves nothing to answer from but the database)
    await atlasClaims.build(pool, version, true)
    expect(atlasPatients.held(pool)?.version).toBe(version)
    const indexed = await call()
    expect(indexed.status, indexed.text.slice(0, 300)).toBe(200)
    atlasClaims.evict(pool)
    atlasPatients.evict(pool)
    expect(atlasClaims.held(pool)).toBeNull()
    expect(atlasPatients.held(pool)).toBeNull()
    const before = atlasPatients.served.database + atlasClaims.served.database
    const building = await call()
    expect(building.status, building.text.slice(0, 300)).toBe(200)
    expect(atlasPatients.served.database + atlasClaims.served.database).toBeGreaterThan(before)
    return { indexed: indexed.text, building: building.text }
  }
  const generic = (query: Record<string, string | number | boolean>) => () =>
    request(ctx.app.server)
      .get('/api/atlas/generic')
      .query({ ...query, _bypass_cache: true })
      .set('Accept-Encoding', 'identity')
      .set('Authorization', `Bearer ${token}`)
  const drill = (body: Record<string, unknown>) => () =>
    request(ctx.app.server)
      .post('/api/atlas/drilldown')
      .set('Authorization', `Bearer ${token}`)
      .send({ include_payer_mix: true, ...body, _bypass_cache: true })

  it("the home's patients: every patient, diagnosed or not, as the SQL recount counts them", async () => {
    const { indexed, building } = await bothWays(() => request(ctx.app.server).get('/api/atlas/').set('Authorization', `Bearer ${token}`))
    expect(building).toBe(indexed)
    // the independent recount (docs/decisions/0080): the patients table, which holds patients without a diagnosis too
    const { rows } = await ctx.db.pool.query<{ patients: number; diagnosed: number }>(
      `SELECT (SELECT count(*)::int FROM patients) AS patients, (SELECT count(DISTINCT patient_id)::int FROM mv_patient_diagnoses) AS diagnosed`,
    )
    expect(rows[0]!.patients).toBeGreaterThan(rows[0]!.diagnosed)
    expect((JSON.parse(indexed) as { data: { patients: number } }).data.patients).toBe(rows[0]!.patients)
  })

  it("the home's requests while the index builds share one read of every patient, let go once the index is held", async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    atlasPatients.evict(pool)
    try {
      const [a, b] = await Promise.all([atlasPatients.rows(pool, version, EVERY_PATIENT), atlasPatients.rows(pool, version, EVERY_PATIENT)])
      expect(a).toBe(b)
      expect(await atlasPatients.rows(pool, version, EVERY_PATIENT)).toBe(a)
      expect(atlasPatients.held(pool)).toBeNull()
    } finally {
      await atlasPatients.build(pool, version, true)
    }
    // held again: the home answers from the index and the kept rows are let go, so a later eviction reads afresh
    const home = await request(ctx.app.server).get('/api/atlas/').set('Authorization', `Bearer ${token}`)
    expect(home.status).toBe(200)
    atlasPatients.evict(pool)
    const again = await atlasPatients.rows(pool, version, EVERY_PATIENT)
    expect(again.size).toBe((JSON.parse(home.text) as { data: { patients: number } }).data.patients)
    await atlasPatients.build(pool, version, true)
  })

  it('a condition search overview by state and by county', async () => {
    for (const granularity of ['STATE', 'COUNTY'] as const) {
      const { indexed, building } = await bothWays(
        generic({ icd10_cm_union_csv: 'E11,I10', tile_granularity: granularity, search_within_region: 'US' }),
      )
      const body = JSON.parse(indexed) as { summary: { total_patients: number } }
      expect(body.summary.total_patients).toBeGreaterThan(0)
      expect(building).toBe(indexed)
    }
  })

  it('generic searches: demographics, a state, ZIP areas, every condition', async () => {
    const queries: Record<string, string | number | boolean>[] = [
      { icd10_cm_union_csv: 'E11', tile_granularity: 'COUNTY', search_within_region: 'US', gender: 'F', min_age: 18, max_age: 70 },
      { icd10_cm_union_csv: 'I10,E66', tile_granularity: 'COUNTY', search_within_region: state, include_census_data: true },
      {
        icd10_cm_union_csv: 'E11',
        tile_granularity: 'ZIP_CODE_50KM',
        search_within_region: zip,
        search_within_region_type: 'ZIP_CODE_50KM',
      },
      { tile_granularity: 'STATE', search_within_region: 'US', min_age: 40 },
    ]
    for (const query of queries) {
      const { indexed, building } = await bothWays(generic(query))
      expect(building, JSON.stringify(query)).toBe(indexed)
    }
  })

  it('drill-downs: the country, states (paged first and in full), facilities and providers', async () => {
    const codes = { icd10_cm_union_csv: 'E11,I10' }
    for (const body of [
      { ...codes, drilldown_type: 'COUNTRY' },
      { ...codes, drilldown_type: 'STATE', page_size: 10, sort_input: { code: 'patient_count', sort_direction: 'DESC' } },
      { ...codes, drilldown_type: 'STATE', page: 1, page_size: 5, sort_input: { code: 'claim_count', sort_direction: 'ASC' } },
      { drilldown_type: 'STATE', gender: 'M', page_size: 25 },
      {
        ...codes,
        drilldown_type: 'FACILITY',
        geo_filter_input: { filter_value: { search_within_region: state, region_level: 'STATE' } },
        page_size: 10,
      },
      { ...codes, drilldown_type: 'FACILITY', page_size: 10, sort_input: { code: 'name', sort_direction: 'ASC' } },
      {
        ...codes,
        drilldown_type: 'PROVIDER',
        filter_inputs: [{ code: 'facility_id', filter_value: facility }],
        page_size: 10,
        sort_input: { code: 'provider_count', sort_direction: 'DESC' },
      },
      {
        drilldown_type: 'PROVIDER',
        geo_filter_input: { filter_value: { search_within_region: zip, region_level: 'ZIP_CODE_50KM' } },
        page_size: 10,
      },
    ]) {
      const { indexed, building } = await bothWays(drill(body))
      const answer = JSON.parse(indexed) as { page_results: { total_results: number } }
      expect(answer.page_results.total_results, JSON.stringify(body)).toBeGreaterThan(0)
      expect(building, JSON.stringify(body)).toBe(indexed)
    }
  })
})
