import { atlasEndpoints, responseSchemas } from '@citrus/contracts'
import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { createTenant, loginTokenFor, statementsDuring, useTestApp } from '../../../../../test/helpers.ts'
import { ATLAS_PAYER_TYPES, ATLAS_ZIP_NEIGHBOUR_BAND_M, type TileGranularity } from '@citrus/contracts'
import type pg from 'pg'
import { buildClaimIndex, currentClaimIndex, drillWithIndex, type DrillQuery } from '../../engines/atlas/claim-index.ts'
import {
  buildPatientIndex,
  countWithIndex,
  currentPatientIndex,
  patientFilter,
  regionCountsMap,
} from '../../engines/atlas/patient-index.ts'
import {
  codeConditionSql,
  patientConditions,
  scopeZipsSql,
  SqlParams,
  type AtlasFilters,
  type AtlasScope,
  type PayerCounts,
} from '../../engines/atlas/rows.ts'
import { DATA_VERSION_SQL } from '../../lib/versioned-cache.ts'
import {
  entityPage,
  statePageFirst,
  toRow,
  type DrilldownPage,
  type DrilldownQuery,
  type GroupMetrics,
} from '../../services/atlas/drilldown.ts'
import { genericResult, toGenericResponse } from '../../services/atlas/generic.ts'
import { filtersOf, resolveScope } from '../../services/atlas/query.ts'
import { dataVersion } from '../../services/atlas/regions.ts'
import { getisOrdGiStar } from '../../services/atlas/statistics.ts'

type Feature = {
  type: 'Feature'
  geometry: { type: string }
  properties: Record<string, unknown> & { id: string; value: number; fill: string }
}
type Generic = {
  geojson: { type: string; features: Feature[] }
  choropleth_legend: {
    type: string
    min_value: number
    max_value: number
    items: { color: string; min_value: number; max_value: number }[]
  }
  summary: { total_patients: number; region_count: number; codes: string[] }
}
type Metric = { code: string; value: { v: number | string | null } }
type Insight = {
  entity_type: string
  citrus_id: string
  display_name: string
  metrics: { type: string; metrics: Metric[] }[]
  zip_code: string | null
}
type Drilldown = { page_results: { results: Insight[]; page: number; page_size: number; total_results: number; total_pages: number } }

const TIERS = ['BASE', 'BUSINESS', 'BUSINESS_PLUS', 'ENTERPRISE'] as const
type Tier = (typeof TIERS)[number]

const metricOf = (item: Insight, code: string) => item.metrics.flatMap((g) => g.metrics).find((m) => m.code === code)?.value.v

/** Codes as LIKE patterns over the base tables: the recounts never touch the materialised views. */
const likeAny = (codes: string[]) => `(${codes.map((c) => `d.icd10_code LIKE '${c}%'`).join(' OR ')})`

// ---- the independent SQL recounts (oracles): what Atlas answered from SQL before its engines (docs/decisions/0080) ----

const PAYER_SQL = ATLAS_PAYER_TYPES.map(
  (payer) => `count(DISTINCT d.patient_id) FILTER (WHERE d.payer_type = '${payer}')::int AS "${payer}"`,
).join(', ')

/**
 * Distinct patients per region of the granularity, with their payer types, from mv_patient_diagnoses
 * (one row per patient and code, with the patient's attributes). Each code prefix is an index range.
 */
async function countByRegionSql(
  pool: pg.Pool,
  filters: AtlasFilters,
  scope: AtlasScope,
  granularity: TileGranularity,
): Promise<Map<string, { patients: number; payers: PayerCounts }>> {
  const params = new SqlParams()
  const key = { STATE: 'state', COUNTY: 'county_fips', ZIP_CODE_50KM: 'zip_code' }[granularity]
  const where = [`d.${key} IS NOT NULL`, ...patientConditions('d', filters, scope, params)]
  const codes = codeConditionSql('d.icd10_code', filters, params)
  if (codes) where.unshift(codes)
  const { rows } = await pool.query<{ id: string; patients: number } & PayerCounts>(
    `SELECT d.${key} AS id, count(DISTINCT d.patient_id)::int AS patients, ${PAYER_SQL}
     FROM mv_patient_diagnoses d WHERE ${where.join(' AND ')} GROUP BY d.${key}`,
    params.values,
  )
  return new Map(
    rows.map((row) => [
      row.id,
      { patients: row.patients, payers: { commercial: row.commercial, medicare: row.medicare, medicaid: row.medicaid, other: row.other } },
    ]),
  )
}

const METRICS_SQL = `count(DISTINCT c.patient_id)::int AS patients, count(DISTINCT c.id)::int AS claims,
  count(DISTINCT c.rendering_npi)::int AS providers, count(DISTINCT c.facility_id)::int AS facilities,
  count(DISTINCT f.health_system_id)::int AS health_systems, count(DISTINCT p.state)::int AS states,
  ${ATLAS_PAYER_TYPES.map((payer) => `count(DISTINCT c.patient_id) FILTER (WHERE p.payer_type = '${payer}')::int AS "${payer}"`).join(', ')}`

/**
 * The claims of the query: claims that carry a matching diagnosis (each code prefix one range of the
 * claim_diagnoses text_pattern_ops index), with their patient (gender, age, payer) and facility. The
 * scope applies to where the patients live (COUNTRY, STATE) unless `scopeOn` says facilities or providers.
 */
function claimsFrom(
  filters: AtlasFilters,
  scope: AtlasScope,
  params: SqlParams,
  scopeOn: 'patient' | 'facility' | 'provider',
): { from: string; where: string[] } {
  const where = patientConditions('p', filters, scopeOn === 'patient' ? scope : { ...scope, type: 'COUNTRY' }, params)
  if (scopeOn !== 'patient') {
    const alias = scopeOn === 'facility' ? 'f' : 'pr'
    if (scope.type === 'STATE') where.push(`${alias}.state = ${params.add(scope.state)}`)
    if (scope.type === 'ZIP_CODE_50KM') where.push(`${alias}.zip_code IN (${scopeZipsSql(scope, params)})`)
  }
  const codes = codeConditionSql('d.icd10_code', filters, params)
  const claims = codes
    ? `(SELECT DISTINCT d.claim_id FROM claim_diagnoses d WHERE ${codes}) m JOIN claims c ON c.id = m.claim_id`
    : 'claims c'
  const provider = scopeOn === 'provider' ? ' JOIN providers pr ON pr.npi = c.rendering_npi' : ''
  return { from: `${claims} JOIN patients p ON p.id = c.patient_id LEFT JOIN facilities f ON f.id = c.facility_id${provider}`, where }
}

const whereSql = (where: string[]) => (where.length > 0 ? `WHERE ${where.join(' AND ')}` : '')

function toMetrics(row: Record<string, unknown>): GroupMetrics {
  const n = (key: string) => Number(row[key] ?? 0)
  return {
    patients: n('patients'),
    claims: n('claims'),
    providers: n('providers'),
    facilities: n('facilities'),
    health_systems: n('health_systems'),
    states: n('states'),
    commercial: n('commercial'),
    medicare: n('medicare'),
    medicaid: n('medicaid'),
    other: n('other'),
  }
}

/** COUNTRY in SQL over the claims. */
async function countryRowSql(pool: pg.Pool, q: DrilldownQuery): Promise<GroupMetrics> {
  const params = new SqlParams()
  const { from, where } = claimsFrom(q.filters, q.scope, params, 'patient')
  const { rows } = await pool.query(`SELECT ${METRICS_SQL} FROM ${from} ${whereSql(where)}`, params.values)
  return toMetrics(rows[0] ?? {})
}

/** STATE in SQL over the claims. */
async function stateRowsSql(pool: pg.Pool, q: DrilldownQuery): Promise<Map<string, GroupMetrics>> {
  const params = new SqlParams()
  const { from, where } = claimsFrom(q.filters, q.scope, params, 'patient')
  if (q.state) where.push(`p.state = ${params.add(q.state)}`)
  if (q.states) where.push(`p.state = ANY(${params.add(q.states)}::text[])`)
  const { rows } = await pool.query<{ id: string }>(
    `SELECT p.state AS id, ${METRICS_SQL} FROM ${from} ${whereSql(where)} GROUP BY p.state`,
    params.values,
  )
  return new Map(rows.map((row) => [row.id, toMetrics(row)]))
}

const SORT_COLUMNS: Record<string, string> = {
  patient_count: 'patients',
  num_patients: 'patients',
  provider_count: 'providers',
  claim_count: 'claims',
  opportunity_score: 'patients',
  name: 'name',
  state: 'state',
}

/** FACILITY or PROVIDER in SQL over the claims. */
async function entityPageSql(pool: pg.Pool, q: DrilldownQuery): Promise<DrilldownPage> {
  const params = new SqlParams()
  const facility = q.type === 'FACILITY'
  const { from, where } = claimsFrom(q.filters, q.scope, params, facility ? 'facility' : 'provider')
  if (facility) where.push('c.facility_id IS NOT NULL')
  if (q.facilityId !== null) where.push(`c.facility_id = ${params.add(q.facilityId)}`)
  if (q.healthSystemId !== null) where.push(`f.health_system_id = ${params.add(q.healthSystemId)}`)
  if (q.state) where.push(`${facility ? 'f' : 'pr'}.state = ${params.add(q.state)}`)
  const group = facility ? 'c.facility_id' : 'c.rendering_npi'
  const order = `${SORT_COLUMNS[q.sort.code] ?? 'patients'} ${q.sort.direction}, id ASC`
  const entity = facility
    ? `SELECT g.*, e.name, e.npi, e.city, e.state, e.zip_code, e.latitude, e.longitude, e.address_line_1 AS address,
              e.hco_compile_level_1 AS kind, h.name AS parent_name, h.healthsystem_id, NULL::text AS title, NULL::text AS specialization,
              NULL::text AS facility_name
       FROM g JOIN facilities e ON e.id = g.key LEFT JOIN health_systems h ON h.id = e.health_system_id`
    : `SELECT g.*, e.full_name AS name, e.npi, e.city, e.state, e.zip_code, e.latitude, e.longitude, e.address,
              e.provider_kind AS kind, ef.name AS parent_name, NULL::text AS healthsystem_id, e.title, e.cms_specialization AS specialization,
              ef.name AS facility_name
       FROM g JOIN providers e ON e.npi = g.key LEFT JOIN facilities ef ON ef.id = e.facility_id`
  const { rows } = await pool.query<Record<string, unknown>>(
    `WITH g AS (
       SELECT ${group} AS key, ${METRICS_SQL} FROM ${from} ${whereSql(where)} GROUP BY ${group}
     ), e AS (${entity})
     SELECT e.*, e.key::text AS id, (percent_rank() OVER (ORDER BY e.patients) * 100)::float8 AS opportunity, count(*) OVER ()::int AS total
     FROM e ORDER BY ${order} LIMIT ${params.add(q.pageSize)} OFFSET ${params.add(q.page * q.pageSize)}`,
    params.values,
  )
  let total = Number(rows[0]?.total ?? 0)
  if (rows.length === 0 && q.page > 0) {
    const count = await pool.query<{ n: number }>(
      `SELECT count(DISTINCT ${group})::int AS n FROM ${from} ${whereSql(where)}`,
      params.values.slice(0, -2),
    )
    total = count.rows[0]?.n ?? 0
  }
  return {
    total,
    rows: rows.map((row) => toRow(row as Parameters<typeof toRow>[0], toMetrics(row), Number(row.opportunity))),
  }
}

describe('Atlas API', () => {
  const ctx = useTestApp({}, { dataset: true })
  const tokens = {} as Record<Tier, string>
  let noAtlas: string
  let member: string
  let metered: string
  let meteredCompany: number

  beforeAll(async () => {
    for (const tier of TIERS) {
      const { company, users } = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'ATLAS' }] })
      await ctx.db.pool.query(`UPDATE companies SET plan_tier = $2 WHERE id = $1`, [company.id, tier])
      tokens[tier] = await loginTokenFor(users[0]!, company.company_name)
    }
    const other = await createTenant(ctx.db, { roles: ['user', 'member'], products: [{ product_group: 'CARE_SELECT' }] })
    noAtlas = await loginTokenFor(other.users[0]!, other.company.company_name)
    member = await loginTokenFor(other.users[1]!, other.company.company_name)
    const limited = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'ATLAS', limit: 3 }] })
    metered = await loginTokenFor(limited.users[0]!, limited.company.company_name)
    meteredCompany = limited.company.id
    // the in-process indexes of the data version (docs/decisions/0043) answer every count below
    await currentClaimIndex(ctx.app.db.pool, await dataVersion(ctx.app.db.pool), true)
  })

  const get = (path: string, query: Record<string, string | number | boolean> = {}, token: string | null = tokens.ENTERPRISE) => {
    const call = request(ctx.app.server).get(`/api${path}`).query(query)
    return token ? call.set('Authorization', `Bearer ${token}`) : call
  }
  const generic = async (query: Record<string, string | number | boolean>, token = tokens.ENTERPRISE): Promise<Generic> => {
    const response = await get('/atlas/generic', query, token)
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200)
    return response.body as Generic
  }
  const drill = async (body: Record<string, unknown>, token = tokens.ENTERPRISE): Promise<Drilldown> => {
    const response = await request(ctx.app.server).post('/api/atlas/drilldown').set('Authorization', `Bearer ${token}`).send(body)
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200)
    return response.body as Drilldown
  }
  const sql = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) =>
    (await ctx.db.pool.query(text, values)).rows as T[]
  const one = async <T>(text: string, values: unknown[] = []) => {
    const [row] = await sql<T>(text, values)
    expect(row).toBeDefined()
    return row as T
  }

  /** Distinct patients by state over claims and diagnoses, with optional extra conditions on p (patients). */
  const recountByState = async (codes: string[], extra = 'true', values: unknown[] = []) => {
    const rows = await sql<{ state: string; n: number }>(
      `SELECT p.state, count(DISTINCT p.id)::int AS n FROM patients p JOIN claims c ON c.patient_id = p.id
       JOIN claim_diagnoses d ON d.claim_id = c.id WHERE ${codes.length > 0 ? likeAny(codes) : 'true'} AND ${extra} GROUP BY p.state`,
      values,
    )
    return new Map(rows.map((r) => [r.state, r.n]))
  }
  const valuesOf = (body: Generic) => new Map(body.geojson.features.map((f) => [f.properties.id, f.properties.value]))
  const nonZero = (map: Map<string, number>) => new Map([...map].filter(([, n]) => n > 0))

  describe('GET /atlas/generic', () => {
    it('counts distinct patients by state for a union of codes, as an independent recount over the claims', async () => {
      const body = await generic({
        icd10_cm_union_csv: 'E11,I10',
        tile_granularity: 'STATE',
        search_within_region: 'US',
        search_within_region_type: 'COUNTRY',
      })
      const expected = await recountByState(['E11', 'I10'])
      expect(expected.size).toBeGreaterThan(5)
      expect(nonZero(valuesOf(body))).toEqual(expected)
      expect(body.summary.total_patients).toBe([...expected.values()].reduce((a, b) => a + b, 0))
      expect(body.geojson.type).toBe('FeatureCollection')
      const [first] = body.geojson.features
      expect(['Polygon', 'MultiPolygon']).toContain(first!.geometry.type)
      expect(first!.properties).toMatchObject({
        entity_type: 'STATE',
        primary_metric: 'patient_count',
        has_marker: false,
        code: first!.properties.id,
      })
      for (const key of [
        'label',
        'territory_name',
        'fill',
        'fill-opacity',
        'stroke',
        'score',
        'hotspot_score',
        'metrics',
        'additional_metadata',
      ]) {
        expect(first!.properties, key).toHaveProperty(key)
      }
    })

    it('matches sub-codes by prefix (E11 ⊇ E11.9), takes codes without the dot, and unions without double counting', async () => {
      const category = await generic({ icd10_cm_union_csv: 'E11', search_within_region: 'US' })
      const billable = await generic({ icd10_cm_union_csv: 'E119', search_within_region: 'US' })
      const dotted = await generic({ icd10_cm_union_csv: 'e11.9', search_within_region: 'US' })
      expect(billable.summary.codes).toEqual(['E11.9'])
      expect(valuesOf(billable)).toEqual(valuesOf(dotted))
      expect(nonZero(valuesOf(billable))).toEqual(await recountByState(['E11.9']))
      expect(category.summary.total_patients).toBeGreaterThanOrEqual(billable.summary.total_patients)
      expect(nonZero(valuesOf(category))).toEqual(await recountByState(['E11']))
      const overlapping = await generic({ icd10_cm_union_csv: 'E11,E11.9', search_within_region: 'US' })
      expect(overlapping.summary.total_patients).toBe(category.summary.total_patients)
    })

    it('filters by gender and age', async () => {
      const body = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US', gender: 'F', min_age: 40, max_age: 70 })
      const expected = await recountByState(['I10'], `p.gender = 'F' AND p.age BETWEEN 40 AND 70`)
      expect(expected.size).toBeGreaterThan(0)
      expect(nonZero(valuesOf(body))).toEqual(expected)
      const men = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US', gender: 'M', min_age: 40, max_age: 70 })
      expect(nonZero(valuesOf(men))).toEqual(await recountByState(['I10'], `p.gender = 'M' AND p.age BETWEEN 40 AND 70`))
    })

    it('counts every condition when no code is given', async () => {
      const body = await generic({ search_within_region: 'US' })
      expect(body.summary.codes).toEqual([])
      expect(nonZero(valuesOf(body))).toEqual(await recountByState([]))
    })

    it('computes the legend from the data and colours each region by its class', async () => {
      const body = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US' })
      const values = body.geojson.features.map((f) => f.properties.value)
      const legend = body.choropleth_legend
      expect(legend.type).toBe('GRADIENT')
      expect(legend.min_value).toBe(Math.min(...values))
      expect(legend.max_value).toBe(Math.max(...values))
      expect(legend.items[0]!.min_value).toBe(legend.min_value)
      expect(legend.items.at(-1)!.max_value).toBe(legend.max_value)
      for (const feature of body.geojson.features) {
        const item = legend.items.find((i) => feature.properties.value >= i.min_value && feature.properties.value <= i.max_value)
        expect(item?.color, feature.properties.id).toBe(feature.properties.fill)
      }
    })

    it('adds census population and prevalence per 100,000 when asked', async () => {
      const body = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US', include_census_data: true })
      const populations = new Map(
        (await sql<{ abbr: string; population: number | null }>('SELECT abbr, population FROM states')).map((r) => [r.abbr, r.population]),
      )
      let checked = 0
      for (const feature of body.geojson.features) {
        const population = populations.get(feature.properties.id) ?? null
        expect(feature.properties.population).toBe(population)
        if (population) {
          expect(feature.properties.prevalence_per_100k).toBeCloseTo((feature.properties.value / population) * 100_000, 2)
          checked += 1
        }
      }
      expect(checked).toBeGreaterThan(40)
      const without = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US' })
      expect(without.geojson.features[0]!.properties.population).toBeNull()
    })

    it('scores hotspots with Gi* over touching states (the neighbours recomputed with ST_Touches)', async () => {
      const body = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US', include_census_data: true })
      const features = body.geojson.features
      const index = new Map(features.map((f, i) => [f.properties.id, i]))
      const pairs = await sql<{ a: string; b: string }>(
        `SELECT a.abbr AS a, b.abbr AS b FROM states a JOIN states b ON a.abbr <> b.abbr AND a.geom && b.geom
         WHERE ST_Touches(ST_MakeValid(a.geom), ST_MakeValid(b.geom))`,
      )
      const neighbours = features.map(() => [] as number[])
      for (const { a, b } of pairs) if (index.has(a) && index.has(b)) neighbours[index.get(a)!]!.push(index.get(b)!)
      expect(neighbours[index.get('TN')!]!.length).toBe(8)
      // Gi* runs over the states with a census population (prevalence), the others have no score
      const populations = new Map(
        (await sql<{ abbr: string; population: number | null }>('SELECT abbr, population FROM states')).map((r) => [r.abbr, r.population]),
      )
      const members = features.map((_, i) => i).filter((i) => (populations.get(features[i]!.properties.id) ?? 0) > 0)
      expect(members.length).toBeGreaterThan(40)
      const position = new Map(members.map((i, k) => [i, k]))
      const rates = members.map((i) => (features[i]!.properties.value / populations.get(features[i]!.properties.id)!) * 100_000)
      const expected = getisOrdGiStar(
        rates,
        members.map((i) => neighbours[i]!.filter((j) => position.has(j)).map((j) => position.get(j)!)),
      )
      features.forEach((f, i) => {
        const k = position.get(i)
        if (k === undefined) expect(f.properties.hotspot_score, f.properties.id).toBeNull()
        else expect(f.properties.hotspot_score as number, f.properties.id).toBeCloseTo(expected[k]!, 3)
      })
    })

    it('scores ZIP areas with Gi* over the ZIP areas within the band (pairs recomputed with ST_DWithin), whichever scope read them first', async () => {
      const { zip } = await one<{ zip: string }>(`SELECT zip_code AS zip FROM patients GROUP BY zip_code ORDER BY count(*) DESC LIMIT 1`)
      // a neighbouring ZIP's search first: the ZIP areas the two scopes share are read once and kept
      const { other } = await one<{ other: string }>(
        `SELECT b.zip AS other FROM zips a JOIN zips b ON b.is_zcta AND b.zip <> a.zip AND ST_DWithin(a.geog, b.geog, 20000)
         WHERE a.zip = $1 ORDER BY b.zip LIMIT 1`,
        [zip],
      )
      const search = (centre: string) =>
        generic({
          icd10_cm_union_csv: 'I10',
          tile_granularity: 'ZIP_CODE_50KM',
          search_within_region: centre,
          search_within_region_type: 'ZIP_CODE_50KM',
        })
      await search(other)
      const features = (await search(zip)).geojson.features
      expect(features.length).toBeGreaterThan(3)
      const index = new Map(features.map((f, i) => [f.properties.id, i]))
      const pairs = await sql<{ a: string; b: string }>(
        `SELECT a.zip AS a, b.zip AS b FROM zips a JOIN zips b ON a.zip <> b.zip AND ST_DWithin(a.geog, b.geog, $2)
         WHERE a.zip = ANY($1::text[]) AND b.zip = ANY($1::text[]) ORDER BY a.zip, b.zip`,
        [[...index.keys()], ATLAS_ZIP_NEIGHBOUR_BAND_M],
      )
      const neighbours = features.map(() => [] as number[])
      for (const { a, b } of pairs) neighbours[index.get(a)!]!.push(index.get(b)!)
      expect(neighbours.some((list) => list.length > 0)).toBe(true)
      // ZIP areas carry no census population: Gi* runs over the counts of every ZIP area in the scope
      const expected = getisOrdGiStar(
        features.map((f) => f.properties.value),
        neighbours,
      )
      features.forEach((f, i) => expect(f.properties.hotspot_score as number, f.properties.id).toBeCloseTo(expected[i]!, 3))
    })

    it('aggregates by county within a state and by ZIP area within 50 km of a ZIP', async () => {
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY state ORDER BY count(*) DESC LIMIT 1`)
      const counties = await generic({
        icd10_cm_union_csv: 'I10',
        tile_granularity: 'COUNTY',
        search_within_region: state,
        search_within_region_type: 'STATE',
      })
      const expected = await sql<{ county_fips: string; n: number }>(
        `SELECT p.county_fips, count(DISTINCT p.id)::int AS n FROM patients p JOIN claims c ON c.patient_id = p.id JOIN claim_diagnoses d ON d.claim_id = c.id
         WHERE d.icd10_code LIKE 'I10%' AND p.state = $1 AND p.county_fips IS NOT NULL GROUP BY 1`,
        [state],
      )
      expect(expected.length).toBeGreaterThan(0)
      expect(nonZero(valuesOf(counties))).toEqual(new Map(expected.map((r) => [r.county_fips, r.n])))
      expect(counties.geojson.features.every((f) => f.properties.entity_type === 'COUNTY')).toBe(true)

      const { zip } = await one<{ zip: string }>(`SELECT zip_code AS zip FROM patients GROUP BY zip_code ORDER BY count(*) DESC LIMIT 1`)
      const zips = await generic({
        icd10_cm_union_csv: 'I10',
        tile_granularity: 'ZIP_CODE_50KM',
        search_within_region: zip,
        search_within_region_type: 'ZIP_CODE_50KM',
      })
      const inRange = await sql<{ zip_code: string; n: number }>(
        `SELECT p.zip_code, count(DISTINCT p.id)::int AS n FROM patients p JOIN claims c ON c.patient_id = p.id JOIN claim_diagnoses d ON d.claim_id = c.id
         JOIN zips z ON z.zip = p.zip_code JOIN zips centre ON centre.zip = $1
         WHERE d.icd10_code LIKE 'I10%' AND ST_Distance(z.geog, centre.geog) <= 50000 GROUP BY 1`,
        [zip],
      )
      expect(inRange.length).toBeGreaterThan(0)
      expect(nonZero(valuesOf(zips))).toEqual(new Map(inRange.map((r) => [r.zip_code, r.n])))
      expect(zips.geojson.features[0]!.geometry.type).toBe('Point')
    })

    it('adds facility points with their patients when include_hco_points is set', async () => {
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY state ORDER BY count(*) DESC LIMIT 1`)
      const body = await generic({
        icd10_cm_union_csv: 'I10',
        search_within_region: state,
        search_within_region_type: 'STATE',
        include_hco_points: true,
      })
      const points = body.geojson.features.filter((f) => f.properties.has_marker)
      expect(points.length).toBeGreaterThan(0)
      const expected = await sql<{ id: string; n: number }>(
        `SELECT c.facility_id::text AS id, count(DISTINCT c.patient_id)::int AS n FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id
         JOIN facilities f ON f.id = c.facility_id WHERE d.icd10_code LIKE 'I10%' AND f.state = $1 GROUP BY 1`,
        [state],
      )
      const byId = new Map(expected.map((r) => [r.id, r.n]))
      for (const point of points) expect(point.properties.value, point.properties.id).toBe(byId.get(point.properties.id))
      expect(points.every((p) => p.geometry.type === 'Point' && p.properties.entity_type === 'FACILITY')).toBe(true)
    })

    it('refuses bad input with a 400 in the envelope', async () => {
      const cases: [Record<string, string | number>, string][] = [
        [{ icd10_cm_union_csv: 'E11,not-a-code' }, 'Invalid ICD-10-CM code: not-a-code'],
        [{ search_within_region: 'ZZ', search_within_region_type: 'STATE' }, 'Unknown state: ZZ'],
        [{ search_within_region: '1234', search_within_region_type: 'ZIP_CODE_50KM' }, 'Please enter a valid 5-digit ZIP code'],
        [{ min_age: 60, max_age: 20 }, 'min_age must not be greater than max_age'],
      ]
      for (const [query, message] of cases) {
        const response = await get('/atlas/generic', query)
        expect(response.status, message).toBe(400)
        expect(response.body).toMatchObject({ message, status: 400 })
      }
      const badEnum = await get('/atlas/generic', { tile_granularity: 'PLANET' })
      expect(badEnum.status).toBe(400)
      expect(badEnum.body.code).toBe('VALIDATION_ERROR')
    })
  })

  describe('POST /atlas/drilldown', () => {
    it('COUNTRY: one CountryInsight whose numbers recount from the claims, payer mix summing to the patients', async () => {
      const body = await drill({ drilldown_type: 'COUNTRY', icd10_cm_union_csv: 'E11,I10', include_payer_mix: true, page: 0, page_size: 1 })
      expect(body.page_results.results).toHaveLength(1)
      const [country] = body.page_results.results
      expect(country!.entity_type).toBe('CountryInsight')
      const [expected] = await sql<Record<string, number>>(
        `SELECT count(DISTINCT c.patient_id)::int AS patients, count(DISTINCT c.id)::int AS claims, count(DISTINCT c.rendering_npi)::int AS providers,
                count(DISTINCT c.facility_id)::int AS facilities, count(DISTINCT f.health_system_id)::int AS systems, count(DISTINCT p.state)::int AS states,
                count(DISTINCT c.patient_id) FILTER (WHERE p.payer_type = 'medicare')::int AS medicare
         FROM claims c JOIN patients p ON p.id = c.patient_id LEFT JOIN facilities f ON f.id = c.facility_id
         WHERE EXISTS (SELECT 1 FROM claim_diagnoses d WHERE d.claim_id = c.id AND ${likeAny(['E11', 'I10'])})`,
      )
      expect(expected!.patients).toBeGreaterThan(0)
      expect(metricOf(country!, 'patient_count')).toBe(expected!.patients)
      expect(metricOf(country!, 'claim_count')).toBe(expected!.claims)
      expect(metricOf(country!, 'provider_count')).toBe(expected!.providers)
      expect(metricOf(country!, 'facility_count')).toBe(expected!.facilities)
      expect(metricOf(country!, 'health_system_count')).toBe(expected!.systems)
      expect(metricOf(country!, 'state_count')).toBe(expected!.states)
      expect(metricOf(country!, 'medicare_patients')).toBe(expected!.medicare)
      const payers = ['commercial', 'medicare', 'medicaid', 'other'].map((p) => metricOf(country!, `${p}_patients`) as number)
      expect(payers.reduce((a, b) => a + b, 0)).toBe(expected!.patients)
      const shares = ['commercial', 'medicare', 'medicaid', 'other'].map((p) => metricOf(country!, `${p}_percent`) as number)
      expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3)
      const generic_ = await generic({ icd10_cm_union_csv: 'E11,I10', search_within_region: 'US' })
      expect(generic_.summary.total_patients).toBe(expected!.patients)
    })

    it('STATE pages counted for their states only (ordered by patients) and in full (ordered by claims) match the recount', async () => {
      const recount = await sql<{
        state: string
        patients: number
        claims: number
        providers: number
        facilities: number
        systems: number
      }>(
        `SELECT p.state, count(DISTINCT p.id)::int AS patients, count(DISTINCT c.id)::int AS claims,
                count(DISTINCT c.rendering_npi)::int AS providers, count(DISTINCT c.facility_id)::int AS facilities,
                count(DISTINCT f.health_system_id)::int AS systems
         FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id JOIN patients p ON p.id = c.patient_id
         LEFT JOIN facilities f ON f.id = c.facility_id
         WHERE ${likeAny(['E11', 'I10'])} AND p.gender = 'F' GROUP BY p.state`,
      )
      const expected = new Map(recount.map((r) => [r.state, [r.patients, r.claims, r.providers, r.facilities, r.systems]]))
      const shown = (r: Insight) =>
        ['patient_count', 'claim_count', 'provider_count', 'facility_count', 'health_system_count'].map((code) => metricOf(r, code))
      for (const sort of ['patient_count', 'claim_count'] as const) {
        const seen = new Map<string, unknown[]>()
        for (let page = 0; page * 7 < expected.size; page++) {
          const body = await drill({
            drilldown_type: 'STATE',
            icd10_cm_union_csv: 'E11,I10',
            gender: 'F',
            page,
            page_size: 7,
            sort_input: { code: sort, sort_direction: 'DESC' },
            _bypass_cache: true,
          })
          expect(body.page_results.total_results).toBe(expected.size)
          for (const r of body.page_results.results) seen.set(r.citrus_id, shown(r))
          const keys = body.page_results.results.map((r) => metricOf(r, sort) as number)
          expect(keys).toEqual([...keys].sort((a, b) => b - a))
        }
        expect(seen).toEqual(expected)
      }
    })

    it('STATE: a row per state matching the recount, sorted by state ascending, paged', async () => {
      const body = await drill({
        drilldown_type: 'STATE',
        icd10_cm_union_csv: 'I10',
        page: 0,
        page_size: 100,
        sort_input: { code: 'state', sort_direction: 'ASC' },
      })
      const expected = await recountByState(['I10'])
      const results = body.page_results.results
      expect(new Map(results.map((r) => [r.citrus_id, metricOf(r, 'patient_count')]))).toEqual(expected)
      const names = results.map((r) => r.display_name)
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)))
      expect(body.page_results.total_results).toBe(expected.size)
      const second = await drill({
        drilldown_type: 'STATE',
        icd10_cm_union_csv: 'I10',
        page: 1,
        page_size: 5,
        sort_input: { code: 'patient_count', sort_direction: 'DESC' },
      })
      const byPatients = [...expected].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      expect(second.page_results.results.map((r) => metricOf(r, 'patient_count'))).toEqual(byPatients.slice(5, 10).map(([, n]) => n))
      expect(second.page_results.total_pages).toBe(Math.ceil(expected.size / 5))
      for (const r of results) {
        const payers = ['commercial', 'medicare', 'medicaid', 'other'].map((p) => metricOf(r, `${p}_patients`) as number)
        expect(payers.reduce((a, b) => a + b, 0)).toBe(metricOf(r, 'patient_count'))
      }
    })

    it('FACILITY: facilities of a state with their distinct patients, sorted by patients, paged', async () => {
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY state ORDER BY count(*) DESC LIMIT 1`)
      const geo = {
        code: 'region',
        filter_value: { filter_value_kind: 'GEO_WITHIN_REGION', region_level: 'STATE', search_within_region: state },
      }
      const body = await drill({ drilldown_type: 'FACILITY', icd10_cm_union_csv: 'I10', geo_filter_input: geo, page: 0, page_size: 500 })
      const expected = await sql<{ id: string; n: number }>(
        `SELECT c.facility_id::text AS id, count(DISTINCT c.patient_id)::int AS n FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id
         JOIN facilities f ON f.id = c.facility_id WHERE d.icd10_code LIKE 'I10%' AND f.state = $1 GROUP BY 1`,
        [state],
      )
      expect(expected.length).toBeGreaterThan(0)
      const results = body.page_results.results
      expect(new Map(results.map((r) => [r.citrus_id, metricOf(r, 'patient_count')]))).toEqual(new Map(expected.map((r) => [r.id, r.n])))
      const counts = results.map((r) => metricOf(r, 'patient_count') as number)
      expect(counts).toEqual([...counts].sort((a, b) => b - a))
      expect(results[0]!.entity_type).toBe('FACILITY')
      expect(results[0]!.zip_code).toMatch(/^\d{5}$/)
      const paged = await drill({ drilldown_type: 'FACILITY', icd10_cm_union_csv: 'I10', geo_filter_input: geo, page: 1, page_size: 2 })
      expect(paged.page_results.results.map((r) => r.citrus_id)).toEqual(results.slice(2, 4).map((r) => r.citrus_id))
      expect(paged.page_results.total_results).toBe(expected.length)
    })

    it("PROVIDER: clinicians practising within 50 km of a facility's ZIP, with their patients", async () => {
      const { zip } = await one<{ zip: string }>(
        `SELECT pr.zip_code AS zip FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id JOIN providers pr ON pr.npi = c.rendering_npi
         WHERE d.icd10_code LIKE 'I10%' GROUP BY pr.zip_code ORDER BY count(*) DESC, pr.zip_code LIMIT 1`,
      )
      const geo = {
        code: 'region',
        filter_value: {
          filter_value_kind: 'GEO_WITHIN_REGION',
          region_level: 'ZIP_CODE_50KM',
          search_within_region: zip,
          granularity: 'ZIP_CODE_50KM',
        },
      }
      const body = await drill({ drilldown_type: 'PROVIDER', icd10_cm_union_csv: 'I10', geo_filter_input: geo, page: 0, page_size: 500 })
      const expected = await sql<{ npi: string; n: number }>(
        `SELECT c.rendering_npi AS npi, count(DISTINCT c.patient_id)::int AS n FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id
         JOIN providers pr ON pr.npi = c.rendering_npi JOIN zips z ON z.zip = pr.zip_code JOIN zips centre ON centre.zip = $1
         WHERE d.icd10_code LIKE 'I10%' AND ST_Distance(z.geog, centre.geog) <= 50000 GROUP BY 1`,
        [zip],
      )
      expect(expected.length).toBeGreaterThan(0)
      const results = body.page_results.results
      expect(new Map(results.map((r) => [(r as unknown as { entity: { npi: string } }).entity.npi, metricOf(r, 'patient_count')]))).toEqual(
        new Map(expected.map((r) => [r.npi, r.n])),
      )
      expect(results.every((r) => r.entity_type === 'PROVIDER')).toBe(true)
    })

    it('refuses an unknown facility filter with 404 and a bad body with 400', async () => {
      const response = await request(ctx.app.server)
        .post('/api/atlas/drilldown')
        .set('Authorization', `Bearer ${tokens.ENTERPRISE}`)
        .send({ drilldown_type: 'PROVIDER', filter_inputs: [{ code: 'facility_npi', filter_value: '0000000000' }] })
      expect(response.status).toBe(404)
      const bad = await request(ctx.app.server)
        .post('/api/atlas/drilldown')
        .set('Authorization', `Bearer ${tokens.ENTERPRISE}`)
        .send({ drilldown_type: 'GALAXY' })
      expect(bad.status).toBe(400)
    })
  })

  describe('plan tiers (docs/decisions/0033)', () => {
    const zipQuery = async () => {
      const { zip } = await one<{ zip: string }>(`SELECT zip_code AS zip FROM patients LIMIT 1`)
      return {
        icd10_cm_union_csv: 'I10',
        search_within_region: zip,
        search_within_region_type: 'ZIP_CODE_50KM',
        tile_granularity: 'ZIP_CODE_50KM',
      }
    }
    const status = async (tier: Tier, call: 'zip' | 'facility' | 'provider' | 'csv' | 'hco' | 'hospitalList') => {
      const token = tokens[tier]
      switch (call) {
        case 'zip':
          return (await get('/atlas/generic', await zipQuery(), token)).status
        case 'hco':
          return (await get('/atlas/generic', { icd10_cm_union_csv: 'I10', search_within_region: 'US', include_hco_points: true }, token))
            .status
        case 'facility':
        case 'provider':
          return (
            await request(ctx.app.server)
              .post('/api/atlas/drilldown')
              .set('Authorization', `Bearer ${token}`)
              .send({ drilldown_type: call === 'facility' ? 'FACILITY' : 'PROVIDER', icd10_cm_union_csv: 'I10', page_size: 5 })
          ).status
        case 'csv':
          return (await get('/atlas-v2/list/conditions/1', { icd10_cm_union_csv: 'I10', format: 'csv' }, token)).status
        case 'hospitalList':
          return (await get('/atlas-v2/list/conditions/1', { icd10_cm_union_csv: 'I10', kind: 'hospital', state: 'TX' }, token)).status
      }
    }
    const expectations: Record<Tier, Record<'zip' | 'facility' | 'provider' | 'csv' | 'hco' | 'hospitalList', number>> = {
      BASE: { zip: 403, facility: 403, provider: 403, csv: 403, hco: 403, hospitalList: 403 },
      BUSINESS: { zip: 200, facility: 403, provider: 403, csv: 403, hco: 403, hospitalList: 403 },
      BUSINESS_PLUS: { zip: 200, facility: 200, provider: 200, csv: 200, hco: 200, hospitalList: 200 },
      ENTERPRISE: { zip: 200, facility: 200, provider: 200, csv: 200, hco: 200, hospitalList: 200 },
    }
    for (const tier of TIERS) {
      it(`${tier}: refuses what it locks and withholds the score below Enterprise`, async () => {
        for (const [call, expected] of Object.entries(expectations[tier])) {
          expect(await status(tier, call as keyof (typeof expectations)[Tier]), `${tier} ${call}`).toBe(expected)
        }
        const body = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US' }, tokens[tier])
        const scores = body.geojson.features.map((f) => f.properties.hotspot_score)
        if (tier === 'ENTERPRISE') expect(scores.some((s) => typeof s === 'number')).toBe(true)
        else expect(scores.every((s) => s === null)).toBe(true)
        const home = await get('/atlas/', {}, tokens[tier])
        expect(home.body.plan_tier).toBe(tier)
        expect(home.body.features.score.unlocked).toBe(tier === 'ENTERPRISE')
        // the patient index's size once built (the generic call above built it), recounted
        expect(home.body.data.patients).toBe((await one<{ n: number }>('SELECT count(*)::int AS n FROM patients')).n)
      })
    }

    it('says which tier a refusal needs', async () => {
      const response = await request(ctx.app.server)
        .post('/api/atlas/drilldown')
        .set('Authorization', `Bearer ${tokens.BUSINESS}`)
        .send({ drilldown_type: 'FACILITY' })
      expect(response.body).toEqual({
        message: 'Business+ subscription required to view facilities and hospitals',
        code: 'PLAN_TIER_REQUIRED',
        status: 403,
      })
      const csv = await get('/atlas-v2/list/conditions/1', { format: 'csv' }, tokens.BASE)
      expect(csv.body.message).toBe('Upgrade to Business+ to export data to CSV')
      const zip = await get('/atlas/generic', await zipQuery(), tokens.BASE)
      expect(zip.body.message).toBe('Business subscription required to search custom ZIP codes')
    })
  })

  describe('the other calls', () => {
    it('GET /atlas-v2/list/{use_case}/{page}: state rows recounted, pages of 10/25/50/100, CSV with every row', async () => {
      const body = (
        await get('/atlas-v2/list/conditions/1', { icd10_cm_union_csv: 'I10', page_size: 10, sort: 'patients', direction: 'desc' })
      ).body
      const expected = await recountByState(['I10'])
      expect(body.total_rows).toBe(expected.size)
      expect(body.rows).toHaveLength(Math.min(10, expected.size))
      for (const row of body.rows) expect(row.patients, row.state).toBe(expected.get(row.state))
      const patients = body.rows.map((r: { patients: number }) => r.patients)
      expect(patients).toEqual([...patients].sort((a: number, b: number) => b - a))
      expect((await get('/atlas-v2/list/conditions/1', { page_size: 7 })).status).toBe(400)
      expect((await get('/atlas-v2/list/unknown/1', {})).status).toBe(404)
      const csv = await get('/atlas-v2/list/conditions/1', { icd10_cm_union_csv: 'I10', format: 'csv' })
      expect(csv.headers['content-type']).toMatch(/^text\/csv/)
      expect(csv.headers['content-disposition']).toMatch(/atlas-state-data-\d{4}-\d{2}-\d{2}\.csv/)
      const lines = csv.text.trim().split(/\r\n/)
      expect(lines[0]).toBe('State,Patients,%Commercial,%Medicare,%Medicaid,HCPs,Score')
      expect(lines).toHaveLength(expected.size + 1)
    })

    it('GET /atlas-v2/heatmap/{use_case}/: weighted cells whose patients recount', async () => {
      const body = (await get('/atlas-v2/heatmap/conditions/', { icd10_cm_union_csv: 'I10', tile_granularity: 'STATE' })).body
      const expected = await recountByState(['I10'])
      expect(new Map(body.cells.map((c: { id: string; patients: number }) => [c.id, c.patients]))).toEqual(expected)
      expect(body.max_patients).toBe(Math.max(...expected.values()))
      expect(Math.max(...body.cells.map((c: { weight: number }) => c.weight))).toBe(1)
    })
  })

  describe('GET /atlas/tiles/{z}/{x}/{y}.mvt', () => {
    const decode = (buffer: Buffer) => new VectorTile(new PbfReader(buffer))
    const fetchTile = async (path: string, query: Record<string, string | number | boolean>) => {
      const response = await get(path, query)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => done(null, Buffer.concat(chunks)))
        })
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe('application/vnd.mapbox-vector-tile')
      return decode(response.body as Buffer)
    }

    it('decodes to the regions of the tile with their patients (z4 tile over Texas)', async () => {
      const body = await generic({ icd10_cm_union_csv: 'I10', search_within_region: 'US' })
      const tile = await fetchTile('/atlas/tiles/4/3/6.mvt', { icd10_cm_union_csv: 'I10', search_within_region: 'US' })
      const layer = tile.layers.regions!
      expect(layer).toBeDefined()
      expect(layer.extent).toBe(4096)
      const values = valuesOf(body)
      const seen = new Map<string, number>()
      for (let i = 0; i < layer.length; i += 1) {
        const feature = layer.feature(i)
        seen.set(String(feature.properties.id), Number(feature.properties.value))
        expect(feature.type).toBe(3)
        expect(feature.properties.fill).toMatch(/^#/)
      }
      expect(seen.has('TX')).toBe(true)
      expect(seen.has('NY')).toBe(false)
      for (const [id, value] of seen) expect(value, id).toBe(values.get(id))
      const geometry = layer.feature([...seen.keys()].indexOf('TX')).loadGeometry()
      expect(geometry.flat().length).toBeGreaterThan(10)
    })

    it('serves county polygons and refuses coordinates outside the zoom level', async () => {
      const tile = await fetchTile('/atlas/tiles/5/7/12.mvt', { icd10_cm_union_csv: 'I10', tile_granularity: 'COUNTY' })
      expect(tile.layers.regions!.length).toBeGreaterThan(20)
      const outside = await get('/atlas/tiles/2/9/1.mvt', {})
      expect(outside.status).toBe(400)
      expect(outside.body.message).toBe('Tile coordinates are out of range')
    })
  })

  describe('access', () => {
    it('needs a signed-in caller with the ATLAS product; members are refused', async () => {
      expect((await get('/atlas/generic', {}, null)).status).toBe(401)
      const denied = await get('/atlas/generic', {}, noAtlas)
      expect(denied.status).toBe(403)
      expect((await get('/atlas/generic', {}, member)).status).toBe(403)
    })

    it('meters every call against ATLAS and refuses when the credits are spent', async () => {
      const first = await get('/atlas/generic', { icd10_cm_union_csv: 'I10' }, metered)
      expect(first.status).toBe(200)
      expect(first.headers['x-credits-remaining']).toBe('2')
      await get('/atlas/', {}, metered)
      await request(ctx.app.server)
        .post('/api/atlas/drilldown')
        .set('Authorization', `Bearer ${metered}`)
        .send({ drilldown_type: 'COUNTRY' })
      const spent = await get('/atlas/generic', {}, metered)
      expect(spent.status).toBe(402)
      const { n } = await one<{ n: number }>(
        `SELECT coalesce(sum(used), 0)::int AS n FROM credit_usage WHERE company_id = $1 AND product_group = 'ATLAS'`,
        [meteredCompany],
      )
      expect(n).toBe(3)
    })

    it('works with an API key and with a link token only for the endpoints the link lists', async () => {
      const key = await request(ctx.app.server)
        .post('/api/admin/api-token')
        .set('Authorization', `Bearer ${tokens.ENTERPRISE}`)
        .send({ name: 'atlas test' })
      expect(key.status, JSON.stringify(key.body)).toBe(200)
      const byKey = await get('/atlas/generic', { icd10_cm_union_csv: 'I10' }, key.body.token as string)
      expect(byKey.status).toBe(200)
      const link = await request(ctx.app.server)
        .post('/api/shareable-url')
        .set('Authorization', `Bearer ${tokens.ENTERPRISE}`)
        .send({ url_type: 'public', client_routes: ['/atlas/generic/results'], api_endpoints: ['GET /atlas/generic'] })
      expect(link.status, JSON.stringify(link.body)).toBe(200)
      const linkToken = new URL(link.body.url as string, 'http://x').searchParams.get('token')!
      const allowed = await request(ctx.app.server).get('/api/atlas/generic').query({ token: linkToken, icd10_cm_union_csv: 'I10' })
      expect(allowed.status).toBe(200)
      const refused = await request(ctx.app.server)
        .post(`/api/atlas/drilldown?token=${encodeURIComponent(linkToken)}`)
        .send({ drilldown_type: 'COUNTRY' })
      expect(refused.status).toBe(403)
      // a link that lists the tile path (a placeholder with the .mvt suffix) fetches tiles and nothing else
      const tileLink = await request(ctx.app.server)
        .post('/api/shareable-url')
        .set('Authorization', `Bearer ${tokens.ENTERPRISE}`)
        .send({ url_type: 'public', client_routes: ['/atlas/generic/results'], api_endpoints: ['GET /atlas/tiles/{z}/{x}/{y}.mvt'] })
      expect(tileLink.status, JSON.stringify(tileLink.body)).toBe(200)
      const tileToken = new URL(tileLink.body.url as string, 'http://x').searchParams.get('token')!
      const tile = await request(ctx.app.server).get('/api/atlas/tiles/4/3/6.mvt').query({ token: tileToken, icd10_cm_union_csv: 'I10' })
      expect(tile.status).toBe(200)
      expect(tile.headers['content-type']).toBe('application/vnd.mapbox-vector-tile')
      const notTiles = await request(ctx.app.server).get('/api/atlas/generic').query({ token: tileToken, icd10_cm_union_csv: 'I10' })
      expect(notTiles.status).toBe(403)
    })

    it('a signed-in call takes the data version read with its login principal: no version statement of its own (0051)', async () => {
      const versionReads = async (run: () => Promise<void>) =>
        (await statementsDuring(ctx.app.db.pool, run)).filter((sql) => sql === `SELECT ${DATA_VERSION_SQL} AS v`)
      const codes = { icd10_cm_union_csv: 'I10' }
      const signedIn = await versionReads(async () => {
        const calls = [
          get('/atlas/'),
          get('/atlas/generic', { ...codes, include_hco_points: true }),
          get('/atlas/tiles/4/3/6.mvt', codes),
          get('/atlas-v2/heatmap/conditions/', { ...codes, tile_granularity: 'STATE' }),
          get('/atlas-v2/list/conditions/1', { ...codes, page_size: 10 }),
          get('/atlas-v2/list/conditions/1', { ...codes, page_size: 10, kind: 'hospital', state: 'TX' }),
          ...(['COUNTRY', 'STATE', 'FACILITY', 'PROVIDER'] as const).map((type) =>
            request(ctx.app.server)
              .post('/api/atlas/drilldown')
              .set('Authorization', `Bearer ${tokens.ENTERPRISE}`)
              .send({ drilldown_type: type, icd10_cm_union_csv: 'I10', _bypass_cache: true }),
          ),
        ]
        for (const call of calls) expect((await call).status).toBe(200)
      })
      expect(signedIn).toEqual([])
      // the spy sees the statement where a caller reads it: a guest of a link reads it once per call
      const link = await request(ctx.app.server)
        .post('/api/shareable-url')
        .set('Authorization', `Bearer ${tokens.ENTERPRISE}`)
        .send({ url_type: 'public', client_routes: ['/atlas/generic/results'], api_endpoints: ['GET /atlas/generic'] })
      const linkToken = new URL(link.body.url as string, 'http://x').searchParams.get('token')!
      const guest = await versionReads(async () => {
        const answer = await request(ctx.app.server)
          .get('/api/atlas/generic')
          .query({ token: linkToken, ...codes })
        expect(answer.status).toBe(200)
      })
      expect(guest.length).toBeGreaterThanOrEqual(1)
    })
  })
  describe('in-process indexes (docs/decisions/0043)', () => {
    const stable = (map: Map<string, unknown>) => JSON.stringify([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    const displayed = (m: GroupMetrics) => [m.patients, m.claims, m.providers, m.commercial, m.medicare, m.medicaid, m.other]

    it('count exactly what the SQL counts: every granularity, scope, code union and demographic filter', async () => {
      const pool = ctx.app.db.pool
      const version = await dataVersion(pool)
      const claimIndex = (await currentClaimIndex(pool, version, true))!
      const index = (await currentPatientIndex(pool, version, true))!
      expect(claimIndex.people).toBe(index)
      const { zip } = await one<{ zip: string }>(`SELECT zip_code AS zip FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
      const { system } = await one<{ system: number }>(
        `SELECT f.health_system_id AS system FROM claims c JOIN facilities f ON f.id = c.facility_id WHERE f.health_system_id IS NOT NULL
         GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      )
      const { facility } = await one<{ facility: number }>(
        `SELECT facility_id AS facility FROM claims WHERE facility_id IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      )
      let compared = 0
      for (const codes of ['E11,I10', 'E11.9', '', 'E11,I10,E66,J45,J44,M17,M06,N18,F32,I25', 'Z99.9']) {
        for (const demographics of [{}, { gender: 'F' as const, min_age: 18, max_age: 70 }, { gender: 'M' as const, min_age: 40 }]) {
          const filters = filtersOf({ codes, ...demographics })
          for (const [value, type] of [
            ['US', 'COUNTRY'],
            [state, 'STATE'],
            [zip, 'ZIP_CODE_50KM'],
          ] as const) {
            const scope = await resolveScope(pool, value, type)
            const filter = (await patientFilter(pool, index, filters, scope))!
            for (const granularity of ['STATE', 'COUNTY', 'ZIP_CODE_50KM'] as const) {
              const fromSql = await countByRegionSql(pool, filters, scope, granularity)
              expect(stable(regionCountsMap(countWithIndex(index, filters, filter, granularity)))).toBe(stable(fromSql))
              compared += fromSql.size
            }
            const base: DrilldownQuery = {
              type: 'STATE',
              filters,
              scope,
              facilityId: null,
              healthSystemId: null,
              state: null,
              sort: { code: 'patient_count', direction: 'DESC' },
              page: 0,
              pageSize: 7,
            }
            const drill = (q: DrilldownQuery, group: DrillQuery['group']) =>
              drillWithIndex(pool, claimIndex, {
                group,
                filters,
                scope,
                facilityId: q.facilityId,
                healthSystemId: q.healthSystemId,
                state: q.state,
              })
            const country = (await drill(base, 'COUNTRY'))[0]?.metrics
            const countrySql = await countryRowSql(pool, { ...base, type: 'COUNTRY' })
            expect(country ?? countrySql).toEqual(countrySql)
            for (const stateFilter of [null, state]) {
              const byState = new Map((await drill({ ...base, state: stateFilter }, 'STATE')).map((c) => [c.key, c.metrics]))
              expect(stable(byState)).toBe(stable(await stateRowsSql(pool, { ...base, state: stateFilter })))
            }
            for (const type of ['FACILITY', 'PROVIDER'] as const) {
              const variants: Partial<DrilldownQuery>[] = [
                { sort: { code: 'patient_count', direction: 'DESC' } },
                { sort: { code: 'claim_count', direction: 'ASC' }, page: 1 },
                { sort: { code: 'provider_count', direction: 'DESC' }, healthSystemId: system },
                { facilityId: facility, state },
                { sort: { code: 'name', direction: 'ASC' } },
                { sort: { code: 'state', direction: 'DESC' }, page: 1 },
              ]
              for (const variant of variants) {
                const q = { ...base, type, ...variant }
                const [a, b] = [await entityPage(pool, q), await entityPageSql(pool, q)]
                expect(a.total).toBe(b.total)
                expect(a.rows.map((r) => [r.id, r.name, r.opportunity, r.details, ...displayed(r.metrics)])).toEqual(
                  b.rows.map((r) => [r.id, r.name, r.opportunity, r.details, ...displayed(r.metrics)]),
                )
              }
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(1000)
    })

    it('count the same through code bitsets and postings, age bitsets and per-patient age tests, as recounted over the claims (0052)', async () => {
      const pool = ctx.app.db.pool
      const version = await dataVersion(pool)
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
      const { low, high } = await one<{ low: number; high: number }>(`SELECT min(age)::int AS low, max(age)::int AS high FROM patients`)
      // every code a bitset with age bitsets; every code postings with per-patient age tests; the default
      const variants = [
        await buildPatientIndex(pool, version, { denseShare: 0 }),
        await buildPatientIndex(pool, version, { denseShare: 2, ageBitsets: false }),
        (await currentPatientIndex(pool, version, true))!,
      ]
      expect(variants[0]!.bitsets.length).toBe(variants[0]!.codes.length)
      expect(variants[0]!.patients.length).toBe(0)
      expect(variants[1]!.bitsets.length).toBe(0)
      expect(variants[1]!.ageAtLeast).toBeNull()
      expect(variants[2]!.ageAtLeast).not.toBeNull()
      const keys = { STATE: 'p.state', COUNTY: 'p.county_fips', ZIP_CODE_50KM: 'p.zip_code' } as const
      let compared = 0
      for (const codes of ['E11,I10,E66,J45,J44,M17,M06,N18,F32,I25', 'E11.9', '']) {
        for (const demographics of [
          {},
          { gender: 'F' as const, min_age: 18, max_age: 70 },
          { min_age: low, max_age: low },
          { min_age: high },
          { max_age: low - 1 },
          { min_age: high + 1 },
          { gender: 'M' as const, max_age: high + 50 },
        ]) {
          const filters = filtersOf({ codes, ...demographics })
          for (const [value, type] of [
            ['US', 'COUNTRY'],
            [state, 'STATE'],
          ] as const) {
            const scope = await resolveScope(pool, value, type)
            const where = [filters.codes.length > 0 ? likeAny(filters.codes) : 'true']
            const values: unknown[] = []
            if (filters.gender) where.push(`p.gender = $${values.push(filters.gender)}`)
            if (filters.minAge !== null) where.push(`p.age >= $${values.push(filters.minAge)}`)
            if (filters.maxAge !== null) where.push(`p.age <= $${values.push(filters.maxAge)}`)
            if (scope.type === 'STATE') where.push(`p.state = $${values.push(scope.state)}`)
            for (const granularity of ['STATE', 'COUNTY', 'ZIP_CODE_50KM'] as const) {
              const rows = await sql<{ id: string; n: number; commercial: number; medicare: number; medicaid: number; other: number }>(
                `SELECT ${keys[granularity]} AS id, count(DISTINCT p.id)::int AS n,
                        count(DISTINCT p.id) FILTER (WHERE p.payer_type = 'commercial')::int AS commercial,
                        count(DISTINCT p.id) FILTER (WHERE p.payer_type = 'medicare')::int AS medicare,
                        count(DISTINCT p.id) FILTER (WHERE p.payer_type = 'medicaid')::int AS medicaid,
                        count(DISTINCT p.id) FILTER (WHERE p.payer_type = 'other')::int AS other
                 FROM patients p JOIN claims c ON c.patient_id = p.id JOIN claim_diagnoses d ON d.claim_id = c.id
                 WHERE ${where.join(' AND ')} AND ${keys[granularity]} IS NOT NULL GROUP BY 1`,
                values,
              )
              const recount = new Map(
                rows.map((r) => [
                  r.id,
                  { patients: r.n, payers: { commercial: r.commercial, medicare: r.medicare, medicaid: r.medicaid, other: r.other } },
                ]),
              )
              for (const index of variants) {
                const filter = (await patientFilter(pool, index, filters, scope))!
                expect(
                  stable(regionCountsMap(countWithIndex(index, filters, filter, granularity))),
                  `${codes} ${JSON.stringify(demographics)} ${value} ${granularity}`,
                ).toBe(stable(recount))
              }
              compared += recount.size
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(500)
      // the drill-down walks the same patients whichever way the index selects them
      const filters = filtersOf({ codes: 'E11,I10', gender: 'F', min_age: 18, max_age: 70 })
      const scope = await resolveScope(pool, 'US', 'COUNTRY')
      const base: DrilldownQuery = {
        type: 'STATE',
        filters,
        scope,
        facilityId: null,
        healthSystemId: null,
        state: null,
        sort: { code: 'patient_count', direction: 'DESC' },
        page: 0,
        pageSize: 10,
      }
      const sparse = await buildClaimIndex(pool, variants[1]!)
      const byState = await drillWithIndex(pool, sparse, {
        group: 'STATE',
        filters,
        scope,
        facilityId: null,
        healthSystemId: null,
        state: null,
      })
      expect(stable(new Map(byState.map((c) => [c.key, c.metrics])))).toBe(stable(await stateRowsSql(pool, base)))
      const facilities = await drillWithIndex(pool, sparse, {
        group: 'FACILITY',
        filters,
        scope,
        facilityId: null,
        healthSystemId: null,
        state: null,
      })
      const pageSql = await entityPageSql(pool, { ...base, type: 'FACILITY', pageSize: 100_000 })
      expect(new Map(facilities.map((c) => [c.key, displayed(c.metrics)]))).toEqual(
        new Map(pageSql.rows.map((r) => [r.id, displayed(r.metrics)])),
      )
    })

    it('the served JSON (written without the schema serialiser) is the documented response, for every tier and census flag', async () => {
      const schema = (responseSchemas(atlasEndpoints.generic) as Record<number, z.ZodType>)[200]!
      const pool = ctx.app.db.pool
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
      for (const tier of TIERS) {
        for (const [granularity, region, census] of [
          ['STATE', 'US', false],
          ['COUNTY', state, true],
        ] as const) {
          const query = {
            icd10_cm_union_csv: 'E11,I10',
            tile_granularity: granularity,
            search_within_region: region,
            include_census_data: census,
          }
          const body = await generic(query, tokens[tier])
          expect(schema.parse(body)).toEqual(body)
          const result = await genericResult(pool, {
            filters: filtersOf({ codes: 'E11,I10' }),
            scope: await resolveScope(pool, region, region === 'US' ? 'COUNTRY' : 'STATE'),
            granularity,
            bypass: false,
          })
          expect(body).toEqual(JSON.parse(JSON.stringify(schema.parse(toGenericResponse(result, { tier, census, points: [] })))))
        }
      }
    })

    it('the gzip body (@fastify/compress, 0077) decodes to the same bytes as the identity body, under the same ETag', async () => {
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
      const { zip } = await one<{ zip: string }>(`SELECT zip_code AS zip FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
      const queries: Record<string, string | number | boolean>[] = [
        { icd10_cm_union_csv: 'E11,I10', tile_granularity: 'COUNTY', search_within_region: 'US', gender: 'F', min_age: 18 },
        { icd10_cm_union_csv: 'I10', tile_granularity: 'STATE', search_within_region: 'US', include_census_data: true },
        { tile_granularity: 'COUNTY', search_within_region: state, include_census_data: true, include_hco_points: true },
        {
          icd10_cm_union_csv: 'E11',
          tile_granularity: 'ZIP_CODE_50KM',
          search_within_region: zip,
          search_within_region_type: 'ZIP_CODE_50KM',
        },
      ]
      for (const tier of ['BUSINESS_PLUS', 'ENTERPRISE'] as const) {
        for (const query of queries) {
          const plain = await get('/atlas/generic', query, tokens[tier]).set('Accept-Encoding', 'identity')
          const gzip = await get('/atlas/generic', query, tokens[tier]).set('Accept-Encoding', 'gzip, deflate, br')
          expect(plain.status).toBe(200)
          expect(gzip.status).toBe(200)
          expect(plain.headers['content-encoding']).toBeUndefined()
          expect(gzip.headers['content-encoding']).toBe('gzip')
          expect(gzip.headers.vary).toMatch(/accept-encoding/i)
          // supertest gunzips (checking the CRC-32 and length); the text is the identity body byte for byte
          expect(gzip.text).toBe(plain.text)
          expect(gzip.headers.etag).toMatch(/^W\//)
          expect(gzip.headers.etag).toBe(plain.headers.etag)
        }
      }
    })

    it('page a STATE drill-down from the generic result only when the order is by patients (0057)', async () => {
      const pool = ctx.app.db.pool
      await currentClaimIndex(pool, await dataVersion(pool), true)
      const base: DrilldownQuery = {
        type: 'STATE',
        filters: filtersOf({ codes: undefined }),
        scope: await resolveScope(pool, undefined, undefined),
        facilityId: null,
        healthSystemId: null,
        state: null,
        sort: { code: 'patient_count', direction: 'DESC' },
        page: 0,
        pageSize: 25,
      }
      expect(statePageFirst(base)).toBe(true)
      expect(statePageFirst({ ...base, sort: { code: 'opportunity_score', direction: 'ASC' } })).toBe(true)
      // the engines give the generic result's patients whichever rows they read (the index, or the database while it
      // builds): the page may be chosen first either way
      expect(statePageFirst({ ...base, filters: filtersOf({ codes: 'E11' }) })).toBe(true)
      expect(statePageFirst({ ...base, sort: { code: 'claim_count', direction: 'DESC' } })).toBe(false)
      expect(statePageFirst({ ...base, sort: { code: 'provider_count', direction: 'DESC' } })).toBe(false)
      expect(statePageFirst({ ...base, facilityId: 1 })).toBe(false)
      expect(statePageFirst({ ...base, healthSystemId: 1 })).toBe(false)
      expect(statePageFirst({ ...base, type: 'FACILITY' })).toBe(false)
      // without codes, paged first: every state's patients recount (index and SQL agree), ordered by them
      const expected = nonZero(new Map([...(await stateRowsSql(pool, base))].map(([state, m]) => [state, m.patients])))
      const seen = new Map<string, number>()
      for (let page = 0; page * 10 < expected.size; page++) {
        const body = await drill({
          drilldown_type: 'STATE',
          page,
          page_size: 10,
          sort_input: { code: 'patient_count', sort_direction: 'DESC' },
        })
        expect(body.page_results.total_results).toBe(expected.size)
        const keys = body.page_results.results.map((r) => metricOf(r, 'patient_count') as number)
        expect(keys).toEqual([...keys].sort((a, b) => b - a))
        for (const r of body.page_results.results) seen.set(r.citrus_id, metricOf(r, 'patient_count') as number)
      }
      expect(seen).toEqual(expected)
    })

    it('count STATE groups from the per-state summary exactly as the walk over the claim rows does (0061)', async () => {
      const pool = ctx.app.db.pool
      const claimIndex = (await currentClaimIndex(pool, await dataVersion(pool), true))!
      expect(claimIndex.stateSummary).not.toBeNull()
      const { state } = await one<{ state: string }>(`SELECT state FROM patients GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)
      const states = claimIndex.people.states
      const pages = [null, states.slice(0, 3), states.slice(3, 9), [state], ['ZZ']]
      let compared = 0
      for (const codes of ['E11,I10', 'E11.9', '', 'E11,I10,E66,J45,J44,M17,M06,N18,F32,I25', 'Z99.9', 'I10,M17', 'E11.65']) {
        for (const demographics of [{}, { gender: 'F' as const }, { min_age: 40 }, { max_age: 200, min_age: -5 }]) {
          const filters = filtersOf({ codes, ...demographics })
          for (const scope of [await resolveScope(pool, 'US', 'COUNTRY'), await resolveScope(pool, state, 'STATE')]) {
            for (const page of pages) {
              for (const stateFilter of [null, state]) {
                const q: DrillQuery = {
                  group: 'STATE',
                  filters,
                  scope,
                  facilityId: null,
                  healthSystemId: null,
                  state: stateFilter,
                  states: page,
                }
                const summary = await drillWithIndex(pool, claimIndex, q)
                expect(summary).toEqual(await drillWithIndex(pool, claimIndex, q, { walk: true }))
                compared += summary.length
              }
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(500)
    })

    it('belong to one data version: a new version is answered from the database rows until its index is built', async () => {
      const pool = ctx.app.db.pool
      const version = await dataVersion(pool)
      const current = await currentPatientIndex(pool, version)
      expect(current?.version).toBe(version)
      expect(await currentPatientIndex(pool, `${version}-reloaded`)).toBeNull()
      const rebuilt = await currentPatientIndex(pool, `${version}-reloaded`, true)
      expect(rebuilt!.version).toBe(`${version}-reloaded`)
      expect(rebuilt).not.toBe(current)
      expect(rebuilt!.patients).toEqual(current!.patients)
      // versions move forward only: the older one builds nothing; awaited, it is given the newer index
      expect(await currentPatientIndex(pool, version)).toBeNull()
      expect((await currentPatientIndex(pool, version, true))!.version).toBe(`${version}-reloaded`)
      // dropped (as the memory budget drops it), the real version is built again
      currentPatientIndex.evict(pool)
      expect((await currentPatientIndex(pool, version, true))!.version).toBe(version)
      expect((await currentClaimIndex(pool, version, true))!.version).toBe(version)
    })
  })
})
