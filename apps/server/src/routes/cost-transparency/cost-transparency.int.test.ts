import { existsSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { COMMERCIAL_PLANS, MEDICAID_PLAN, MEDICARE_ADVANTAGE_PLAN, MEDICARE_FFS_PLAN, ZERO_COST_SHARING_CODES } from '@citrus/data-kit'
import {
  PRICE_CHECK_MAX_RADIUS_M,
  PRICE_CHECK_MESSAGES,
  procedureCostResponseSchema,
  type CostBundle,
  type HcoCost,
  type ProcedureCostResponse,
} from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, useTestApp } from '../../../../../test/helpers.ts'
import { signShareToken } from '../../auth/tokens.ts'
import { runImport } from '../../data/importers.ts'
import { loadPlanCostSharing, planDesignLabel, syntheticPlanCostSharing } from '../../data/plan-designs.ts'
import { silentSink } from '../../data/progress.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
const FIXTURES = path.resolve(here, '../../../../../packages/data-kit/src/parsers/fixtures')
const SHARED = path.resolve(here, '../../../../../../shared/data/hospital-price-transparency')
/** The official CMS example when present, else the fixture in the official format. */
const officialOr = (name: string, fixture: string) =>
  existsSync(path.join(SHARED, name)) ? path.join(SHARED, name) : path.join(FIXTURES, fixture)

interface ExpectedBundle {
  facility_id: number
  hco_npi: string | null
  dist: number
  list: number
  patient: number
  insurer: number | null
  patient_met: number | null
  insurer_met: number | null
  negotiated: number | null
  median: number
  p10: number
  p90: number
}

/**
 * The independent recount: one SQL statement over facility_prices, facilities, zips, insurers and
 * plan_cost_sharing that prices the procedure as docs/decisions/0028 and 0048 describe. $5: the codes the
 * patient pays nothing for (preventive services).
 */
const RECOUNT_SQL = `
WITH o AS (SELECT geog FROM zips WHERE zip = $1),
fac AS (SELECT f.id, f.npi, ST_Distance(f.geog, o.geog) AS dist FROM facilities f, o WHERE ST_DWithin(f.geog, o.geog, $3)),
r AS (
  SELECT fp.*, coalesce(fp.negotiated_dollar, fp.median_amount, round(fp.negotiated_percentage / 100 * fp.gross_charge, 2)) AS neg
  FROM facility_prices fp JOIN fac ON fac.id = fp.facility_id
  WHERE fp.procedure_code = ANY($2::text[]) AND (fp.payer_name = '' OR lower(fp.payer_name) = lower($4::text))
),
list AS (SELECT facility_id, procedure_code, avg(gross_charge) AS list FROM r WHERE gross_charge IS NOT NULL GROUP BY 1, 2),
plan_rows AS (SELECT * FROM r WHERE $4::text IS NOT NULL AND r.payer_name <> '' AND r.neg IS NOT NULL),
scored AS (
  SELECT pr.id AS row_id, c.id AS design_id, c.coinsurance, c.copay, c.deductible, c.weight,
    (c.source <> 'default')::int * 16 + ((c.payer_name <> '')::int * 4 + (c.plan_name <> '')::int * 2 + (c.payer_kind <> '')::int) * 2
      + (c.source NOT IN ('default', 'synthetic'))::int AS score
  FROM plan_rows pr JOIN plan_cost_sharing c
    ON (c.payer_name = '' OR lower(c.payer_name) = lower(pr.payer_name))
   AND (c.plan_name = '' OR lower(c.plan_name) = lower(pr.plan_name))
   AND (c.payer_kind = '' OR c.payer_kind = (SELECT i.kind FROM insurers i WHERE lower(i.name) = lower(pr.payer_name)))
),
chosen AS (
  SELECT s.*, s.weight / sum(s.weight) OVER (PARTITION BY s.row_id) AS w
  FROM scored s WHERE s.score = (SELECT max(t.score) FROM scored t WHERE t.row_id = s.row_id)
),
split AS (
  SELECT pr.*, CASE WHEN pr.procedure_code = ANY($5::text[]) THEN 0 ELSE (
    SELECT round(sum(ch.w * least(pr.neg, ch.copay + ch.coinsurance * greatest(pr.neg - ch.copay, 0))), 2) FROM chosen ch WHERE ch.row_id = pr.id
  ) END AS patient
  FROM plan_rows pr
),
carrier AS (
  SELECT facility_id, procedure_code, avg(patient) AS patient, avg(round(neg - patient, 2)) AS insurer, avg(neg) AS negotiated,
    coalesce(avg(median_amount), percentile_cont(0.5) WITHIN GROUP (ORDER BY neg)) AS median,
    coalesce(avg(p10_amount), percentile_cont(0.1) WITHIN GROUP (ORDER BY neg)) AS p10,
    coalesce(avg(p90_amount), percentile_cont(0.9) WITHIN GROUP (ORDER BY neg)) AS p90
  FROM split GROUP BY 1, 2
),
code_rows AS (SELECT facility_id, procedure_code, count(*) AS n FROM plan_rows GROUP BY 1, 2),
design_code AS (
  SELECT pr.facility_id, pr.procedure_code, ch.design_id,
    sum(ch.w * (1 - ch.coinsurance) * least(ch.deductible, greatest(pr.neg - ch.copay, 0))) / max(cr.n) AS extra,
    sum(ch.w) / max(cr.n) * (1 - max(ch.coinsurance)) * max(ch.deductible) AS cap
  FROM plan_rows pr JOIN chosen ch ON ch.row_id = pr.id JOIN code_rows cr USING (facility_id, procedure_code)
  WHERE NOT (pr.procedure_code = ANY($5::text[]))
  GROUP BY 1, 2, 3
),
deductible AS (
  SELECT facility_id, sum(least(extra, cap)) AS extra
  FROM (SELECT facility_id, design_id, sum(extra) AS extra, max(cap) AS cap FROM design_code GROUP BY 1, 2) d GROUP BY 1
),
cash AS (
  SELECT facility_id, procedure_code, avg(discounted_cash) AS patient, NULL::numeric AS insurer, NULL::numeric AS negotiated,
    percentile_cont(0.5) WITHIN GROUP (ORDER BY discounted_cash) AS median,
    percentile_cont(0.1) WITHIN GROUP (ORDER BY discounted_cash) AS p10,
    percentile_cont(0.9) WITHIN GROUP (ORDER BY discounted_cash) AS p90
  FROM r WHERE $4::text IS NULL AND discounted_cash IS NOT NULL GROUP BY 1, 2
),
per_code AS (SELECT * FROM carrier UNION ALL SELECT * FROM cash)
SELECT fac.id AS facility_id, fac.npi AS hco_npi, fac.dist::float8 AS dist,
  sum(list.list)::float8 AS list,
  (sum(p.patient) + CASE WHEN $4::text IS NULL THEN 0 ELSE coalesce(max(d.extra), 0) END)::float8 AS patient,
  (sum(p.insurer) - coalesce(max(d.extra), 0))::float8 AS insurer,
  CASE WHEN $4::text IS NULL THEN NULL ELSE sum(p.patient)::float8 END AS patient_met,
  sum(p.insurer)::float8 AS insurer_met,
  sum(p.negotiated)::float8 AS negotiated,
  sum(p.median)::float8 AS median, sum(p.p10)::float8 AS p10, sum(p.p90)::float8 AS p90
FROM per_code p JOIN list USING (facility_id, procedure_code) JOIN fac ON fac.id = p.facility_id
  LEFT JOIN deductible d ON d.facility_id = p.facility_id
GROUP BY fac.id, fac.npi, fac.dist
HAVING count(*) = cardinality($2::text[])
ORDER BY fac.dist, fac.id`

const cents = (actual: number | null, expected: number | null, label: string) => {
  if (expected === null) return expect(actual, label).toBeNull()
  expect(actual, label).not.toBeNull()
  expect(Math.abs((actual as number) - expected), `${label}: ${actual} vs ${expected}`).toBeLessThanOrEqual(0.011)
}

describe('GET /api/cost-transparency/procedure', () => {
  const ctx = useTestApp({}, { dataset: true })
  let member: string
  let scenario: { zip: string; code: string; payer: string; second: string | null }

  beforeAll(async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['member'], products: [{ product_group: 'ATLAS' }] })
    member = await loginTokenFor(users[0]!, company.company_name)
    // the most priced (code, payer) pair of the synthetic lists, and the facility ZIP with the most such neighbours
    const pair = await ctx.db.pool.query<{ code: string; payer: string }>(
      `SELECT procedure_code AS code, payer_name AS payer FROM facility_prices fp JOIN facilities f ON f.id = fp.facility_id
       WHERE payer_name <> '' AND f.source = 'synthetic' GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    const { code, payer } = pair.rows[0]!
    const zip = await ctx.db.pool.query<{ zip: string; facility_id: number }>(
      `SELECT z.zip, min(f.id) AS facility_id FROM facilities f JOIN facility_prices a ON a.facility_id = f.id AND a.procedure_code = $1 AND a.payer_name = $2
       JOIN zips z ON z.zip = f.zip_code JOIN facilities g ON ST_DWithin(g.geog, z.geog, 50000)
       JOIN facility_prices b ON b.facility_id = g.id AND b.procedure_code = $1 AND b.payer_name = $2
       GROUP BY z.zip ORDER BY count(DISTINCT g.id) DESC, z.zip LIMIT 1`,
      [code, payer],
    )
    const second = await ctx.db.pool.query<{ code: string }>(
      `SELECT procedure_code AS code FROM facility_prices WHERE facility_id = $1 AND payer_name = $2 AND procedure_code <> $3 ORDER BY procedure_code LIMIT 1`,
      [zip.rows[0]!.facility_id, payer, code],
    )
    scenario = { zip: zip.rows[0]!.zip, code, payer, second: second.rows[0]?.code ?? null }
  })

  const get = (query: Record<string, string | number | boolean>, auth: { bearer?: string; token?: string } | null = { bearer: member }) => {
    const call = request(ctx.app.server)
      .get('/api/cost-transparency/procedure')
      .query(auth?.token ? { ...query, token: auth.token } : query)
    return auth?.bearer ? call.set('Authorization', `Bearer ${auth.bearer}`) : call
  }
  const price = async (query: Record<string, string | number | boolean>) => {
    const response = await get({ _bypass_cache: true, ...query })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    // written as a string, not through the zod serialiser: the answer must be the contract's (no field missing or extra)
    expect(procedureCostResponseSchema.parse(response.body)).toEqual(response.body)
    return response.body as ProcedureCostResponse
  }
  const recount = async (zip: string, codes: string[], radius: number, payer: string | null) =>
    (await ctx.db.pool.query<ExpectedBundle>(RECOUNT_SQL, [zip, codes, radius, payer, [...ZERO_COST_SHARING_CODES]])).rows

  function expectMatches(body: ProcedureCostResponse, expected: ExpectedBundle[], cash: boolean) {
    expect(expected.length).toBeGreaterThan(0)
    expect(body.cost_by_hco.map((h) => h.hco_npi)).toEqual(expected.map((e) => e.hco_npi))
    body.cost_by_hco.forEach((hco: HcoCost, i) => {
      const e = expected[i]!
      const b = hco.cost_bundle
      expect(Math.abs(hco.hco_dist_in_m - e.dist)).toBeLessThanOrEqual(0.06)
      cents(b.avg_list_rate, e.list, `${hco.hco_name} list`)
      cents(b.avg_patient_rate, e.patient, `${hco.hco_name} patient`)
      cents(b.avg_insurer_rate, cash ? null : e.insurer, `${hco.hco_name} insurer`)
      cents(b.avg_negotiated_rate, cash ? null : e.negotiated, `${hco.hco_name} negotiated`)
      cents(b.avg_patient_rate_deductible_met, cash ? null : e.patient_met, `${hco.hco_name} patient, deductible met`)
      cents(b.avg_insurer_rate_deductible_met, cash ? null : e.insurer_met, `${hco.hco_name} insurer, deductible met`)
      if (!cash) {
        // the deductible never lowers what the patient pays, nor makes them pay more than the negotiated rate
        expect(b.avg_patient_rate).toBeGreaterThanOrEqual(b.avg_patient_rate_deductible_met! - 0.01)
        expect(b.avg_patient_rate).toBeLessThanOrEqual(b.avg_negotiated_rate! + 0.01)
        cents(b.avg_insurer_rate_deductible_met! + b.avg_patient_rate_deductible_met!, b.avg_negotiated_rate, 'met: insurer + patient')
      }
      cents(b.median_amount, e.median, `${hco.hco_name} median`)
      cents(b.p10_amount, e.p10, `${hco.hco_name} p10`)
      cents(b.p90_amount, e.p90, `${hco.hco_name} p90`)
      if (!cash) cents((b.avg_insurer_rate ?? 0) + b.avg_patient_rate, b.avg_negotiated_rate, 'insurer + patient = negotiated')
      expect(b.p10_amount!).toBeLessThanOrEqual(b.median_amount! + 0.01)
      expect(b.median_amount!).toBeLessThanOrEqual(b.p90_amount! + 0.01)
      expect(b.methodology).toEqual(expect.any(String))
    })
    const mean = (pick: (e: ExpectedBundle) => number | null) => expected.reduce((s, e) => s + (pick(e) ?? 0), 0) / expected.length
    const avg = body.avg_cost_bundle as CostBundle
    cents(
      avg.avg_list_rate,
      mean((e) => e.list),
      'avg list',
    )
    cents(
      avg.avg_patient_rate,
      mean((e) => e.patient),
      'avg patient',
    )
    cents(avg.avg_insurer_rate, cash ? null : mean((e) => e.insurer), 'avg insurer')
    cents(avg.avg_negotiated_rate, cash ? null : mean((e) => e.negotiated), 'avg negotiated')
    cents(avg.avg_patient_rate_deductible_met, cash ? null : mean((e) => e.patient_met), 'avg patient, deductible met')
    cents(avg.avg_insurer_rate_deductible_met, cash ? null : mean((e) => e.insurer_met), 'avg insurer, deductible met')
    cents(
      avg.median_amount,
      mean((e) => e.median),
      'avg median',
    )
  }

  it("prices a procedure from a carrier's perspective: negotiated rates split by the plan cost sharing, recounted in SQL", async () => {
    const body = await price({ zip_code: scenario.zip, procedure_codes_csv: scenario.code, payment_perspective: scenario.payer })
    expect(body).toMatchObject({ payment_perspective: scenario.payer, procedure_codes: [scenario.code], radius_in_m: 50000, cached: false })
    const expected = await recount(scenario.zip, [scenario.code], 50000, scenario.payer)
    expect(expected.length).toBeGreaterThan(1)
    expectMatches(body, expected, false)
    // the carrier's share is real: somebody pays something on both sides
    expect(body.cost_by_hco.some((h) => (h.cost_bundle.avg_insurer_rate ?? 0) > 0 && h.cost_bundle.avg_patient_rate > 0)).toBe(true)
  })

  it('prices the cash path: discounted cash prices, no insurer share', async () => {
    const body = await price({ zip_code: scenario.zip, procedure_codes_csv: scenario.code })
    expect(body.payment_perspective).toBeNull()
    expectMatches(body, await recount(scenario.zip, [scenario.code], 50000, null), true)
    for (const h of body.cost_by_hco) expect(h.cost_bundle.avg_insurer_rate).toBeNull()
  })

  it('sums a bundle of several codes per facility and keeps only facilities that price every code', async () => {
    expect(scenario.second).not.toBeNull()
    const codes = [scenario.code, scenario.second!]
    const body = await price({
      zip_code: scenario.zip,
      procedure_codes_csv: codes.join(','),
      payment_perspective: scenario.payer.toUpperCase(),
    })
    expectMatches(body, await recount(scenario.zip, codes, 50000, scenario.payer), false)
  })

  it('keeps every facility within the radius, nearest first; a smaller radius keeps fewer', async () => {
    const wide = await price({ zip_code: scenario.zip, procedure_codes_csv: scenario.code, radius_in_m: 50000 })
    const distances = wide.cost_by_hco.map((h) => h.hco_dist_in_m)
    expect(distances).toEqual([...distances].sort((a, b) => a - b))
    for (const d of distances) expect(d).toBeLessThanOrEqual(50000)
    const narrow = await price({ zip_code: `${scenario.zip}-1234`, procedure_codes_csv: scenario.code, radius_in_m: 10000 })
    for (const h of narrow.cost_by_hco) expect(h.hco_dist_in_m).toBeLessThanOrEqual(10000)
    expect(narrow.cost_by_hco.length).toBe((await recount(scenario.zip, [scenario.code], 10000, null)).length)
  })

  it('finds the same facilities as a search of the facilities table at the largest radius, up to the east and west edges of the circle', async () => {
    // the candidates come from mv_price_code_points in a latitude/longitude box (docs/decisions/0065): the box must
    // hold the whole circle. The ZIP and priced facility within the radius that lie farthest apart in longitude:
    // that facility sits on the circle's east or west edge, where a box too narrow would lose it first.
    const edge = await ctx.db.pool.query<{ zip: string; code: string; npi: string }>(
      `SELECT z.zip, p.code, p.npi FROM (
         SELECT f.npi, f.geog, f.longitude, (SELECT min(fp.procedure_code) FROM facility_prices fp
           WHERE fp.facility_id = f.id AND fp.gross_charge IS NOT NULL AND fp.discounted_cash IS NOT NULL) AS code
         FROM facilities f WHERE f.latitude IS NOT NULL AND f.npi IS NOT NULL) p
       JOIN zips z ON ST_DWithin(z.geog, p.geog, $1)
       WHERE p.code IS NOT NULL ORDER BY abs(z.longitude - p.longitude) DESC, z.zip LIMIT 1`,
      [PRICE_CHECK_MAX_RADIUS_M],
    )
    const { zip, code, npi } = edge.rows[0]!
    for (const search of [
      { zip: scenario.zip, code: scenario.code },
      { zip, code },
    ]) {
      const body = await price({ zip_code: search.zip, procedure_codes_csv: search.code, radius_in_m: PRICE_CHECK_MAX_RADIUS_M })
      const expected = await recount(search.zip, [search.code], PRICE_CHECK_MAX_RADIUS_M, null)
      expectMatches(body, expected, true)
      if (search.zip === zip) expect(body.cost_by_hco.map((h) => h.hco_npi)).toContain(npi)
    }
  })

  it('answers a carrier without rates near the ZIP with an empty list and a null average', async () => {
    const body = await price({ zip_code: scenario.zip, procedure_codes_csv: scenario.code, payment_perspective: 'No Such Carrier' })
    expect(body.cost_by_hco).toEqual([])
    expect(body.avg_cost_bundle).toBeNull()
  })

  it('caches answers, _bypass_cache skips the cache', async () => {
    const query = { zip_code: scenario.zip, procedure_codes_csv: scenario.code, payment_perspective: scenario.payer }
    const first = await get(query)
    const second = await get(query)
    expect(second.body.cached).toBe(true)
    expect(procedureCostResponseSchema.parse(second.body)).toEqual(second.body)
    expect({ ...second.body, cached: false }).toEqual({ ...first.body, cached: false })
    // the request's own fields are the request's, also when the cache holds the same search spelled otherwise
    const spelled = await get({ ...query, payment_perspective: scenario.payer.toUpperCase() })
    expect(spelled.body).toMatchObject({ cached: true, payment_perspective: scenario.payer.toUpperCase() })
    const bypass = await get({ ...query, _bypass_cache: true })
    expect(bypass.body.cached).toBe(false)
  })

  it('sends answers gzip-encoded by @fastify/compress to a client that accepts it, the same JSON byte for byte', async () => {
    const url = `/api/cost-transparency/procedure?${new URLSearchParams({ zip_code: scenario.zip, procedure_codes_csv: scenario.code, payment_perspective: scenario.payer, radius_in_m: '40000' })}`
    const inject = (encoding: string | null) =>
      ctx.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${member}`, ...(encoding === null ? {} : { 'accept-encoding': encoding }) },
      })
    // the first answer of a search too (docs/decisions/0077)
    const first = await inject('gzip, deflate')
    expect(first.headers['content-encoding']).toBe('gzip')
    expect(JSON.parse(gunzipSync(first.rawPayload).toString('utf8'))).toMatchObject({ cached: false })
    const plain = await inject(null)
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.json().cached).toBe(true)
    for (const encoding of ['gzip, deflate', 'br;q=1, gzip;q=0.5']) {
      const gzip = await inject(encoding)
      expect(gzip.headers['content-encoding']).toBe('gzip')
      expect(gzip.headers.vary).toMatch(/accept-encoding/i)
      expect(gzip.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(gunzipSync(gzip.rawPayload).toString('utf8')).toBe(plain.payload)
    }
    // the request's own fields stay the request's: another spelling of the carrier, from the same entry
    const spelled = await ctx.app.inject({
      method: 'GET',
      url: url.replace(encodeURIComponent(scenario.payer), encodeURIComponent(scenario.payer.toUpperCase())),
      headers: { authorization: `Bearer ${member}`, 'accept-encoding': 'gzip' },
    })
    const body = JSON.parse(gunzipSync(spelled.rawPayload).toString('utf8')) as ProcedureCostResponse
    expect(body).toEqual({ ...plain.json(), payment_perspective: scenario.payer.toUpperCase() })
    expect(procedureCostResponseSchema.parse(body)).toEqual(body)
    // gzip refused: as it is
    expect((await inject('gzip;q=0, identity')).headers['content-encoding']).toBeUndefined()
  })

  it('refuses bad input with a 400 naming the field', async () => {
    const cases: Array<[Record<string, string | number>, string, string | null]> = [
      [{ zip_code: '1234', procedure_codes_csv: scenario.code }, 'zip_code', PRICE_CHECK_MESSAGES.invalidZip],
      [{ zip_code: 'abcde', procedure_codes_csv: scenario.code }, 'zip_code', PRICE_CHECK_MESSAGES.invalidZip],
      [{ zip_code: '00000', procedure_codes_csv: scenario.code }, 'zip_code', PRICE_CHECK_MESSAGES.unknownZip('00000')],
      [{ zip_code: scenario.zip, procedure_codes_csv: 'ZZZZ9' }, 'procedure_codes_csv', PRICE_CHECK_MESSAGES.unknownCodes(['ZZZZ9'])],
      [{ zip_code: scenario.zip, procedure_codes_csv: ' , ' }, 'procedure_codes_csv', PRICE_CHECK_MESSAGES.codesRequired],
      [{ zip_code: scenario.zip, procedure_codes_csv: 'DROP TABLE' }, 'procedure_codes_csv', PRICE_CHECK_MESSAGES.malformedCode],
      [{ zip_code: scenario.zip, procedure_codes_csv: scenario.code, radius_in_m: -5 }, 'radius_in_m', PRICE_CHECK_MESSAGES.radiusPositive],
      [{ zip_code: scenario.zip, procedure_codes_csv: scenario.code, radius_in_m: 'far' }, 'radius_in_m', null],
      [
        { zip_code: scenario.zip, procedure_codes_csv: scenario.code, radius_in_m: 10_000_000 },
        'radius_in_m',
        PRICE_CHECK_MESSAGES.radiusTooLarge,
      ],
      [{ procedure_codes_csv: scenario.code }, 'zip_code', null],
    ]
    for (const [query, field, message] of cases) {
      const response = await get({ ...query, _bypass_cache: 'true' })
      expect(response.status, JSON.stringify(query)).toBe(400)
      expect(response.body.status).toBe(400)
      const errors = response.body.errors as { path: string; message: string }[]
      expect(
        errors.some((e) => e.path.includes(field)),
        JSON.stringify(response.body),
      ).toBe(true)
      if (message) expect(errors.find((e) => e.path.includes(field))!.message).toBe(message)
    }
  })

  it('checks the input in the pricing statement: the ZIP first, then every unknown code in the asked order', async () => {
    // one statement checks and prices (docs/decisions/0062); the answers to bad input are those of the separate check
    const body = async (query: Record<string, string | boolean>) => {
      const response = await get({ _bypass_cache: true, ...query })
      expect(response.status, JSON.stringify(response.body)).toBe(400)
      return { message: response.body.message as string, errors: response.body.errors as unknown }
    }
    const codes = PRICE_CHECK_MESSAGES.unknownCodes(['ZZZZ9', 'ZZZZ8'])
    expect(await body({ zip_code: scenario.zip, procedure_codes_csv: `ZZZZ9,${scenario.code},ZZZZ8` })).toEqual({
      message: codes,
      errors: [{ path: 'query.procedure_codes_csv', message: codes }],
    })
    const zip = PRICE_CHECK_MESSAGES.unknownZip('00000')
    expect(await body({ zip_code: '00000', procedure_codes_csv: 'ZZZZ9' })).toEqual({
      message: zip,
      errors: [{ path: 'query.zip_code', message: zip }],
    })
    // a known ZIP and known codes that no facility near it prices: an empty answer, not an error
    const far = await price({ zip_code: scenario.zip, procedure_codes_csv: scenario.code, radius_in_m: 1 })
    expect(far.cost_by_hco).toEqual([])
    expect(far.avg_cost_bundle).toBeNull()
  })

  describe('plan cost sharing from the generator (docs/decisions/0048)', () => {
    it('holds the plan designs the claims were generated with, weighted by enrollment', async () => {
      const { rows } = await ctx.db.pool.query<{
        payer_kind: string
        plan_name: string
        deductible: string
        coinsurance: string
        copay: string
        weight: string
      }>(
        `SELECT payer_kind, plan_name, deductible::text, coinsurance::text, copay::text, weight::text FROM plan_cost_sharing
         WHERE source = 'synthetic' ORDER BY payer_kind, plan_name, deductible`,
      )
      const total = COMMERCIAL_PLANS.reduce((sum, [, weight]) => sum + weight, 0)
      for (const kind of ['commercial', 'blues']) {
        const designs = rows.filter((r) => r.payer_kind === kind)
        expect(designs.map((r) => Number(r.deductible)).sort((a, b) => a - b)).toEqual(
          COMMERCIAL_PLANS.map(([plan]) => plan.deductible).sort((a, b) => a - b),
        )
        for (const [plan, weight] of COMMERCIAL_PLANS) {
          const design = designs.find((r) => Number(r.deductible) === plan.deductible)!
          expect(Number(design.coinsurance)).toBe(plan.coinsurance)
          expect(Number(design.copay)).toBe(plan.specialist_copay ?? 0)
          expect(Number(design.weight)).toBeCloseTo(weight / total, 4)
        }
      }
      const one = (kind: string, plan = '') => rows.filter((r) => r.payer_kind === kind && r.plan_name === plan)
      expect(one('medicare').map((r) => [Number(r.deductible), Number(r.coinsurance)])).toEqual([[MEDICARE_FFS_PLAN.deductible, 0.2]])
      expect(one('', 'Medicare Advantage').map((r) => Number(r.copay))).toEqual([MEDICARE_ADVANTAGE_PLAN.specialist_copay])
      expect(one('medicaid').map((r) => Number(r.copay))).toEqual([MEDICAID_PLAN.specialist_copay])
      expect(one('military')).toHaveLength(1)
    })

    it("reloading replaces the seed's rows and keeps an operator's row with the same key", async () => {
      const client = await ctx.db.pool.connect()
      try {
        const design = planDesignLabel(COMMERCIAL_PLANS[0]![0])
        await client.query(`DELETE FROM plan_cost_sharing WHERE source = 'synthetic' AND payer_kind = 'blues' AND plan_design = $1`, [
          design,
        ])
        await client.query(
          `INSERT INTO plan_cost_sharing (payer_kind, plan_design, coinsurance, copay, deductible, weight, source) VALUES ('blues', $1, 0.1, 0, 100, 0.18, 'operator')`,
          [design],
        )
        expect(await loadPlanCostSharing(client)).toBe(syntheticPlanCostSharing().length - 1)
        const { rows } = await client.query<{ source: string; deductible: string }>(
          `SELECT source, deductible::text FROM plan_cost_sharing WHERE payer_kind = 'blues' AND plan_design = $1`,
          [design],
        )
        expect(rows).toEqual([{ source: 'operator', deductible: '100.00' }])
        const count = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM plan_cost_sharing WHERE source = 'synthetic'`)
        expect(count.rows[0]!.n).toBe(syntheticPlanCostSharing().length - 1)
      } finally {
        await client.query(`DELETE FROM plan_cost_sharing WHERE source = 'operator' AND payer_kind = 'blues'`)
        await loadPlanCostSharing(client)
        client.release()
      }
    })

    it('charges the deductible before it is met, less after, and nothing for preventive care', async () => {
      // a commercial carrier's priced code whose rate exceeds the copays: the deductible must show
      const { rows } = await ctx.db.pool.query<{ code: string; payer: string; zip: string }>(
        `SELECT fp.procedure_code AS code, fp.payer_name AS payer, f.zip_code AS zip FROM facility_prices fp
         JOIN facilities f ON f.id = fp.facility_id JOIN insurers i ON i.name = fp.payer_name AND i.kind IN ('commercial', 'blues')
         JOIN zips z ON z.zip = f.zip_code
         WHERE fp.negotiated_dollar > 1000 AND NOT (fp.procedure_code = ANY($1::text[])) ORDER BY fp.id LIMIT 1`,
        [[...ZERO_COST_SHARING_CODES]],
      )
      const pick = rows[0]!
      const body = await price({ zip_code: pick.zip, procedure_codes_csv: pick.code, payment_perspective: pick.payer })
      expectMatches(body, await recount(pick.zip, [pick.code], 50000, pick.payer), false)
      const near = body.cost_by_hco[0]!.cost_bundle
      expect(near.avg_patient_rate).toBeGreaterThan(near.avg_patient_rate_deductible_met! + 1)

      const preventive = await ctx.db.pool.query<{ code: string; payer: string; zip: string }>(
        `SELECT fp.procedure_code AS code, fp.payer_name AS payer, f.zip_code AS zip FROM facility_prices fp
         JOIN facilities f ON f.id = fp.facility_id JOIN zips z ON z.zip = f.zip_code
         WHERE fp.payer_name <> '' AND fp.procedure_code = ANY($1::text[]) ORDER BY fp.id LIMIT 1`,
        [[...ZERO_COST_SHARING_CODES]],
      )
      const free = preventive.rows[0]!
      const freeBody = await price({ zip_code: free.zip, procedure_codes_csv: free.code, payment_perspective: free.payer })
      expectMatches(freeBody, await recount(free.zip, [free.code], 50000, free.payer), false)
      for (const h of freeBody.cost_by_hco) {
        expect(h.cost_bundle.avg_patient_rate).toBe(0)
        expect(h.cost_bundle.avg_patient_rate_deductible_met).toBe(0)
        cents(h.cost_bundle.avg_insurer_rate, h.cost_bundle.avg_negotiated_rate, 'preventive: the insurer pays it all')
      }
    })
  })

  describe('access and metering', () => {
    const query = () => ({ zip_code: scenario.zip, procedure_codes_csv: scenario.code })

    it('needs a credential; every signed-in role may call it', async () => {
      expect((await get(query(), null)).status).toBe(401)
      const { company, users } = await createTenant(ctx.db, {
        roles: ['admin', 'user', 'member'],
        products: [{ product_group: 'CARE_SELECT' }],
      })
      for (const user of users) expect((await get(query(), { bearer: await loginTokenFor(user, company.company_name) })).status).toBe(200)
    })

    it('meters against the SEARCH policy when the company has one: 402 when spent; not at all without one', async () => {
      const limited = await createTenant(ctx.db, { roles: ['member'], products: [{ product_group: 'SEARCH', limit: 2 }] })
      const token = await loginTokenFor(limited.users[0]!, limited.company.company_name)
      const one = await get(query(), { bearer: token })
      expect(one.status).toBe(200)
      expect(one.headers['x-credits-remaining']).toBe('1')
      expect((await get(query(), { bearer: token })).status).toBe(200)
      const spent = await get(query(), { bearer: token })
      expect(spent.status).toBe(402)
      expect(spent.body.code).toBe('CREDITS_EXHAUSTED')

      const ungated = await createTenant(ctx.db, { roles: ['member'], products: [{ product_group: 'ATLAS', limit: 0 }] })
      const free = await loginTokenFor(ungated.users[0]!, ungated.company.company_name)
      for (let i = 0; i < 3; i++) expect((await get(query(), { bearer: free })).status).toBe(200)
      const usage = await ctx.db.prisma.creditUsage.findMany({ where: { company_id: ungated.company.id } })
      expect(usage).toEqual([])
    })

    it('works with an API key as its owner', async () => {
      const { company, users } = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'SEARCH', limit: 10 }] })
      const login = await loginTokenFor(users[0]!, company.company_name)
      const created = await request(ctx.app.server)
        .post('/api/admin/api-token')
        .set('Authorization', `Bearer ${login}`)
        .send({ name: 'price' })
      expect(created.status).toBe(200)
      const response = await get(query(), { bearer: created.body.token as string })
      expect(response.status).toBe(200)
      expect(response.headers['x-credits-remaining']).toBe('9')
    })

    it('admits a link token only when its api_endpoints list the endpoint', async () => {
      const { company, users } = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'CARE_SELECT' }] })
      const link = async (api_endpoints: string[]) =>
        signShareToken(
          testConfig().jwtSecret,
          await ctx.db.prisma.shareableLink.create({
            data: {
              company_id: company.id,
              created_by_user_id: users[0]!.id,
              url_type: 'public',
              client_routes: ['/price-check'],
              api_endpoints,
              authorized_user_ids: [],
            },
          }),
        )
      const allowed = await get(query(), { token: await link(['GET /cost-transparency/procedure']) })
      expect(allowed.status).toBe(200)
      const refused = await get(query(), { token: await link(['GET /care-select/rankings']) })
      expect(refused.status).toBe(403)
    })
  })

  describe('real price files', () => {
    /** A facility of our own next to the scenario's ZIP, so that the imported rows are the only ones it lists. */
    async function freshFacility(name: string) {
      const { rows } = await ctx.db.pool.query<{ id: number }>(
        `INSERT INTO facilities (name, facility_type, hco_compile_level_1, address_line_1, city, state, zip_code, latitude, longitude, source)
         SELECT $2, 'hospital', 'Hospital', '12 Main Street', z.city, z.state, z.zip, z.latitude, z.longitude, 'cms' FROM zips z WHERE z.zip = $1
         RETURNING id`,
        [scenario.zip, name],
      )
      return rows[0]!.id
    }
    const near = (body: ProcedureCostResponse, name: string) => body.cost_by_hco.find((h) => h.hco_name === name)

    it('an official v3 CSV shows up for its facility with its payer-specific rates; a re-import changes the figures', async () => {
      const name = `West Mercy Test ${Date.now()}`
      const id = await freshFacility(name)
      const file = officialOr('V3.0.0_Tall_CSV_Format_Example.csv', 'price_v3_tall_sample.csv')
      const summary = await runImport(ctx.db.pool, 'prices', file, { sink: silentSink, facility: String(id) })
      expect(summary.written).toBeGreaterThan(0)
      // the file's CPT code with a gross charge and a payer rate, and one payer of it, read back from the table
      const { rows } = await ctx.db.pool.query<{ code: string; payer: string; rate: string; gross: string; cash: string | null }>(
        `SELECT procedure_code AS code, payer_name AS payer, negotiated_dollar::text AS rate, gross_charge::text AS gross, discounted_cash::text AS cash
         FROM facility_prices WHERE facility_id = $1 AND code_type = 'CPT' AND payer_name <> '' AND negotiated_dollar IS NOT NULL AND gross_charge IS NOT NULL
         ORDER BY procedure_code, payer_name, plan_name LIMIT 1`,
        [id],
      )
      const row = rows[0]!
      const query = { zip_code: scenario.zip, procedure_codes_csv: row.code, payment_perspective: row.payer }
      const before = (await get(query)).body as ProcedureCostResponse
      const hco = near(before, name)!
      expect(hco).toBeDefined()
      const expected = (await recount(scenario.zip, [row.code], 50000, row.payer)).find((e) => e.facility_id === id)!
      cents(hco.cost_bundle.avg_negotiated_rate, expected.negotiated, 'imported negotiated')
      cents(hco.cost_bundle.avg_patient_rate, expected.patient, 'imported patient')
      cents(hco.cost_bundle.avg_list_rate, Number(row.gross), 'imported gross')
      // same query again: cached
      expect((await get(query)).body.cached).toBe(true)

      // re-import: a changed price list (the same file with the rates doubled) must not be served stale
      const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs')
      const { tmpdir } = await import('node:os')
      const dir = mkdtempSync(path.join(tmpdir(), 'price-reimport-'))
      const changed = path.join(dir, 'prices.csv')
      const original = readFileSync(file, 'latin1')
      writeFileSync(changed, original.replaceAll(`,${Number(row.rate)},`, `,${Number(row.rate) * 2},`), 'latin1')
      await runImport(ctx.db.pool, 'prices', changed, { sink: silentSink, facility: String(id) })
      const after = (await get(query)).body as ProcedureCostResponse
      expect(after.cached).toBe(false)
      const reExpected = (await recount(scenario.zip, [row.code], 50000, row.payer)).find((e) => e.facility_id === id)!
      expect(reExpected.negotiated).toBeGreaterThan(expected.negotiated! + 0.01)
      cents(near(after, name)!.cost_bundle.avg_negotiated_rate, reExpected.negotiated, 're-imported negotiated')
      cents(near(after, name)!.cost_bundle.avg_patient_rate, reExpected.patient, 're-imported patient')
    })

    it.each([
      ['v3 JSON', 'v3_json_format_example.json', 'price_v3_sample.json'],
      ['v3 wide CSV', 'V3.0.0_Wide_CSV_Format_Example.csv', 'price_v3_wide_sample.csv'],
      ['v2 JSON', 'V2.0.0_JSON_Format_Example.json', 'price_v3_sample.json'],
      ['v2 tall CSV', 'V2.0.0_Tall_CSV_Format_Example.csv', 'price_v3_tall_sample.csv'],
      ['v2 wide CSV', 'V2.0.0_Wide_CSV_Format_Example.csv', 'price_v3_wide_sample.csv'],
    ])('an official %s file shows up too, for each payer of the file', async (label, official, fixture) => {
      const name = `West Mercy ${label} ${Date.now()}`
      const id = await freshFacility(name)
      await runImport(ctx.db.pool, 'prices', officialOr(official, fixture), { sink: silentSink, facility: String(id) })
      const { rows } = await ctx.db.pool.query<{ code: string; payer: string }>(
        `SELECT DISTINCT procedure_code AS code, payer_name AS payer FROM facility_prices
         WHERE facility_id = $1 AND code_type IN ('CPT', 'HCPCS') AND payer_name <> '' AND gross_charge IS NOT NULL
           AND coalesce(negotiated_dollar, median_amount, negotiated_percentage) IS NOT NULL ORDER BY 1, 2`,
        [id],
      )
      expect(rows.length).toBeGreaterThan(0)
      for (const { code, payer } of rows) {
        const body = await price({ zip_code: scenario.zip, procedure_codes_csv: code, payment_perspective: payer })
        const expected = (await recount(scenario.zip, [code], 50000, payer)).find((e) => e.facility_id === id)!
        const hco = near(body, name)!
        expect(hco, `${code} ${payer}`).toBeDefined()
        cents(hco.cost_bundle.avg_negotiated_rate, expected.negotiated, `${code} ${payer} negotiated`)
        cents(hco.cost_bundle.avg_patient_rate, expected.patient, `${code} ${payer} patient`)
        cents(hco.cost_bundle.median_amount, expected.median, `${code} ${payer} median`)
      }
    })
  })
})
