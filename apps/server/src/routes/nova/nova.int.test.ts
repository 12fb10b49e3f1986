import {
  atlasSummaryResponseSchema,
  atlasTilesResponseSchema,
  facilityInsightResponseSchema,
  NOVA_MAP_TYPES,
  NOVA_SORT_OPTIONS,
  pageResultsResponseSchema,
  type NovaInsight,
  type NovaSortKey,
} from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, statementsDuring, shareTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import type { Database } from '../../db/database.ts'
import { novaEngine } from '../../engines/nova/index.ts'
import { DATA_VERSION_SQL, dataVersion } from '../../lib/versioned-cache.ts'

/*
 * Every number of the Nova calls recounted from the rows (snakebite_cases, antivenom_purchases, claims,
 * providers, pharmacy claims) by SQL written independently of the server's queries: no materialised view,
 * the windows by calendar year, initial encounters by a regular expression, shares, gaps and the opportunity
 * score in numeric arithmetic. Nothing here depends on the synthetic dataset's figures.
 */

const COUNTRY = {
  code: 'region',
  filter_value: { filter_value_kind: 'GEO_WITHIN_REGION', region_level: 'COUNTRY', search_within_region: 'US' },
}
const country = (granularity?: string) => ({
  ...COUNTRY,
  filter_value: { ...COUNTRY.filter_value, ...(granularity ? { granularity } : {}) },
})
const stateScope = (state: string, granularity?: string) => ({
  code: 'region',
  filter_value: {
    filter_value_kind: 'GEO_WITHIN_REGION',
    region_level: 'STATE',
    search_within_region: state,
    ...(granularity ? { granularity } : {}),
  },
})

type Values = Record<string, number | null>

/** Answers written as JSON text by the server (docs/decisions/0054) are checked against their contract here. */
const RESPONSE_SCHEMAS = [
  ['/atlas/tiles', atlasTilesResponseSchema],
  ['/atlas/summary', atlasSummaryResponseSchema],
  ['/insights/accounts', pageResultsResponseSchema],
  ['/insights/hcps', pageResultsResponseSchema],
  ['/insights/facility/', facilityInsightResponseSchema],
] as const

/** The metrics of an insight as code → value. */
function valuesOf(insight: NovaInsight): Values {
  const out: Values = {}
  for (const list of Object.values(insight.metrics)) for (const m of list ?? []) out[m.code] = m.value.v as number | null
  return out
}

async function one<T>(db: Database, sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.pool.query(sql, params)
  return rows[0] as T
}

const YEAR_SQL = `SELECT greatest((SELECT max(extract(year FROM event_date)) FROM snakebite_cases), (SELECT max(extract(year FROM purchase_date)) FROM antivenom_purchases))::int AS y`
/** Facilities with a case or a purchase in the five calendar years ending with the latest year. */
const ACTIVE_SQL = `SELECT id FROM facilities f WHERE
  EXISTS (SELECT 1 FROM snakebite_cases s WHERE s.facility_id = f.id AND extract(year FROM s.event_date) BETWEEN $1 - 4 AND $1)
  OR EXISTS (SELECT 1 FROM antivenom_purchases a WHERE a.facility_id = f.id AND extract(year FROM a.purchase_date) BETWEEN $1 - 4 AND $1)`

/** Every metric of an account (a set of facilities), recounted from the rows. */
const RECOUNT_SQL = `
WITH c AS (
  SELECT count(*) AS cases_5y,
         count(*) FILTER (WHERE extract(year FROM event_date) = $1) AS cases_1y,
         count(*) FILTER (WHERE icd10_code ~ '^[^.]{3}\\.[^.]{3}A$') AS initials_5y,
         count(*) FILTER (WHERE icd10_code ~ '^[^.]{3}\\.[^.]{3}A$' AND extract(year FROM event_date) = $1) AS initials_1y,
         count(*) FILTER (WHERE antivenom = 'crofab') AS cp5, count(*) FILTER (WHERE antivenom = 'crofab' AND extract(year FROM event_date) = $1) AS cp1,
         count(*) FILTER (WHERE antivenom = 'anavip') AS ap5, count(*) FILTER (WHERE antivenom = 'anavip' AND extract(year FROM event_date) = $1) AS ap1,
         coalesce(sum(units_used) FILTER (WHERE antivenom = 'crofab'), 0) AS cu5,
         coalesce(sum(units_used) FILTER (WHERE antivenom = 'crofab' AND extract(year FROM event_date) = $1), 0) AS cu1,
         coalesce(sum(units_used) FILTER (WHERE antivenom = 'anavip'), 0) AS au5,
         coalesce(sum(units_used) FILTER (WHERE antivenom = 'anavip' AND extract(year FROM event_date) = $1), 0) AS au1
  FROM snakebite_cases WHERE facility_id = ANY($2) AND extract(year FROM event_date) BETWEEN $1 - 4 AND $1
), p AS (
  SELECT coalesce(sum(units) FILTER (WHERE product = 'crofab'), 0) AS cb5,
         coalesce(sum(units) FILTER (WHERE product = 'crofab' AND extract(year FROM purchase_date) = $1), 0) AS cb1,
         coalesce(sum(units) FILTER (WHERE product = 'anavip'), 0) AS ab5,
         coalesce(sum(units) FILTER (WHERE product = 'anavip' AND extract(year FROM purchase_date) = $1), 0) AS ab1
  FROM antivenom_purchases WHERE facility_id = ANY($2) AND extract(year FROM purchase_date) BETWEEN $1 - 4 AND $1
)
SELECT c.cases_5y::int AS snake_envenomination_cases_5y, c.cases_1y::int AS snake_envenomination_cases_1yr,
       c.initials_5y::int AS snake_envenomination_initials_5y, c.initials_1y::int AS snake_envenomination_initials_1yr,
       round(c.initials_5y::numeric / nullif(c.cu5 + c.au5, 0), 3)::float8 AS snake_envenomination_initials_per_usage,
       (c.cp5 + c.ap5)::int AS antivenom_patients_5y, c.cp5::int AS crofab_patients_5y, c.ap5::int AS anavip_patients_5y,
       c.cu5::int AS crofab_units_used_5y, c.cu1::int AS crofab_units_used_1yr, c.au5::int AS anavip_units_used, c.au1::int AS anavip_units_used_1yr,
       (c.cu5 + c.au5)::int AS antivenom_units_used_5y,
       round(c.cp5::numeric / nullif(c.cp5 + c.ap5, 0), 4)::float8 AS crofab_patient_share_5y,
       round(c.cp1::numeric / nullif(c.cp1 + c.ap1, 0), 4)::float8 AS crofab_patient_share_1yr,
       round(c.ap5::numeric / nullif(c.cp5 + c.ap5, 0), 4)::float8 AS anavip_patient_share_5y,
       round(c.ap1::numeric / nullif(c.cp1 + c.ap1, 0), 4)::float8 AS anavip_patient_share_1yr,
       p.cb5::int AS crofab_units_sold_5y, p.cb1::int AS crofab_units_sold_1yr, p.ab5::int AS anavip_units_sold_5y, p.ab1::int AS anavip_units_sold_1yr,
       (CASE WHEN c.cu5 = 0 AND p.cb5 = 0 THEN NULL WHEN p.cb5 = 0 THEN 1 ELSE round(greatest(-1, least(1, (c.cu5 - p.cb5)::numeric / p.cb5)), 4) END)::float8 AS crofab_usage_gap_ratio,
       (CASE WHEN c.cu5 = 0 AND p.cb5 = 0 THEN NULL WHEN p.cb5 = 0 THEN 10 ELSE round(10 * round(greatest(-1, least(1, (c.cu5 - p.cb5)::numeric / p.cb5)), 4), 1) END)::float8 AS crofab_usage_buying_gap,
       (CASE WHEN c.cu5 + c.au5 = 0 AND p.cb5 + p.ab5 = 0 THEN NULL WHEN p.cb5 + p.ab5 = 0 THEN 1
             ELSE round(greatest(-1, least(1, (c.cu5 + c.au5 - p.cb5 - p.ab5)::numeric / (p.cb5 + p.ab5))), 4) END)::float8 AS antivenom_usage_gap_ratio,
       (CASE WHEN c.cu5 + c.au5 = 0 AND p.cb5 + p.ab5 = 0 THEN NULL WHEN p.cb5 + p.ab5 = 0 THEN 10
             ELSE round(10 * round(greatest(-1, least(1, (c.cu5 + c.au5 - p.cb5 - p.ab5)::numeric / (p.cb5 + p.ab5))), 4), 1) END)::float8 AS antivenom_usage_buying_gap,
       (CASE WHEN c.cases_5y = 0 THEN 0
             ELSE round(100 * least(1, c.cases_5y / 25.0) * (0.5 + 0.5 * (1 - least(1, p.cb5::numeric / greatest(c.cu5 + c.au5, 1)))), 1) END)::float8
         AS serb_crofab_opportunity_score
FROM c, p`

describe('Nova (/api/nova/v1)', () => {
  const ctx = useTestApp({}, { dataset: true })
  /** A guest link of a new Nova company admitting `api_endpoints`, as its token. */
  const guestLink = async (api_endpoints: string[]) => {
    const tenant = await createTenant(ctx.db, { roles: ['citrus'], products: [{ product_group: 'NOVA' }] })
    return shareTokenFor(ctx.db, tenant, { client_routes: ['/nova-results'], api_endpoints, role: 'guest' })
  }
  let citrus: string
  let year: number
  let active: number[]

  beforeAll(async () => {
    const tenant = await createTenant(ctx.db, { roles: ['citrus'], products: [{ product_group: 'NOVA' }] })
    citrus = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    year = (await one<{ y: number }>(ctx.db, YEAR_SQL)).y
    active = (await ctx.db.pool.query<{ id: number }>(ACTIVE_SQL, [year])).rows.map((r) => r.id)
    expect(active.length).toBeGreaterThan(3)
  })

  const post = (path: string, body: unknown, token: string | null = citrus) => {
    const call = request(ctx.app.server)
      .post(`/api/nova/v1${path}`)
      .send(body as object)
    return token ? call.set('Authorization', `Bearer ${token}`) : call
  }
  const get = (path: string, token: string | null = citrus) => {
    const call = request(ctx.app.server).get(`/api/nova/v1${path}`)
    return token ? call.set('Authorization', `Bearer ${token}`) : call
  }
  const ok = async (call: ReturnType<typeof post>) => {
    const response = await call
    expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(200)
    const url = (response as unknown as { request: { url: string } }).request.url
    const schema = RESPONSE_SCHEMAS.find(([path]) => url.includes(path))?.[1]
    if (schema) {
      expect(response.headers['content-type']).toMatch(/^application\/json/)
      const parsed = schema.safeParse(response.body)
      expect(parsed.success, `${url}: ${parsed.error?.message ?? ''}`.slice(0, 500)).toBe(true)
    }
    return response.body
  }
  const recount = async (facilityIds: number[]) => one<Values>(ctx.db, RECOUNT_SQL, [year, facilityIds])
  const allAccounts = async (body: Record<string, unknown>): Promise<NovaInsight[]> => {
    const out: NovaInsight[] = []
    for (let page = 0; ; page++) {
      const { page_results } = await ok(post('/insights/accounts', { geo_filter_input: COUNTRY, page_size: 100, page, ...body }))
      out.push(...page_results.results)
      if (page + 1 >= page_results.total_pages) return out
    }
  }
  const facilityIdsOf = async (account: NovaInsight): Promise<number[]> => {
    if (account.entity_type === 'FACILITY') {
      return (await ctx.db.pool.query<{ id: number }>('SELECT id FROM facilities WHERE npi = $1', [account.citrus_id])).rows.map(
        (r) => r.id,
      )
    }
    return (
      await ctx.db.pool.query<{ id: number }>(
        'SELECT f.id FROM facilities f JOIN health_systems h ON h.id = f.health_system_id WHERE h.healthsystem_id = $1 AND f.id = ANY($2)',
        [account.citrus_id, active],
      )
    ).rows.map((r) => r.id)
  }

  describe('insights/accounts', () => {
    it('lists the health systems and independent facilities with activity, each metric recounted from the rows', async () => {
      const accounts = await allAccounts({})
      const expected = await one<{ n: number }>(
        ctx.db,
        `SELECT count(DISTINCT coalesce('HS' || health_system_id, 'F' || id))::int AS n FROM facilities WHERE id = ANY($1)`,
        [active],
      )
      expect(accounts.length).toBe(expected.n)
      const systems = accounts.filter((a) => a.entity_type === 'HEALTH_SYSTEM')
      const independents = accounts.filter((a) => a.entity_type === 'FACILITY')
      expect(systems.length).toBeGreaterThan(0)
      expect(independents.length).toBeGreaterThan(0)
      for (const account of [...systems.slice(0, 4), ...independents.slice(0, 4)]) {
        const ids = await facilityIdsOf(account)
        expect(ids.length, account.display_name).toBeGreaterThan(0)
        const expectedValues = await recount(ids)
        const actual = valuesOf(account)
        for (const [code, value] of Object.entries(expectedValues)) expect(actual[code], `${account.display_name} ${code}`).toBe(value)
        expect(actual.opportunity_score).toBe(expectedValues.serb_crofab_opportunity_score)
        expect(actual.facility_count).toBe(ids.length)
      }
    })

    it('sorts by every documented key in both directions (nulls last), snake_envenominations DESC by default', async () => {
      const byDefault = await allAccounts({})
      const cases = byDefault.map((a) => valuesOf(a).snake_envenomination_cases_5y!)
      expect(cases).toEqual([...cases].sort((a, b) => b - a))
      for (const option of NOVA_SORT_OPTIONS) {
        for (const direction of ['ASC', 'DESC'] as const) {
          const list = await allAccounts({ sort_input: { code: option.code as NovaSortKey, sort_direction: direction } })
          expect(list.length).toBe(byDefault.length)
          const values = list.map((a) => valuesOf(a)[option.metric] ?? null)
          const present = values.filter((v): v is number => v !== null)
          expect(
            values.slice(0, present.length).every((v) => v !== null),
            `${option.code} nulls last`,
          ).toBe(true)
          expect(present, `${option.code} ${direction}`).toEqual([...present].sort((a, b) => (direction === 'ASC' ? a - b : b - a)))
          // ties by name (collation order) then by id: the server ranks names once per data version
          const expectedOrder = [...list].sort((a, b) => {
            const va = valuesOf(a)[option.metric] ?? null
            const vb = valuesOf(b)[option.metric] ?? null
            if (va !== vb) {
              if (va === null) return 1
              if (vb === null) return -1
              return direction === 'ASC' ? va - vb : vb - va
            }
            return a.display_name.localeCompare(b.display_name) || (a.citrus_id < b.citrus_id ? -1 : a.citrus_id > b.citrus_id ? 1 : 0)
          })
          expect(
            list.map((a) => a.citrus_id),
            `${option.code} ${direction} ties`,
          ).toEqual(expectedOrder.map((a) => a.citrus_id))
        }
      }
    })

    it('quick filters keep exactly the accounts that pass (opportunity ≥ 75, purchasing group, CroFab use, ≥ 10 cases)', async () => {
      const all = await allAccounts({})
      const cases: [Record<string, unknown>, (a: NovaInsight) => boolean][] = [
        [{ code: 'min_opportunity_score', filter_value: 75 }, (a) => valuesOf(a).serb_crofab_opportunity_score! >= 75],
        [{ code: 'hpg_affiliated', filter_value: true }, (a) => a.badges.some((b) => b.type === 'INFO')],
        [{ code: 'min_crofab_units_used', filter_value: 1 }, (a) => valuesOf(a).crofab_units_used_5y! > 0],
        [{ code: 'min_snake_envenominations', filter_value: 10 }, (a) => valuesOf(a).snake_envenomination_cases_5y! >= 10],
      ]
      for (const [filter, passes] of cases) {
        const filtered = await allAccounts({ filter_inputs: [filter] })
        expect(
          filtered.map((a) => a.citrus_id),
          JSON.stringify(filter),
        ).toEqual(all.filter(passes).map((a) => a.citrus_id))
      }
      // the purchasing-group badge is what the filter reads: every system and every system member has it
      for (const a of all)
        expect(a.badges.some((b) => b.type === 'INFO')).toBe(a.entity_type === 'HEALTH_SYSTEM' || a.parent_citrus_id !== null)
    })

    it('pages from 0 with page_size 6 by default', async () => {
      const { page_results } = await ok(post('/insights/accounts', { geo_filter_input: COUNTRY }))
      expect(page_results.page).toBe(0)
      expect(page_results.page_size).toBe(6)
      expect(page_results.results.length).toBe(Math.min(6, page_results.total_results))
      expect(page_results.total_pages).toBe(Math.ceil(page_results.total_results / 6))
      const second = await ok(post('/insights/accounts', { geo_filter_input: COUNTRY, page: 1 }))
      const all = await allAccounts({})
      expect(second.page_results.results.map((a: NovaInsight) => a.citrus_id)).toEqual(all.slice(6, 12).map((a) => a.citrus_id))
    })

    it("lists a health system's facilities with health_system_id, with the system's details", async () => {
      const system = (await allAccounts({})).find((a) => a.entity_type === 'HEALTH_SYSTEM')!
      const { page_results } = await ok(
        post('/insights/accounts', {
          geo_filter_input: COUNTRY,
          account_query_type: 'FACILITY',
          filter_inputs: [{ code: 'health_system_id', filter_value: system.citrus_id }],
          page_size: 100,
        }),
      )
      const ids = await facilityIdsOf(system)
      const npis = (await ctx.db.pool.query<{ npi: string }>('SELECT npi FROM facilities WHERE id = ANY($1) ORDER BY npi', [ids])).rows.map(
        (r) => r.npi,
      )
      expect(page_results.results.map((r: NovaInsight) => r.citrus_id).sort()).toEqual(npis)
      for (const r of page_results.results as NovaInsight[]) {
        expect(r.entity_type).toBe('FACILITY')
        expect(r.parent_citrus_id).toBe(system.citrus_id)
      }
      const details = await one<Record<string, unknown>>(
        ctx.db,
        `SELECT h.control_type, h.website_domain,
                (SELECT count(*) FROM facilities f WHERE f.health_system_id = h.id)::int AS facilities,
                (SELECT count(*) FROM facilities f WHERE f.health_system_id = h.id AND f.facility_type IN ('hospital', 'critical_access'))::int AS hospitals,
                (SELECT count(*) FROM providers p WHERE p.facility_id IN (SELECT id FROM facilities WHERE health_system_id = h.id))::int AS hcps
         FROM health_systems h WHERE h.healthsystem_id = $1`,
        [system.citrus_id],
      )
      expect(system.entity).toMatchObject({
        healthsystem_id: system.citrus_id,
        control_type: details.control_type,
        website_domain: details.website_domain,
        number_of_facilities_owned: details.facilities,
        number_of_hospitals_owned: details.hospitals,
        number_of_affiliated_hcps: details.hcps,
      })
      // the system itself, as an account, with HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY (the detail panel after a reload)
      const itself = await ok(
        post('/insights/accounts', {
          geo_filter_input: COUNTRY,
          filter_inputs: [{ code: 'health_system_id', filter_value: system.citrus_id }],
        }),
      )
      expect(itself.page_results.results.map((r: NovaInsight) => [r.entity_type, r.citrus_id])).toEqual([
        ['HEALTH_SYSTEM', system.citrus_id],
      ])
      expect(valuesOf(itself.page_results.results[0])).toEqual(valuesOf(system))
      const unknown = await post('/insights/accounts', {
        geo_filter_input: COUNTRY,
        filter_inputs: [{ code: 'health_system_id', filter_value: 'HS-NOPE' }],
      })
      expect(unknown.status).toBe(404)
      expect(unknown.body.message).toBe('No health system with id HS-NOPE')
    })

    it('scopes to a state: only its facilities', async () => {
      const state = (
        await one<{ state: string }>(
          ctx.db,
          'SELECT state FROM facilities WHERE id = ANY($1) GROUP BY state ORDER BY count(*) DESC, state LIMIT 1',
          [active],
        )
      ).state
      const { page_results } = await ok(
        post('/insights/accounts', { geo_filter_input: stateScope(state), account_query_type: 'FACILITY', page_size: 100 }),
      )
      const expected = await one<{ n: number }>(ctx.db, 'SELECT count(*)::int AS n FROM facilities WHERE id = ANY($1) AND state = $2', [
        active,
        state,
      ])
      expect(page_results.total_results).toBe(expected.n)
      for (const r of page_results.results as NovaInsight[]) expect(r.entity.state).toBe(state)
    })
  })

  describe('insights/facility/{npi}', () => {
    it('answers one facility: details, every metric, payer mix from the claims, top prescribers and specialties', async () => {
      const top = await one<{ id: number; npi: string }>(
        ctx.db,
        `SELECT f.id, f.npi FROM facilities f JOIN snakebite_cases s ON s.facility_id = f.id
         WHERE extract(year FROM s.event_date) BETWEEN $1 - 4 AND $1 GROUP BY f.id ORDER BY count(*) DESC, f.id LIMIT 1`,
        [year],
      )
      const { facility_insight: insight } = (await ok(post(`/insights/facility/${top.npi}`, {}))) as { facility_insight: NovaInsight }
      const row = await one<Record<string, unknown>>(
        ctx.db,
        'SELECT f.name, f.npi, f.latitude, f.longitude, f.phone_number, f.hco_compile_level_1, h.healthsystem_id FROM facilities f LEFT JOIN health_systems h ON h.id = f.health_system_id WHERE f.id = $1',
        [top.id],
      )
      expect(insight.entity_type).toBe('FACILITY')
      expect(insight.display_name).toBe(row.name)
      expect(insight.entity).toMatchObject({
        npi: row.npi,
        latitude: row.latitude,
        longitude: row.longitude,
        phone_number: row.phone_number,
        facility_type_level_1: row.hco_compile_level_1,
      })
      expect(insight.parent_citrus_id).toBe(row.healthsystem_id ?? null)
      const values = valuesOf(insight)
      for (const [code, value] of Object.entries(await recount([top.id]))) expect(values[code], code).toBe(value)
      const affiliated = await one<{ n: number }>(ctx.db, 'SELECT count(*)::int AS n FROM providers WHERE facility_id = $1', [top.id])
      expect(values.provider_count).toBe(affiliated.n)

      const payers = (
        await ctx.db.pool.query<{ payer_type: string; n: number; share: number }>(
          `SELECT c.payer_type, count(*)::int AS n, round(100.0 * count(*) / sum(count(*)) OVER (), 1)::float8 AS share
           FROM snakebite_cases s JOIN claims c ON c.id = s.claim_id
           WHERE s.facility_id = $1 AND extract(year FROM s.event_date) BETWEEN $2 - 4 AND $2 GROUP BY c.payer_type`,
          [top.id, year],
        )
      ).rows
      expect(insight.payer_mix.map((p) => [p.payer_type, p.count, p.share]).sort()).toEqual(
        payers.map((p) => [p.payer_type, p.n, p.share]).sort(),
      )
      const shares = insight.payer_mix.map((p) => p.share)
      expect(shares).toEqual([...shares].sort((a, b) => b - a))

      const prescribers = (
        await ctx.db.pool.query<{ npi: string; crofab: number; anavip: number; initials: number }>(
          `SELECT provider_npi AS npi, count(*) FILTER (WHERE antivenom = 'crofab')::int AS crofab, count(*) FILTER (WHERE antivenom = 'anavip')::int AS anavip,
                  count(*) FILTER (WHERE icd10_code ~ '^[^.]{3}\\.[^.]{3}A$')::int AS initials
           FROM snakebite_cases WHERE facility_id = $1 AND extract(year FROM event_date) BETWEEN $2 - 4 AND $2 GROUP BY provider_npi`,
          [top.id, year],
        )
      ).rows
      const crofab = prescribers.filter((p) => p.crofab > 0)
      expect(insight.top_crofab_hcps!.length).toBe(Math.min(50, crofab.length))
      for (const entry of insight.top_crofab_hcps!) {
        const p = prescribers.find((x) => x.npi === entry.npi)!
        expect([entry.crofab_patients_5yr, entry.anavip_patients_5yr, entry.snake_envenominations_initials_5yr]).toEqual([
          p.crofab,
          p.anavip,
          p.initials,
        ])
      }
      const crofabCounts = insight.top_crofab_hcps!.map((e) => e.crofab_patients_5yr)
      expect(crofabCounts).toEqual([...crofabCounts].sort((a, b) => b - a))
      expect(insight.top_antivenom_hcps!.length).toBe(Math.min(50, prescribers.filter((p) => p.crofab + p.anavip > 0).length))

      const specialties = (
        await ctx.db.pool.query<{ specialty: string; count: number }>(
          'SELECT cms_specialization AS specialty, count(*)::int AS count FROM providers WHERE facility_id = $1 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 12',
          [top.id],
        )
      ).rows
      expect(insight.specialty_breakdown).toEqual(specialties)
    })

    it('answers zeros for a facility without antivenom activity and 404 for an unknown NPI', async () => {
      const quiet = await one<{ npi: string }>(
        ctx.db,
        'SELECT npi FROM facilities WHERE npi IS NOT NULL AND NOT (id = ANY($1)) ORDER BY id LIMIT 1',
        [active],
      )
      const { facility_insight } = await ok(post(`/insights/facility/${quiet.npi}`, {}))
      const values = valuesOf(facility_insight)
      expect(values.snake_envenomination_cases_5y).toBe(0)
      expect(values.serb_crofab_opportunity_score).toBe(0)
      expect(values.crofab_usage_buying_gap).toBeNull()
      const missing = await post('/insights/facility/0000000000', {})
      expect(missing.status).toBe(404)
      expect(missing.body).toMatchObject({ message: 'No facility with NPI 0000000000', status: 404 })
      const bad = await post('/insights/facility/12ab', {})
      expect(bad.status).toBe(400)
    })
  })

  describe('insights/hcps', () => {
    it('lists the clinicians who treated envenomations at the facility, each recounted, sorted and paged', async () => {
      const top = await one<{ id: number; npi: string }>(
        ctx.db,
        `SELECT f.id, f.npi FROM facilities f JOIN snakebite_cases s ON s.facility_id = f.id
         WHERE extract(year FROM s.event_date) BETWEEN $1 - 4 AND $1 GROUP BY f.id ORDER BY count(DISTINCT s.provider_npi) DESC, f.id LIMIT 1`,
        [year],
      )
      const body = { geo_filter_input: COUNTRY, filter_inputs: [{ code: 'facility_npi', filter_value: top.npi }], page_size: 100 }
      const { page_results } = await ok(post('/insights/hcps', body))
      const expected = (
        await ctx.db.pool.query<{ npi: string; cases: number; crofab_units: number; full_name: string | null }>(
          `SELECT s.provider_npi AS npi, count(*)::int AS cases, coalesce(sum(s.units_used) FILTER (WHERE s.antivenom = 'crofab'), 0)::int AS crofab_units,
                  max(p.full_name) AS full_name
           FROM snakebite_cases s LEFT JOIN providers p ON p.npi = s.provider_npi
           WHERE s.facility_id = $1 AND extract(year FROM s.event_date) BETWEEN $2 - 4 AND $2 GROUP BY s.provider_npi`,
          [top.id, year],
        )
      ).rows
      expect(page_results.total_results).toBe(expected.length)
      for (const hcp of page_results.results as NovaInsight[]) {
        const e = expected.find((x) => x.npi === hcp.citrus_id)!
        expect(hcp.entity_type).toBe('PROVIDER')
        expect(hcp.parent_citrus_id).toBe(top.npi)
        expect(hcp.entity.full_name).toBe(e.full_name)
        const v = valuesOf(hcp)
        expect([v.snake_envenomination_cases_5y, v.crofab_units_used_5y]).toEqual([e.cases, e.crofab_units])
        expect(v.serb_crofab_opportunity_score).toBeUndefined()
      }
      const cases = (page_results.results as NovaInsight[]).map((h) => valuesOf(h).snake_envenomination_cases_5y!)
      expect(cases).toEqual([...cases].sort((a, b) => b - a))
      const asc = await ok(post('/insights/hcps', { ...body, sort_input: { code: 'crofab_units_used', sort_direction: 'ASC' } }))
      const units = (asc.page_results.results as NovaInsight[]).map((h) => valuesOf(h).crofab_units_used_5y!)
      expect(units).toEqual([...units].sort((a, b) => a - b))
    })
  })

  describe('atlas/tiles and atlas/summary', () => {
    it('colours every state by each map type, values recounted, legend from the data; points with ALL only', async () => {
      for (const mapType of NOVA_MAP_TYPES) {
        const body = {
          geo_filter_input: country('STATE'),
          map_selection: { code: 'map_selection', filter_value: mapType.code },
          nova_use_case: 'serb_crofab',
        }
        const { geojson, choropleth_legend: legend } = await ok(post('/atlas/tiles', body))
        const states = (await ctx.db.pool.query<{ abbr: string }>('SELECT abbr FROM states WHERE geom IS NOT NULL ORDER BY abbr')).rows.map(
          (r) => r.abbr,
        )
        const features = geojson.features as { geometry: { type: string } | null; properties: Record<string, unknown> }[]
        expect(features.map((f) => f.properties.id)).toEqual(states)
        const values = features.map((f) => f.properties.value as number | null).filter((v): v is number => v !== null)
        expect(legend.min_value).toBe(Math.min(...values))
        expect(legend.max_value).toBe(Math.max(...values))
        expect(legend.metric_config.title).toBe(mapType.name)
        const busiest = await one<{ state: string }>(
          ctx.db,
          'SELECT state FROM facilities WHERE id = ANY($1) GROUP BY state ORDER BY count(*) DESC, state LIMIT 1',
          [active],
        )
        const ids = (
          await ctx.db.pool.query<{ id: number }>('SELECT id FROM facilities WHERE id = ANY($1) AND state = $2', [active, busiest.state])
        ).rows.map((r) => r.id)
        const feature = features.find((f) => f.properties.id === busiest.state)!
        expect(feature.geometry?.type).toMatch(/Polygon/)
        if (mapType.metric === 'serb_crofab_opportunity_score') {
          const expected = await one<{ v: number }>(
            ctx.db,
            `SELECT round(sum(cases * score) / nullif(sum(cases), 0), 1)::float8 AS v FROM (
               SELECT f.id, count(s.id) AS cases,
                      CASE WHEN count(s.id) = 0 THEN 0 ELSE round(100 * least(1, count(s.id) / 25.0) * (0.5 + 0.5 * (1 - least(1,
                        coalesce((SELECT sum(units) FROM antivenom_purchases a WHERE a.facility_id = f.id AND a.product = 'crofab' AND extract(year FROM a.purchase_date) BETWEEN $2 - 4 AND $2), 0)::numeric
                        / greatest(coalesce(sum(s.units_used) FILTER (WHERE s.antivenom IS NOT NULL), 0), 1)))), 1) END AS score
               FROM facilities f LEFT JOIN snakebite_cases s ON s.facility_id = f.id AND extract(year FROM s.event_date) BETWEEN $2 - 4 AND $2
               WHERE f.id = ANY($1) GROUP BY f.id) x`,
            [ids, year],
          )
          expect(feature.properties.value).toBe(expected.v ?? 0)
        } else {
          expect(feature.properties.value, mapType.code).toBe((await recount(ids))[mapType.metric])
        }
        expect(features.every((f) => f.properties.entity_type === 'STATE')).toBe(true)
      }
      const points = await ok(
        post('/atlas/tiles', {
          geo_filter_input: country('STATE'),
          map_selection: { filter_value: 'snake_envenomination_count' },
          nova_use_case: 'serb_crofab',
          point_selection: 'ALL',
        }),
      )
      const facilityPoints = (points.geojson.features as { properties: { entity_type: string } }[]).filter(
        (f) => f.properties.entity_type === 'FACILITY',
      )
      expect(facilityPoints.length).toBe(active.length)
    })

    it('splits a state into its sales territories and the country into one feature', async () => {
      const busiest = await one<{ state: string }>(
        ctx.db,
        `SELECT f.state FROM facilities f JOIN sales_territories t ON t.state = f.state WHERE f.id = ANY($1)
         GROUP BY f.state HAVING count(DISTINCT t.id) > 1 ORDER BY count(DISTINCT f.id) DESC, f.state LIMIT 1`,
        [active],
      ).catch(() => undefined)
      const state =
        busiest?.state ?? (await one<{ state: string }>(ctx.db, 'SELECT state FROM facilities WHERE id = ANY($1) LIMIT 1', [active])).state
      const { geojson } = await ok(
        post('/atlas/tiles', {
          geo_filter_input: stateScope(state, 'SALES_TERRITORY'),
          map_selection: { filter_value: 'snake_envenomination_count' },
          nova_use_case: 'serb_crofab',
        }),
      )
      const territories = (
        await ctx.db.pool.query<{ id: number; name: string }>(
          "SELECT id, name FROM sales_territories WHERE state = $1 AND nova_use_case = 'serb_crofab'",
          [state],
        )
      ).rows
      const features = geojson.features as { properties: Record<string, unknown> }[]
      expect(features.map((f) => f.properties.territory_name).sort()).toEqual(territories.map((t) => t.name).sort())
      for (const t of territories) {
        const ids = (
          await ctx.db.pool.query<{ id: number }>(
            'SELECT f.id FROM facilities f JOIN sales_territory_counties tc ON tc.county_fips = f.county_fips WHERE tc.territory_id = $1 AND f.id = ANY($2)',
            [t.id, active],
          )
        ).rows.map((r) => r.id)
        const feature = features.find((f) => f.properties.id === String(t.id))!
        expect(feature.properties.value, t.name).toBe((await recount(ids)).snake_envenomination_cases_5y)
        expect(feature.properties.entity_type).toBe('TERRITORY')
      }
      const allTerritories = await ok(
        post('/atlas/tiles', {
          geo_filter_input: country('SALES_TERRITORY'),
          map_selection: { filter_value: 'snake_envenomination_count' },
          nova_use_case: 'serb_crofab',
        }),
      )
      const territoryCount = await one<{ n: number }>(
        ctx.db,
        "SELECT count(*)::int AS n FROM sales_territories WHERE nova_use_case = 'serb_crofab'",
      )
      expect(allTerritories.geojson.features.length).toBe(territoryCount.n)
      const total = (allTerritories.geojson.features as { properties: { value: number } }[]).reduce((sum, f) => sum + f.properties.value, 0)
      const inTerritories = (
        await ctx.db.pool.query<{ id: number }>(
          'SELECT DISTINCT f.id FROM facilities f JOIN sales_territory_counties tc ON tc.county_fips = f.county_fips WHERE f.id = ANY($1)',
          [active],
        )
      ).rows.map((r) => r.id)
      expect(total).toBe((await recount(inTerritories)).snake_envenomination_cases_5y)
      expect((allTerritories.geojson.features as { geometry: unknown }[]).every((f) => f.geometry !== null)).toBe(true)
      const nation = await ok(
        post('/atlas/tiles', {
          geo_filter_input: country('COUNTRY'),
          map_selection: { filter_value: 'snake_envenomination_count' },
          nova_use_case: 'serb_crofab',
        }),
      )
      expect(nation.geojson.features.length).toBe(1)
      expect(nation.geojson.features[0].properties.value).toBe((await recount(active)).snake_envenomination_cases_5y)
    })

    it('summarises a scope: every metric and the counts recounted', async () => {
      const body = {
        geo_filter_input: COUNTRY,
        map_selection: { filter_value: 'serb_crofab_drug_use_count' },
        nova_use_case: 'serb_crofab',
      }
      const summary = await ok(post('/atlas/summary', body))
      const expected = await recount(active)
      const values = valuesOf(summary.summary)
      for (const [code, value] of Object.entries(expected))
        if (code !== 'serb_crofab_opportunity_score') expect(values[code], code).toBe(value)
      const counts = await one<{ systems: number; treating: number }>(
        ctx.db,
        `SELECT (SELECT count(DISTINCT health_system_id) FROM facilities WHERE id = ANY($1))::int AS systems,
                (SELECT count(DISTINCT provider_npi) FROM snakebite_cases WHERE extract(year FROM event_date) BETWEEN $2 - 4 AND $2)::int AS treating`,
        [active, year],
      )
      expect(summary.counts).toEqual({
        health_system_count: counts.systems,
        facility_count: active.length,
        provider_count: counts.treating,
      })
      expect(summary.map_selection).toEqual({
        code: 'serb_crofab_drug_use_count',
        name: 'SERB CroFab Units Used',
        value: expected.crofab_units_used_5y,
      })
      expect(summary.summary.entity_type).toBe('COUNTRY')
    })
  })

  describe('scopes answered from the data of the version (docs/decisions/0054)', () => {
    it('summarises a state: every metric, the counts and the top prescribers recounted', async () => {
      const state = (
        await one<{ state: string }>(
          ctx.db,
          'SELECT state FROM facilities WHERE id = ANY($1) GROUP BY state ORDER BY count(*) DESC, state LIMIT 1',
          [active],
        )
      ).state
      const ids = (
        await ctx.db.pool.query<{ id: number }>('SELECT id FROM facilities WHERE id = ANY($1) AND state = $2', [active, state])
      ).rows.map((r) => r.id)
      const summary = await ok(
        post('/atlas/summary', {
          geo_filter_input: stateScope(state),
          map_selection: { filter_value: 'snake_envenomination_count' },
          nova_use_case: 'serb_crofab',
        }),
      )
      const expected = await recount(ids)
      const values = valuesOf(summary.summary)
      for (const [code, value] of Object.entries(expected))
        if (code !== 'serb_crofab_opportunity_score') expect(values[code], code).toBe(value)
      const counts = await one<{ systems: number; treating: number }>(
        ctx.db,
        `SELECT (SELECT count(DISTINCT health_system_id) FROM facilities WHERE id = ANY($1))::int AS systems,
                (SELECT count(DISTINCT provider_npi) FROM snakebite_cases WHERE facility_id = ANY($1) AND extract(year FROM event_date) BETWEEN $2 - 4 AND $2)::int AS treating`,
        [ids, year],
      )
      expect(summary.counts).toEqual({ health_system_count: counts.systems, facility_count: ids.length, provider_count: counts.treating })
      expect(summary.map_selection.value).toBe(expected.snake_envenomination_cases_5y)
      const prescribers = (
        await ctx.db.pool.query<{ npi: string; crofab: number; anavip: number; initials: number }>(
          `SELECT provider_npi AS npi, count(*) FILTER (WHERE antivenom = 'crofab')::int AS crofab, count(*) FILTER (WHERE antivenom = 'anavip')::int AS anavip,
                  count(*) FILTER (WHERE icd10_code ~ '^[^.]{3}\\.[^.]{3}A$')::int AS initials
           FROM snakebite_cases WHERE facility_id = ANY($1) AND extract(year FROM event_date) BETWEEN $2 - 4 AND $2 GROUP BY provider_npi`,
          [ids, year],
        )
      ).rows
      const top = summary.summary.top_antivenom_hcps as { npi: string; crofab_patients_5yr: number; anavip_patients_5yr: number }[]
      expect(top.length).toBe(Math.min(50, prescribers.filter((p) => p.crofab + p.anavip > 0).length))
      for (const entry of top) {
        const p = prescribers.find((x) => x.npi === entry.npi)!
        expect([entry.crofab_patients_5yr, entry.anavip_patients_5yr]).toEqual([p.crofab, p.anavip])
      }
      const payers = (
        await ctx.db.pool.query<{ payer_type: string; n: number }>(
          `SELECT c.payer_type, count(*)::int AS n FROM snakebite_cases s JOIN claims c ON c.id = s.claim_id
           WHERE s.facility_id = ANY($1) AND extract(year FROM s.event_date) BETWEEN $2 - 4 AND $2 GROUP BY c.payer_type`,
          [ids, year],
        )
      ).rows
      expect((summary.summary.payer_mix as { payer_type: string; count: number }[]).map((p) => [p.payer_type, p.count]).sort()).toEqual(
        payers.map((p) => [p.payer_type, p.n]).sort(),
      )
    })

    it('lists the accounts of a sales territory: its counties only, each recounted', async () => {
      const territory = await one<{ id: number; name: string }>(
        ctx.db,
        `SELECT t.id, t.name FROM sales_territories t JOIN sales_territory_counties tc ON tc.territory_id = t.id
         JOIN facilities f ON f.county_fips = tc.county_fips AND f.id = ANY($1)
         WHERE t.nova_use_case = 'serb_crofab' GROUP BY t.id, t.name ORDER BY count(DISTINCT f.id) DESC, t.id LIMIT 1`,
        [active],
      )
      const ids = (
        await ctx.db.pool.query<{ id: number; npi: string }>(
          'SELECT DISTINCT f.id, f.npi FROM facilities f JOIN sales_territory_counties tc ON tc.county_fips = f.county_fips WHERE tc.territory_id = $1 AND f.id = ANY($2)',
          [territory.id, active],
        )
      ).rows
      const { page_results } = await ok(
        post('/insights/accounts', {
          geo_filter_input: { filter_value: { region_level: 'SALES_TERRITORY', search_within_region: territory.name } },
          account_query_type: 'FACILITY',
          page_size: 100,
        }),
      )
      expect(page_results.total_results).toBe(ids.length)
      for (const r of page_results.results as NovaInsight[]) {
        const id = ids.find((x) => x.npi === r.citrus_id)!.id
        const expected = await recount([id])
        const actual = valuesOf(r)
        for (const [code, value] of Object.entries(expected)) expect(actual[code], `${r.display_name} ${code}`).toBe(value)
      }
      // the territory by id names the same scope
      const byId = await ok(
        post('/insights/accounts', {
          geo_filter_input: { filter_value: { region_level: 'SALES_TERRITORY', search_within_region: String(territory.id) } },
          account_query_type: 'FACILITY',
        }),
      )
      expect(byId.page_results.total_results).toBe(ids.length)
      // a state by its name names the same scope as by its code
      const state = await one<{ abbr: string; name: string }>(ctx.db, 'SELECT abbr, name FROM states ORDER BY abbr LIMIT 1')
      const byCode = await ok(post('/insights/accounts', { geo_filter_input: stateScope(state.abbr.toLowerCase()) }))
      const byName = await ok(post('/insights/accounts', { geo_filter_input: stateScope(state.name.toUpperCase()) }))
      expect(byName.page_results.total_results).toBe(byCode.page_results.total_results)
    })

    it('sees a new data version: a load changes the counts the next call answers', async () => {
      const top = await one<{ id: number; npi: string; case_id: number; provider_npi: string }>(
        ctx.db,
        `SELECT f.id, f.npi, s.id AS case_id, s.provider_npi FROM facilities f JOIN snakebite_cases s ON s.facility_id = f.id
         WHERE extract(year FROM s.event_date) BETWEEN $1 - 4 AND $1 ORDER BY s.id LIMIT 1`,
        [year],
      )
      const hcpsOf = async () => {
        const { page_results } = await ok(
          post('/insights/hcps', {
            geo_filter_input: COUNTRY,
            filter_inputs: [{ code: 'facility_npi', filter_value: top.npi }],
            page_size: 100,
          }),
        )
        return valuesOf((page_results.results as NovaInsight[]).find((h) => h.citrus_id === top.provider_npi)!)
      }
      // the data of the version held (a call while it builds reads the rows of the moment, docs/decisions/0086)
      await novaEngine.build(ctx.db.pool, await dataVersion(ctx.db.pool), true)
      const before = await hcpsOf()
      const { rows } = await ctx.db.pool.query<{ antivenom: string | null; units_used: number }>(
        'SELECT antivenom, units_used FROM snakebite_cases WHERE id = $1',
        [top.case_id],
      )
      const original = rows[0]!
      try {
        await ctx.db.pool.query("UPDATE snakebite_cases SET antivenom = 'crofab', units_used = units_used + 7 WHERE id = $1", [top.case_id])
        // the same data version answers the same numbers (kept in memory)
        expect(await hcpsOf()).toEqual(before)
        await ctx.db.pool.query("INSERT INTO data_loads (kind, scale, status, finished_at) VALUES ('import', 'nova-test', 'done', now())")
        const after = await hcpsOf()
        const expected = await one<{ units: number }>(
          ctx.db,
          `SELECT coalesce(sum(units_used) FILTER (WHERE antivenom = 'crofab'), 0)::int AS units FROM snakebite_cases
           WHERE facility_id = $1 AND provider_npi = $2 AND extract(year FROM event_date) BETWEEN $3 - 4 AND $3`,
          [top.id, top.provider_npi, year],
        )
        expect(after.crofab_units_used_5y).toBe(expected.units)
        expect(after.crofab_units_used_5y).not.toBe(before.crofab_units_used_5y)
      } finally {
        await ctx.db.pool.query('UPDATE snakebite_cases SET antivenom = $2, units_used = $3 WHERE id = $1', [
          top.case_id,
          original.antivenom,
          original.units_used,
        ])
        await ctx.db.pool.query("INSERT INTO data_loads (kind, scale, status, finished_at) VALUES ('import', 'nova-test', 'done', now())")
      }
    })
  })

  describe("the request's data version (docs/decisions/0077)", () => {
    /** Runs `run` and gives the statements of the primary pool that read the data version. */
    const versionReadsDuring = async (run: () => Promise<void>): Promise<string[]> =>
      (await statementsDuring(ctx.app.db.pool, run)).filter((sql) => sql === `SELECT ${DATA_VERSION_SQL} AS v`)

    it('answers for the version its login principal read: no version statement of its own, held data or not', async () => {
      const top = await one<{ npi: string }>(
        ctx.db,
        `SELECT f.npi FROM facilities f JOIN snakebite_cases s ON s.facility_id = f.id
         WHERE extract(year FROM s.event_date) BETWEEN $1 - 4 AND $1 GROUP BY f.id ORDER BY count(*) DESC, f.id LIMIT 1`,
        [year],
      )
      const scope = { geo_filter_input: country('STATE'), nova_use_case: 'serb_crofab' }
      const map = { ...scope, map_selection: { code: 'map_selection', filter_value: NOVA_MAP_TYPES[0]!.code } }
      const calls = async () => {
        await ok(get('/metadata/?nova_use_case=serb_crofab'))
        await ok(get('/territories/names?nova_use_case=serb_crofab'))
        await ok(post('/atlas/summary', map))
        await ok(post('/atlas/tiles', map))
        await ok(post('/insights/accounts', { ...scope, page_size: 3 }))
        await ok(post('/insights/hcps', { ...scope, filter_inputs: [{ code: 'facility_npi', filter_value: top.npi }] }))
        await ok(post(`/insights/facility/${top.npi}`, {}))
      }
      // while the data builds (each call reads its own rows, the accounts' page its details too) and once it is held
      novaEngine.evict(ctx.db.pool)
      expect(await versionReadsDuring(calls)).toEqual([])
      await novaEngine.build(ctx.db.pool, await dataVersion(ctx.db.pool), true)
      expect(await versionReadsDuring(calls)).toEqual([])
    })

    it("reads a link guest's version once per call, for its ETag and its answer alike", async () => {
      const token = await guestLink(['GET /nova/v1/metadata/', 'POST /nova/v1/insights/accounts'])
      const reads = await versionReadsDuring(async () => {
        const metadata = await request(ctx.app.server).get(`/api/nova/v1/metadata/?token=${token}`)
        expect(metadata.status, JSON.stringify(metadata.body)).toBe(200)
        expect(metadata.headers.etag).toBeDefined()
      })
      expect(reads).toHaveLength(1)
      const accounts = await versionReadsDuring(async () => {
        const response = await request(ctx.app.server)
          .post(`/api/nova/v1/insights/accounts?token=${token}`)
          .send({ geo_filter_input: COUNTRY })
        expect(response.status).toBe(200)
      })
      expect(accounts).toHaveLength(1)
    })
  })

  describe('metadata and territories', () => {
    it('lists the six map types, the sort keys with both directions and the metric groups', async () => {
      const body = await ok(get('/metadata/?nova_use_case=serb_crofab'))
      expect(body.atlas_metadata.map_metadata.map_options.map((o: { code: string }) => o.code)).toEqual([
        'snake_envenomination_count',
        'drug_use_count_crofab_anavip',
        'serb_crofab_opportunity_score',
        'serb_crofab_drug_use_count',
        'serb_crofab_drug_patient_share',
        'serb_anavip_drug_use_count',
      ])
      expect(body.atlas_metadata.map_metadata.default_map_option).toBe('serb_crofab_opportunity_score')
      expect(body.insights_metadata.default_sort).toBe('snake_envenominations')
      expect(body.insights_metadata.default_sort_direction).toBe('DESC')
      const sortCodes = body.insights_metadata.sort_options.map((o: { code: string }) => o.code)
      for (const key of [
        'snake_envenominations',
        'crofab_units_used',
        'anavip_units_used',
        'anavip_units_used_1yr',
        'crofab_units_used_1yr',
        'crofab_patient_share',
        'crofab_usage_buying_gap',
        'antivenom_usage_buying_gap',
        'snake_envenomination_initials_per_usage',
      ])
        expect(sortCodes).toContain(key)
      for (const o of body.insights_metadata.sort_options) expect(o.allowed_sort_directions).toEqual(['ASC', 'DESC'])
      expect(body.atlas_metadata.map_metadata.data_years.latest_year).toBe(year)
    })

    it('lists the territories of the use case', async () => {
      const body = await ok(get('/territories/names?nova_use_case=serb_crofab'))
      const rows = (
        await ctx.db.pool.query("SELECT id, name, state FROM sales_territories WHERE nova_use_case = 'serb_crofab' ORDER BY state, name")
      ).rows
      expect(body.territory_names).toEqual(rows)
      expect(rows.length).toBeGreaterThan(0)
    })
  })

  describe('validation (spec 2 §5)', () => {
    const tiles = (body: unknown) => post('/atlas/tiles', body)
    const map = { filter_value: 'snake_envenomination_count' }
    it.each([
      ['tiles without a scope', () => tiles({ map_selection: map, nova_use_case: 'serb_crofab' }), 'Geographic scope is required'],
      [
        'tiles without region_level',
        () => tiles({ geo_filter_input: { filter_value: { granularity: 'STATE' } }, map_selection: map, nova_use_case: 'serb_crofab' }),
        'Geographic scope is required',
      ],
      [
        'tiles without granularity',
        () => tiles({ geo_filter_input: COUNTRY, map_selection: map, nova_use_case: 'serb_crofab' }),
        'Territory granularity is required',
      ],
      ['tiles without granularity nor map', () => tiles({ geo_filter_input: COUNTRY }), 'Territory granularity is required'],
      [
        'tiles without map type',
        () => tiles({ geo_filter_input: country('STATE'), nova_use_case: 'serb_crofab' }),
        'Map visualization type is required',
      ],
      ['tiles without use case', () => tiles({ geo_filter_input: country('STATE'), map_selection: map }), 'Nova use case is required'],
      [
        'tiles of a state scope without the state',
        () => tiles({ geo_filter_input: stateScope('', 'STATE'), map_selection: map, nova_use_case: 'serb_crofab' }),
        'State selection is required for state-level scope',
      ],
      [
        'summary without a scope',
        () => post('/atlas/summary', { map_selection: map, nova_use_case: 'serb_crofab' }),
        'Geographic scope is required',
      ],
      ['accounts without a scope', () => post('/insights/accounts', {}), 'Geographic scope is required'],
      [
        'accounts of a state scope without the state',
        () => post('/insights/accounts', { geo_filter_input: stateScope('') }),
        'State selection is required for state-level insights',
      ],
      [
        'hcps without a scope',
        () => post('/insights/hcps', { filter_inputs: [{ code: 'facility_npi', filter_value: '1234567893' }] }),
        'Missing scope',
      ],
      ['hcps without a facility', () => post('/insights/hcps', { geo_filter_input: COUNTRY }), 'Missing HCP NPI'],
      ['an unknown state', () => post('/insights/accounts', { geo_filter_input: stateScope('ZZ') }), 'Unknown state: ZZ'],
      [
        'an unknown territory',
        () =>
          post('/insights/accounts', {
            geo_filter_input: { filter_value: { region_level: 'SALES_TERRITORY', search_within_region: 'Atlantis' } },
          }),
        'Unknown sales territory: Atlantis',
      ],
    ])('%s: 400 with the documented message', async (_name, call, message) => {
      const response = await call()
      expect(response.status, JSON.stringify(response.body)).toBe(400)
      expect(response.body.message).toBe(message)
      expect(response.body.status).toBe(400)
    })
  })

  describe('access (spec 2 §6): role citrus and the NOVA product, metered, API keys, links', () => {
    const metadata = (token: string | null) => get('/metadata/', token)

    it('refuses anonymous callers, other roles and companies without NOVA', async () => {
      expect((await metadata(null)).status).toBe(401)
      const other = await createTenant(ctx.db, { roles: ['admin', 'user'], products: [{ product_group: 'NOVA' }] })
      for (const user of other.users) {
        const response = await metadata(await loginTokenFor(user, other.company.company_name))
        expect(response.status).toBe(403)
      }
      const noNova = await createTenant(ctx.db, { roles: ['citrus'], products: [{ product_group: 'ATLAS' }] })
      const refused = await metadata(await loginTokenFor(noNova.users[0]!, noNova.company.company_name))
      expect(refused.status).toBe(403)
      expect(refused.body.message).toMatch(/Nova/)
    })

    it('meters every call against the NOVA credits (402 when spent; refused input costs nothing)', async () => {
      const tenant = await createTenant(ctx.db, { roles: ['citrus'], products: [{ product_group: 'NOVA', limit: 2 }] })
      const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
      expect((await post('/insights/accounts', {}, token)).status).toBe(400)
      expect((await metadata(token)).status).toBe(200)
      expect((await post('/insights/accounts', { geo_filter_input: COUNTRY }, token)).status).toBe(200)
      const spent = await metadata(token)
      expect(spent.status).toBe(402)
    })

    it('works with an API key of a citrus user', async () => {
      const tenant = await createTenant(ctx.db, { roles: ['citrus'], products: [{ product_group: 'NOVA' }] })
      const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
      const created = await request(ctx.app.server)
        .post('/api/admin/api-token')
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'nova' })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const response = await post('/insights/accounts', { geo_filter_input: COUNTRY }, created.body.token as string)
      expect(response.status).toBe(200)
      expect(response.body.page_results.total_results).toBeGreaterThan(0)
    })

    it('admits a shareable link only for the calls it lists', async () => {
      const listed = await guestLink(['POST /nova/v1/insights/accounts'])
      const allowed = await request(ctx.app.server)
        .post(`/api/nova/v1/insights/accounts?token=${listed}`)
        .send({ geo_filter_input: COUNTRY })
      expect(allowed.status, JSON.stringify(allowed.body)).toBe(200)
      const notListed = await request(ctx.app.server).get(`/api/nova/v1/metadata/?token=${listed}`)
      expect(notListed.status).toBe(403)
    })
  })
})
