import {
  CARE_MAX_RADIUS_M,
  CARE_SCORE_WEIGHTS,
  METERS_PER_MILE,
  SHARE_MESSAGES,
  gradeOf,
  type HcpRanking,
  rankingsResponseSchema,
  type RankingsResponse,
} from '@citrus/contracts'
import { gunzipSync } from 'node:zlib'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { spheroidDistance } from '../../engines/care-select/geodesic.ts'
import { scoredSearchCache } from '../../services/care-select/scored-cache.ts'

/** The documented percentile, counted directly (not the product's sort and binary search): 100 × the share of the
 * others strictly below; a value alone ranks 100 when above zero. */
function percentRanks(values: readonly number[]): number[] {
  if (values.length === 1) return [values[0]! > 0 ? 100 : 0]
  return values.map((v) => (100 * values.filter((w) => w < v).length) / (values.length - 1))
}

/** Affordability, counted directly: 100 × the share of the other prices strictly above; a price alone is 100. */
function affordabilityPercentiles(prices: readonly number[]): number[] {
  if (prices.length === 1) return [100]
  return prices.map((p) => (100 * prices.filter((q) => q > p).length) / (prices.length - 1))
}

/** Rankings on the ci dataset, every number checked against the claims with independent SQL. */
describe('GET /care-select/rankings', () => {
  const ctx = useTestApp({}, { dataset: true })
  let tenant: Awaited<ReturnType<typeof createTenant>>
  let token = ''
  let taxonomy = ''
  let zip = ''
  let cpt = ''
  let icdCategory = ''
  const radius = CARE_MAX_RADIUS_M

  beforeAll(async () => {
    tenant = await createTenant(ctx.db, { roles: ['admin', 'user', 'member'], products: [{ product_group: 'CARE_SELECT' }] })
    token = await loginTokenFor(tenant.users[1]!, tenant.company.company_name)
    const pool = ctx.db.pool
    // The specialty with the most clinicians that have claims, centred on the ZIP with the most of them around it.
    taxonomy = (
      await pool.query<{ code: string }>(
        `SELECT p.primary_taxonomy_code AS code FROM providers p JOIN mv_provider_panel pp ON pp.npi = p.npi
         GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      )
    ).rows[0]!.code
    zip = (
      await pool.query<{ zip: string }>(
        `SELECT a.zip_code AS zip FROM providers a JOIN providers b ON b.primary_taxonomy_code = a.primary_taxonomy_code
           AND ST_DWithin(a.geog, b.geog, $2)
         WHERE a.primary_taxonomy_code = $1 GROUP BY a.zip_code ORDER BY count(*) DESC, 1 LIMIT 1`,
        [taxonomy, radius / 2],
      )
    ).rows[0]!.zip
    const codes = await pool.query<{ code_kind: string; code: string }>(
      `SELECT v.code_kind, v.code FROM mv_provider_code_volume v JOIN providers p ON p.npi = v.npi, zips z
       WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_DWithin(p.geog, z.geog, $3)
       GROUP BY 1, 2 ORDER BY sum(v.claim_count) DESC`,
      [zip, taxonomy, radius],
    )
    cpt = codes.rows.find((r) => r.code_kind === 'procedure')!.code
    // a diagnosis category given without its sub-code (E11 matches E11.9)
    icdCategory = codes.rows.find((r) => r.code_kind === 'icd10' && r.code.includes('.'))!.code.slice(0, 3)
  })

  const auth = () => ({ authorization: `Bearer ${token}` })
  /** A carrier some candidates are in network with and some are not. */
  async function commonCarrier(): Promise<string> {
    return (
      await ctx.db.pool.query<{ name: string }>(
        `SELECT n.key AS name FROM providers p, zips z, jsonb_each_text(p.aggregated_insurance_networks_v1) n
         WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_DWithin(p.geog, z.geog, $3)
         GROUP BY 1 HAVING bool_or(n.value::boolean) AND bool_or(NOT n.value::boolean) ORDER BY count(*) DESC, 1 LIMIT 1`,
        [zip, taxonomy, radius],
      )
    ).rows[0]!.name
  }
  async function rankings(query: Record<string, string | number>, headers: Record<string, string> = auth()) {
    const response = await request(ctx.app.server).get('/api/care-select/rankings').query(query).set(headers)
    return response
  }
  async function ok(query: Record<string, string | number>): Promise<RankingsResponse> {
    const response = await rankings(query)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    // the route serialises the answer without the schema: it must still be exactly the contract's shape
    return rankingsResponseSchema.parse(response.body)
  }

  /** The scored set of a search, recounted independently: every provider of the specialty within the radius (PostGIS ST_Distance on the spheroid). */
  async function scoredSetRecount(radiusM = radius): Promise<string[]> {
    const { rows } = await ctx.db.pool.query<{ npi: string }>(
      `SELECT p.npi FROM providers p, zips z WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3 ORDER BY p.npi`,
      [zip, taxonomy, radiusM],
    )
    return rows.map((r) => r.npi.trim())
  }

  /** Per scored NPI, the claims carrying a code (each claim and code once; a prefix matches its sub-codes). */
  async function codeCounts(kind: 'procedure' | 'icd10', code: string, npis: string[], prefix: boolean): Promise<Map<string, number>> {
    const sql =
      kind === 'procedure'
        ? `SELECT npi, count(*)::int AS n FROM (SELECT DISTINCT c.rendering_npi AS npi, c.id, l.procedure_code FROM claims c
             JOIN claim_procedures l ON l.claim_id = c.id WHERE c.rendering_npi = ANY($1::bpchar[]) AND ${prefix ? `l.procedure_code LIKE $2 || '%'` : 'l.procedure_code = $2'}) x GROUP BY npi`
        : `SELECT npi, count(*)::int AS n FROM (SELECT DISTINCT c.rendering_npi AS npi, c.id, d.icd10_code FROM claims c
             JOIN claim_diagnoses d ON d.claim_id = c.id WHERE c.rendering_npi = ANY($1::bpchar[]) AND ${prefix ? `d.icd10_code LIKE $2 || '%'` : 'd.icd10_code = $2'}) x GROUP BY npi`
    const { rows } = await ctx.db.pool.query<{ npi: string; n: number }>(sql, [npis, code])
    return new Map(rows.map((r) => [r.npi.trim(), r.n]))
  }

  /**
   * Recounts every number of an answer from the claims and the directory with independent SQL: the candidate
   * totals, the scored set, the typical codes, the volumes, percentiles, prices, affordability, cost, quality,
   * distance and final scores, the order, the badges, the panel counts and the facilities.
   */
  async function recount(body: RankingsResponse, search: { cpt: string[]; icd: string[]; carriers: string[]; radius?: number }) {
    const pool = ctx.db.pool
    const radiusM = search.radius ?? radius
    const total = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM providers p, zips z WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3`,
      [zip, taxonomy, radiusM],
    )
    expect(body.common_ranking_metadata.total_hcp_candidates).toBe(total.rows[0]!.n)
    const scoredNpis = await scoredSetRecount(radiusM)
    expect(scoredNpis.length).toBe(total.rows[0]!.n)
    const listed = body.hcp_rankings.map((r) => r.hcp_entity.npi)
    expect(listed.length).toBe(Math.min(100, scoredNpis.length))
    for (const npi of listed) expect(scoredNpis).toContain(npi)

    // the typical codes of the scored set's claims (5 per kind, most claims first, ties by code)
    const typicalOf = async (kind: 'procedure' | 'icd10') =>
      (
        await pool.query<{ code: string }>(
          kind === 'procedure'
            ? `SELECT l.procedure_code AS code FROM claims c JOIN claim_procedures l ON l.claim_id = c.id WHERE c.rendering_npi = ANY($1::bpchar[])
               GROUP BY 1 ORDER BY count(DISTINCT c.id) DESC, 1 LIMIT 5`
            : `SELECT d.icd10_code AS code FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id WHERE c.rendering_npi = ANY($1::bpchar[])
               GROUP BY 1 ORDER BY count(DISTINCT c.id) DESC, 1 LIMIT 5`,
          [scoredNpis],
        )
      ).rows.map((r) => r.code)
    const typical = { procedure: await typicalOf('procedure'), icd10: await typicalOf('icd10') }
    const given = search.cpt.length + search.icd.length > 0
    const relevant = given ? { procedure: search.cpt, icd10: search.icd } : typical
    expect(body.common_ranking_metadata.codes_source).toBe(given ? 'given' : 'typical')
    expect([...body.common_ranking_metadata.relevant_procedure_codes].sort()).toEqual([...relevant.procedure].sort())
    expect([...body.common_ranking_metadata.relevant_diagnosis_codes].sort()).toEqual([...relevant.icd10].sort())

    const counts = { procedure: new Map<string, Map<string, number>>(), icd10: new Map<string, Map<string, number>>() }
    for (const kind of ['procedure', 'icd10'] as const)
      for (const code of relevant[kind]) counts[kind].set(code, await codeCounts(kind, code, scoredNpis, given))
    const topical = { procedure: new Map<string, Map<string, number>>(), icd10: new Map<string, Map<string, number>>() }
    for (const kind of ['procedure', 'icd10'] as const)
      for (const code of typical[kind]) topical[kind].set(code, await codeCounts(kind, code, scoredNpis, false))
    const volumes = scoredNpis.map((npi) =>
      (['procedure', 'icd10'] as const).reduce(
        (sum, kind) => sum + [...counts[kind].values()].reduce((s, m) => s + (m.get(npi) ?? 0), 0),
        0,
      ),
    )
    const qualityRanks = percentRanks(volumes)
    const codeRanks = (kind: 'procedure' | 'icd10', code: string) =>
      percentRanks(scoredNpis.map((npi) => counts[kind].get(code)!.get(npi) ?? 0))

    // prices of the cost procedures (the given CPT codes, else the typical procedures) and affordability among the scored that billed them
    const costCodes = search.cpt.length > 0 ? search.cpt : typical.procedure
    const prices = new Map<string, Map<string, { list: number; negotiated: number; insurer: number; patient: number }>>()
    for (const code of costCodes) {
      const { rows } = await pool.query<{ npi: string; list: string; negotiated: string; insurer: string; patient: string }>(
        `SELECT c.rendering_npi AS npi, round(avg(l.list_amount / l.units), 2) AS list, round(avg(l.negotiated_amount / l.units), 2) AS negotiated,
                round(avg(l.insurer_amount / l.units), 2) AS insurer, round(avg(l.patient_amount / l.units), 2) AS patient
         FROM claims c JOIN claim_procedures l ON l.claim_id = c.id
         WHERE c.rendering_npi = ANY($1::bpchar[]) AND l.procedure_code = $2 AND l.units > 0 GROUP BY c.rendering_npi`,
        [scoredNpis, code],
      )
      prices.set(
        code,
        new Map(
          rows.map((r) => [
            r.npi.trim(),
            { list: Number(r.list), negotiated: Number(r.negotiated), insurer: Number(r.insurer), patient: Number(r.patient) },
          ]),
        ),
      )
    }
    const affordability = new Map<string, { negotiated: Map<string, number>; patient: Map<string, number>; peers: number }>()
    for (const [code, byNpi] of prices) {
      const npis = [...byNpi.keys()]
      const negotiated = affordabilityPercentiles(npis.map((npi) => byNpi.get(npi)!.negotiated))
      const patient = affordabilityPercentiles(npis.map((npi) => byNpi.get(npi)!.patient))
      affordability.set(code, {
        negotiated: new Map(npis.map((npi, i) => [npi, negotiated[i]!])),
        patient: new Map(npis.map((npi, i) => [npi, patient[i]!])),
        peers: npis.length,
      })
    }

    const details = await pool.query<{
      npi: string
      miles: number
      accepting: boolean
      networks: Record<string, boolean>
      hco_npi: string | null
      hco_name: string | null
      hco_type: string | null
    }>(
      `SELECT p.npi, ST_Distance(p.geog, z.geog) / ${METERS_PER_MILE} AS miles, p.accepting_new_patients AS accepting,
              p.aggregated_insurance_networks_v1 AS networks,
              (SELECT f.npi FROM facilities f WHERE f.id = p.facility_id) AS hco_npi,
              (SELECT f.name FROM facilities f WHERE f.id = p.facility_id) AS hco_name,
              (SELECT f.hco_compile_level_1 FROM facilities f WHERE f.id = p.facility_id) AS hco_type
       FROM providers p, zips z WHERE z.zip = $1 AND p.npi = ANY($2::bpchar[])`,
      [zip, listed],
    )
    const panels = await pool.query<{ npi: string; last_year: number; last_month_new: number }>(
      `WITH ref AS (SELECT max(service_date) AS d FROM claims),
       seen AS (SELECT rendering_npi AS npi, patient_id, min(service_date) AS first, max(service_date) AS last
                FROM claims WHERE rendering_npi = ANY($1::bpchar[]) GROUP BY 1, 2)
       SELECT npi, count(*) FILTER (WHERE last > ref.d - 365)::int AS last_year, count(*) FILTER (WHERE first > ref.d - 30)::int AS last_month_new
       FROM seen, ref GROUP BY npi`,
      [listed],
    )
    const detailOf = new Map(details.rows.map((r) => [r.npi.trim(), r]))
    const panelOf = new Map(panels.rows.map((r) => [r.npi.trim(), r]))

    let previous: HcpRanking | null = null
    for (const r of body.hcp_rankings) {
      const npi = r.hcp_entity.npi
      const i = scoredNpis.indexOf(npi)
      const d = detailOf.get(npi)!
      // distance
      expect(r.features.distance_in_miles).toBeCloseTo(d.miles, 2)
      expect(r.task_scores.distance).toBeCloseTo(Math.max(0, 1 - (d.miles * METERS_PER_MILE) / radiusM), 3)
      // volumes and percentiles
      const shown = (kind: 'procedure' | 'icd10', table: Map<string, Map<string, number>>) =>
        Object.fromEntries([...table].flatMap(([code, m]) => (m.has(npi) ? [[code, m.get(npi)!]] : [])))
      expect(r.features.given_procedure_counts).toEqual(given ? shown('procedure', counts.procedure) : {})
      expect(r.features.given_diagnosis_counts).toEqual(given ? shown('icd10', counts.icd10) : {})
      expect(r.features.topical_procedure_counts).toEqual(shown('procedure', topical.procedure))
      expect(r.features.topical_diagnosis_counts).toEqual(shown('icd10', topical.icd10))
      expect(r.features.relevant_claim_count).toBe(volumes[i])
      expect(r.task_scores.quality_of_care).toBeCloseTo(volumes[i]! > 0 ? qualityRanks[i]! / 100 : 0, 3)
      for (const [kind, list] of [
        ['procedure', r.features.top_procedure_percentiles],
        ['icd10', r.features.top_diagnosis_percentiles],
      ] as const) {
        const expected = relevant[kind].filter((code) => (counts[kind].get(code)!.get(npi) ?? 0) > 0)
        expect(list.length).toBe(Math.min(10, expected.length))
        for (const entry of list) {
          expect(entry.count).toBe(counts[kind].get(entry.code)!.get(npi))
          expect(entry.percentile).toBeCloseTo(codeRanks(kind, entry.code)[i]!, 1)
        }
      }
      // prices, affordability and cost
      const parts: number[] = []
      let peers = Infinity
      for (const code of costCodes) {
        const price = prices.get(code)!.get(npi)
        if (!price) {
          expect(r.features.avg_negotiated_price_by_procedure[code]).toBeUndefined()
          continue
        }
        const aff = affordability.get(code)!
        expect(r.features.avg_initial_price_by_procedure[code]).toBe(price.list)
        expect(r.features.avg_negotiated_price_by_procedure[code]).toBe(price.negotiated)
        expect(r.features.avg_insurer_price_by_procedure[code]).toBe(price.insurer)
        expect(r.features.avg_patient_price_by_procedure[code]).toBe(price.patient)
        expect(r.features.negotiated_affordability_percentiles[code]).toBeCloseTo(aff.negotiated.get(npi)!, 1)
        expect(r.features.patient_affordability_percentiles[code]).toBeCloseTo(aff.patient.get(npi)!, 1)
        parts.push((aff.negotiated.get(npi)! + aff.patient.get(npi)!) / 200)
        peers = Math.min(peers, aff.peers)
      }
      const cost = parts.length > 0 ? parts.reduce((a, b) => a + b, 0) / parts.length : null
      expect(r.task_scores.cost).toBeCloseTo(cost ?? 0.5, 3)
      expect(r.task_scores.cost_grade).toBe(gradeOf(cost))
      const mix =
        CARE_SCORE_WEIGHTS.quality_of_care * r.task_scores.quality_of_care +
        CARE_SCORE_WEIGHTS.cost * r.task_scores.cost +
        CARE_SCORE_WEIGHTS.distance * r.task_scores.distance
      expect(r.final_score).toBeCloseTo(mix, 3)
      expect(r.final_grade).toBe(gradeOf(r.final_score))
      // network and order
      const inNetwork = search.carriers.length > 0 ? search.carriers.some((carrier) => d.networks[carrier] === true) : null
      expect(r.in_network).toBe(inNetwork)
      if (previous) {
        expect(Number(previous.in_network === true)).toBeGreaterThanOrEqual(Number(r.in_network === true))
        if (previous.in_network === r.in_network) expect(previous.final_score).toBeGreaterThanOrEqual(r.final_score)
      }
      previous = r
      // badges, only when true
      const allMatch = (kind: 'procedure' | 'icd10', codes: string[]) =>
        codes.length > 0 && codes.every((code) => (counts[kind].get(code)?.get(npi) ?? 0) > 0)
      expect(r.badges.includes('ALL_PROCEDURES_MATCH')).toBe(given && allMatch('procedure', search.cpt))
      expect(r.badges.includes('ALL_DIAGNOSIS_MATCH')).toBe(given && allMatch('icd10', search.icd))
      expect(r.badges.includes('CONFIDENTLY_AFFORDABLE')).toBe(cost !== null && cost >= 0.75 && peers >= 3)
      expect(r.badges.includes('NEW_PATIENT_AVAILABLE')).toBe(d.accepting)
      // the affiliated facility (read by the details query)
      expect([r.hcp_entity.hco_npi, r.hcp_entity.hco_name, r.hcp_entity.hco_compile_level_1]).toEqual([d.hco_npi, d.hco_name, d.hco_type])
      // panel
      expect(r.features.last_year_patient_count).toBe(panelOf.get(npi)?.last_year ?? 0)
      expect(r.features.last_month_new_patient_count).toBe(panelOf.get(npi)?.last_month_new ?? 0)
    }

    // facilities: within the radius and affiliated with a candidate (the total); scored from their scored candidates
    const facilities = await pool.query<{ id: number; scored: number; miles: number }>(
      `SELECT f.id, count(*) FILTER (WHERE p.npi = ANY($4::bpchar[]))::int AS scored, min(ST_Distance(f.geog, z.geog)) / ${METERS_PER_MILE} AS miles
       FROM providers p JOIN facilities f ON f.id = p.facility_id, zips z
       WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3 AND ST_Distance(f.geog, z.geog) <= $3
       GROUP BY f.id`,
      [zip, taxonomy, radiusM, scoredNpis],
    )
    expect(body.common_ranking_metadata.total_hco_candidates).toBe(facilities.rows.length)
    const facilityOf = new Map(facilities.rows.map((r) => [r.id, r]))
    expect(body.hco_rankings.length).toBe(Math.min(50, facilities.rows.filter((r) => r.scored > 0).length))
    for (const h of body.hco_rankings) {
      const f = facilityOf.get(h.hco_id)!
      expect(h.num_hcp_samples).toBe(f.scored)
      expect(h.distance_in_miles).toBeCloseTo(f.miles, 2)
      expect(h.final_score).toBeGreaterThanOrEqual(0)
      expect(h.final_score).toBeLessThanOrEqual(1)
    }
    const hcoScores = body.hco_rankings.map((h) => h.final_score)
    expect(hcoScores).toEqual([...hcoScores].sort((a, b) => b - a))
    return scoredNpis
  }

  it('finds every candidate of the specialty within the radius (independent count), scores in 0..1, best first', async () => {
    const body = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius })
    const count = await ctx.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM providers p, zips z WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3`,
      [zip, taxonomy, radius],
    )
    expect(body.common_ranking_metadata.total_hcp_candidates).toBe(count.rows[0]!.n)
    expect(body.hcp_rankings.length).toBe(Math.min(100, count.rows[0]!.n))
    expect(body.hcp_rankings.length).toBeGreaterThan(5)
    expect(body.common_ranking_metadata.codes_source).toBe('typical')
    const z = await ctx.db.prisma.zip.findUniqueOrThrow({ where: { zip } })
    expect(body).toMatchObject({ search_lat: z.latitude, search_long: z.longitude, city: z.city, state: z.state })
    const scores = body.hcp_rankings.map((r) => r.final_score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    for (const r of body.hcp_rankings) {
      for (const value of [r.final_score, r.task_scores.cost, r.task_scores.distance, r.task_scores.quality_of_care]) {
        expect(value).toBeGreaterThanOrEqual(0)
        expect(value).toBeLessThanOrEqual(1)
      }
      expect(r.final_grade).toBe(gradeOf(r.final_score))
      const mix =
        CARE_SCORE_WEIGHTS.quality_of_care * r.task_scores.quality_of_care +
        CARE_SCORE_WEIGHTS.cost * r.task_scores.cost +
        CARE_SCORE_WEIGHTS.distance * r.task_scores.distance
      expect(r.final_score).toBeCloseTo(mix, 3)
      expect(r.hcp_entity.directory_confidence).toBeGreaterThanOrEqual(0)
      expect(r.hcp_entity.last_verified_at).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    }
    // distances: recomputed by PostGIS, within the radius
    const npis = body.hcp_rankings.map((r) => r.hcp_entity.npi)
    const distances = await ctx.db.pool.query<{ npi: string; miles: number; taxonomy: string }>(
      `SELECT p.npi, ST_Distance(p.geog, z.geog) / ${METERS_PER_MILE} AS miles, p.primary_taxonomy_code AS taxonomy
       FROM providers p, zips z WHERE z.zip = $1 AND p.npi = ANY($2::bpchar[])`,
      [zip, npis],
    )
    for (const row of distances.rows) {
      const ranked = body.hcp_rankings.find((r) => r.hcp_entity.npi === row.npi)!
      expect(ranked.features.distance_in_miles).toBeCloseTo(row.miles, 2)
      expect(row.miles * METERS_PER_MILE).toBeLessThanOrEqual(radius)
      expect(row.taxonomy).toBe(taxonomy)
    }
    // every number of the typical-codes search, recounted
    await recount(body, { cpt: [], icd: [], carriers: [] })
    // a smaller radius keeps only the closer ones
    const near = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: 40_000 })
    for (const r of near.hcp_rankings) expect(r.features.distance_in_miles * METERS_PER_MILE).toBeLessThanOrEqual(40_000)
    expect(near.common_ranking_metadata.total_hcp_candidates).toBeLessThanOrEqual(body.common_ranking_metadata.total_hcp_candidates)
  })

  it('computes the features from the claims: counts, prices and percentiles equal an independent recount', async () => {
    const body = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius, cpt_union_csv: cpt, icd10_cm_union_csv: icdCategory })
    expect(body.common_ranking_metadata.relevant_procedure_codes).toEqual([cpt])
    expect(body.common_ranking_metadata.relevant_diagnosis_codes).toEqual([icdCategory])
    await recount(body, { cpt: [cpt], icd: [icdCategory], carriers: [] })
    // the given codes are billed by some candidates, so the recount compared non-empty volumes
    expect(body.hcp_rankings.some((r) => Object.keys(r.features.given_procedure_counts).length > 0)).toBe(true)
    expect(body.hcp_rankings.some((r) => Object.keys(r.features.given_diagnosis_counts).length > 0)).toBe(true)
    expect(body.common_ranking_metadata.procedure_code_descriptions[cpt]).toEqual(expect.any(String))
    expect(body.common_ranking_metadata.diagnosis_code_descriptions[icdCategory]).toEqual(expect.any(String))
  })

  it('counts a CPT code typed twice in two cases once: the same answer as the code alone', async () => {
    // a code with letters (HCPCS, e.g. J0178) among the candidates' claims, so that its cases differ
    const { rows } = await ctx.db.pool.query<{ code: string }>(
      `SELECT v.code FROM mv_provider_code_volume v JOIN providers p ON p.npi = v.npi, zips z
       WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_DWithin(p.geog, z.geog, $3)
         AND v.code_kind = 'procedure' AND v.code ~ '[A-Z]'
       GROUP BY 1 ORDER BY sum(v.claim_count) DESC, 1 LIMIT 1`,
      [zip, taxonomy, radius],
    )
    const code = rows[0]?.code
    expect(code, 'a procedure code with letters in the dataset').toBeDefined()
    const base = { zip_code: zip, omni_code: taxonomy, radius_in_m: radius, _bypass_cache: 'true' }
    const single = await rankings({ ...base, cpt_union_csv: code! })
    const twice = await rankings({ ...base, cpt_union_csv: `${code!.toLowerCase()},${code!}` })
    expect(single.status, single.text).toBe(200)
    expect(twice.status, twice.text).toBe(200)
    expect(twice.text).toBe(single.text)
    const body = rankingsResponseSchema.parse(twice.body)
    expect(body.hcp_rankings.some((r) => (r.features.given_procedure_counts[code!] ?? 0) > 0)).toBe(true)
    await recount(body, { cpt: [code!], icd: [], carriers: [] })
  })

  it('scores a facility from all its candidates: a radius where every candidate is listed, the means recounted', async () => {
    // the radius that holds at most 100 candidates, so every candidate's scores are shown
    const { rows } = await ctx.db.pool.query<{ d: number }>(
      `SELECT ST_Distance(p.geog, z.geog) AS d FROM providers p, zips z WHERE z.zip = $1 AND p.primary_taxonomy_code = $2
       ORDER BY 1 OFFSET 99 LIMIT 1`,
      [zip, taxonomy],
    )
    const radiusM = Math.max(1, Math.min(radius, Math.floor(rows[0]!.d) - 1))
    const carrier = await commonCarrier()
    const body = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radiusM, cpt_union_csv: cpt, insurance_names_csv: carrier })
    const scored = await recount(body, { cpt: [cpt], icd: [], carriers: [carrier], radius: radiusM })
    expect(scored.length).toBeGreaterThan(5)
    expect(body.hcp_rankings.length).toBe(scored.length)
    const facilityOf = new Map(
      (
        await ctx.db.pool.query<{ npi: string; facility_id: number | null }>(
          'SELECT npi, facility_id FROM providers WHERE npi = ANY($1::bpchar[])',
          [scored],
        )
      ).rows.map((r) => [r.npi.trim(), r.facility_id]),
    )
    expect(body.hco_rankings.length).toBeGreaterThan(0)
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
    for (const h of body.hco_rankings) {
      const list = body.hcp_rankings.filter((r) => facilityOf.get(r.hcp_entity.npi) === h.hco_id)
      expect(list.length).toBe(h.num_hcp_samples)
      expect(h.task_scores.quality_of_care).toBeCloseTo(mean(list.map((r) => r.task_scores.quality_of_care)), 3)
      const costs = list.filter((r) => r.task_scores.cost_grade !== 'N/A').map((r) => r.task_scores.cost)
      expect(h.task_scores.cost).toBeCloseTo(costs.length > 0 ? mean(costs) : 0.5, 3)
      const mix =
        CARE_SCORE_WEIGHTS.quality_of_care * h.task_scores.quality_of_care +
        CARE_SCORE_WEIGHTS.cost * h.task_scores.cost +
        CARE_SCORE_WEIGHTS.distance * h.task_scores.distance
      expect(h.final_score).toBeCloseTo(mix, 3)
    }
  })

  it('measures distances as PostGIS does on the spheroid', async () => {
    const { rows } = await ctx.db.pool.query<{ a_lat: number; a_lng: number; b_lat: number; b_lng: number; d: number }>(
      `SELECT a.latitude AS a_lat, a.longitude AS a_lng, b.latitude AS b_lat, b.longitude AS b_lng, ST_Distance(a.geog, b.geog) AS d
       FROM (SELECT latitude, longitude, geog FROM providers ORDER BY npi LIMIT 40) a,
            (SELECT latitude, longitude, geog FROM zips ORDER BY zip LIMIT 40) b`,
    )
    expect(rows.length).toBe(1600)
    for (const r of rows) expect(Math.abs(spheroidDistance(r.a_lat, r.a_lng, r.b_lat, r.b_lng) - r.d)).toBeLessThan(0.001)
  })

  it('ranks in-network clinicians above out-of-network ones when a carrier is given', async () => {
    const carrier = await commonCarrier()
    const body = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius, insurance_names_csv: carrier })
    await recount(body, { cpt: [], icd: [], carriers: [carrier] })
    const flags = body.hcp_rankings.map((r) => r.in_network)
    expect(flags).toContain(true)
    expect(flags).toContain(false)
    expect(flags.indexOf(false)).toBeGreaterThan(flags.lastIndexOf(true))
    for (const r of body.hcp_rankings) expect(r.in_network).toBe(r.hcp_entity.aggregated_insurance_networks_v1[carrier] === true)
    const within = (list: HcpRanking[]) => list.map((r) => r.final_score)
    const inNet = within(body.hcp_rankings.filter((r) => r.in_network))
    expect(inNet).toEqual([...inNet].sort((a, b) => b - a))
    // a carrier name in another case is the same carrier
    const lower = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius, insurance_names_csv: carrier.toLowerCase() })
    expect(lower.hcp_rankings.map((r) => r.in_network)).toEqual(flags)
  })

  it('narrows to filter_npis with the scores of the full search; facilities aggregate their candidates', async () => {
    const full = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius })
    const chosen = [full.hcp_rankings[3]!, full.hcp_rankings[1]!]
    const hco = full.hco_rankings.find((h) => h.hco_npi !== null)
    const filter = [...chosen.map((r) => r.hcp_entity.npi), ...(hco ? [hco.hco_npi!] : [])]
    const narrowed = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius, filter_npis: filter.join(',') })
    expect(narrowed.hcp_rankings.map((r) => r.hcp_entity.npi)).toEqual([chosen[1]!.hcp_entity.npi, chosen[0]!.hcp_entity.npi])
    expect(narrowed.hcp_rankings[0]!.final_score).toBe(chosen[1]!.final_score)
    expect(narrowed.hco_rankings.map((h) => h.hco_npi)).toEqual(hco ? [hco.hco_npi] : [])

    expect(full.hco_rankings.length).toBeGreaterThan(0)
    await recount(full, { cpt: [], icd: [], carriers: [] })
  })

  it('answers 400 naming the field for an unknown ZIP, specialty, carrier or code, and costs no credit', async () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ zip_code: '00000', omni_code: taxonomy }, 'querystring.zip_code', /ZIP code 00000/],
      [{ zip_code: '12', omni_code: taxonomy }, 'querystring.zip_code', /zip_code/],
      [{ zip_code: zip, omni_code: 'XXXXXXXXXX' }, 'querystring.omni_code', /omni_code/],
      [{ zip_code: zip, omni_code: taxonomy, insurance_names_csv: 'No Such Plan' }, 'querystring.insurance_names_csv', /No Such Plan/],
      [{ zip_code: zip, omni_code: taxonomy, cpt_union_csv: '00000' }, 'querystring.cpt_union_csv', /cpt_union_csv/],
      [{ zip_code: zip, omni_code: taxonomy, icd10_cm_union_csv: 'Q99.999' }, 'querystring.icd10_cm_union_csv', /icd10_cm_union_csv/],
      [{ zip_code: zip, omni_code: taxonomy, filter_npis: 'abc' }, 'querystring.filter_npis', /filter_npis/],
      [{ zip_code: zip, omni_code: taxonomy, omni_genre: 'DRUG' }, 'querystring.omni_genre', /SPECIALTY/],
    ]
    const before = await ctx.db.prisma.creditUsage.findFirst({ where: { company_id: tenant.company.id, product_group: 'CARE_SELECT' } })
    for (const [query, path, message] of cases) {
      const response = await rankings(query)
      expect(response.status, JSON.stringify(query)).toBe(400)
      expect(response.body.message).toMatch(message)
      expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path)
    }
    const after = await ctx.db.prisma.creditUsage.findFirst({ where: { company_id: tenant.company.id, product_group: 'CARE_SELECT' } })
    expect(after?.used ?? 0).toBe(before?.used ?? 0)
    // nothing found: 200 with empty lists (a specialty no one practises near this ZIP)
    const empty = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: 1 })
    expect(empty.hcp_rankings).toEqual([])
    expect(empty.hco_rankings).toEqual([])
  })

  it('takes one credit per search and refuses when the credits are spent', async () => {
    const limited = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT', limit: 2 }] })
    const headers = { authorization: `Bearer ${await loginTokenFor(limited.users[0]!, limited.company.company_name)}` }
    const query = { zip_code: zip, omni_code: taxonomy }
    const first = await rankings(query, headers)
    expect(first.status).toBe(200)
    expect(first.headers['x-credits-remaining']).toBe('1')
    expect((await rankings(query, headers)).status).toBe(200)
    const third = await rankings(query, headers)
    expect(third.status).toBe(402)
    const usage = await ctx.db.prisma.creditUsage.findFirstOrThrow({
      where: { company_id: limited.company.id, product_group: 'CARE_SELECT' },
    })
    expect(usage.used).toBe(2)
  })

  it('admits an API key, a link token that lists the endpoint, and refuses the others', async () => {
    const admin = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const key = await request(ctx.app.server)
      .post('/api/admin/api-token')
      .set({ authorization: `Bearer ${admin}` })
      .send({ name: 'care', company_id: tenant.company.id })
    expect(key.status, JSON.stringify(key.body)).toBe(200)
    const query = { zip_code: zip, omni_code: taxonomy }
    expect((await rankings(query, { authorization: `Bearer ${key.body.token}` })).status).toBe(200)
    // a company without CARE_SELECT
    const other = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'ATLAS' }] })
    expect(
      (await rankings(query, { authorization: `Bearer ${await loginTokenFor(other.users[0]!, other.company.company_name)}` })).status,
    ).toBe(403)
    // links
    const link = async (body: Record<string, unknown>) => {
      const response = await request(ctx.app.server)
        .post('/api/shareable-url')
        .set(auth())
        .send({ url_type: 'public', client_routes: ['/member-recommendations'], role: 'member', ...body })
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      return new URL(response.body.url).searchParams.get('token') as string
    }
    const allowed = await link({ api_endpoints: ['GET /care-select/rankings'] })
    const withLink = await request(ctx.app.server)
      .get('/api/care-select/rankings')
      .query({ ...query, token: allowed })
    expect(withLink.status).toBe(200)
    const notListed = await link({ api_endpoints: ['GET /shareable-url/validate-shareable-link'] })
    const refused = await request(ctx.app.server)
      .get('/api/care-select/rankings')
      .query({ ...query, token: notListed })
    expect(refused.status).toBe(403)
    expect(refused.body.message).toBe(SHARE_MESSAGES.endpointNotAllowed)
    const needsVerification = await link({
      url_type: 'private',
      api_endpoints: ['GET /care-select/rankings'],
      requires_email_verification: true,
      invite_email: 'member@example.com',
    })
    const unverified = await request(ctx.app.server)
      .get('/api/care-select/rankings')
      .query({ ...query, token: needsVerification })
    expect(unverified.status).toBe(403)
    expect(unverified.body).not.toHaveProperty('hcp_rankings')
    expect((await rankings(query, {})).status).toBe(401)
  })

  it('holds a signed-in caller who presents a link to it: only its authorized users, only its api_endpoints', async () => {
    const query = { zip_code: zip, omni_code: taxonomy }
    const member = tenant.users[2]!
    const memberAuth = { authorization: `Bearer ${await loginTokenFor(member, tenant.company.company_name)}` }
    const link = async (body: Record<string, unknown>) => {
      const response = await request(ctx.app.server)
        .post('/api/shareable-url')
        .set(auth())
        .send({
          url_type: 'private',
          client_routes: ['/member-recommendations'],
          role: 'member',
          authorized_user_ids: [member.id],
          ...body,
        })
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      return { id: response.body.id as string, token: new URL(response.body.url).searchParams.get('token') as string }
    }
    const validate = (token: string, headers: Record<string, string>) =>
      request(ctx.app.server).get('/api/shareable-url/validate-shareable-link').query({ token }).set(headers)
    const usage = async () =>
      (await ctx.db.prisma.creditUsage.findMany({ where: { company_id: tenant.company.id, product_group: 'CARE_SELECT' } })).reduce(
        (sum, row) => sum + row.used,
        0,
      )
    const restricted = await link({ api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'] })
    const notAuthorized = { message: 'You are not authorized to access this content', code: 'FORBIDDEN', status: 403 }

    // a signed-in user the link does not list: refused on every endpoint the link opens, at no credit
    const before = await usage()
    const other = await rankings({ ...query, token: restricted.token }, auth())
    expect(other.status).toBe(403)
    expect(other.body).toEqual(notAuthorized)
    expect((await validate(restricted.token, auth())).body).toEqual(notAuthorized)
    // the same user through an API key of the company (the key's owner is not listed either)
    const admin = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const key = await request(ctx.app.server)
      .post('/api/admin/api-token')
      .set({ authorization: `Bearer ${admin}` })
      .send({ name: 'care-link', company_id: tenant.company.id })
    expect(key.status, JSON.stringify(key.body)).toBe(200)
    const byKey = await rankings({ ...query, token: restricted.token }, { authorization: `Bearer ${key.body.token}` })
    expect(byKey.status).toBe(403)
    expect(byKey.body).toEqual(notAuthorized)
    expect(await usage()).toBe(before)

    // the listed user gets the rankings and the validation through the link...
    const listed = await rankings({ ...query, token: restricted.token }, memberAuth)
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
    expect(rankingsResponseSchema.parse(listed.body).hcp_rankings.length).toBeGreaterThan(0)
    expect(await usage()).toBe(before + 1)
    const validated = await validate(restricted.token, memberAuth)
    expect(validated.status).toBe(200)
    expect(validated.body.authorized_user_ids).toEqual([member.id])
    // ...and only the link's api_endpoints: an endpoint the link does not list is refused while the link is presented
    const products = await request(ctx.app.server).get('/api/company/products').query({ token: restricted.token }).set(memberAuth)
    expect(products.status).toBe(403)
    expect(products.body).toEqual({ message: 'This shared link does not grant access to this endpoint', code: 'FORBIDDEN', status: 403 })
    expect((await request(ctx.app.server).get('/api/company/products').set(memberAuth)).status).toBe(200)
    const validateOnly = await link({ api_endpoints: ['GET /shareable-url/validate-shareable-link'] })
    const unlisted = await rankings({ ...query, token: validateOnly.token }, memberAuth)
    expect(unlisted.status).toBe(403)
    expect(unlisted.body.message).toBe(SHARE_MESSAGES.endpointNotAllowed)

    // a revoked link presented beside a valid login is refused as a link, not ignored
    const revoked = await request(ctx.app.server).post(`/api/shareable-url/${restricted.id}/revoke`).set(auth())
    expect(revoked.status).toBe(200)
    const afterRevoke = await rankings({ ...query, token: restricted.token }, memberAuth)
    expect(afterRevoke.status).toBe(401)
    expect(afterRevoke.body).toEqual({ message: SHARE_MESSAGES.invalidToken, code: 'UNAUTHORIZED', status: 401 })

    // an anonymous holder of a restricted link is asked to sign in
    const anonymous = await rankings({ ...query, token: (await link({ api_endpoints: ['GET /care-select/rankings'] })).token }, {})
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.message).toBe('This shared link is restricted to specific users. Please sign in.')
  })

  describe('the result cache of scored searches (docs/decisions/0060)', () => {
    /** What the cache did since the last call: answers from it, and scorings run. */
    let seen = { hits: 0, scorings: 0, answers: 0 }
    const delta = () => {
      const cache = scoredSearchCache(ctx.app.db.pool)
      const change = { hits: cache.hits - seen.hits, scorings: cache.scorings - seen.scorings }
      seen = { hits: cache.hits, scorings: cache.scorings, answers: cache.answerHits }
      return change
    }
    /** Of the hits since the last delta(), those that sent the answer kept with the scoring (docs/decisions/0063). */
    const answerHits = () => scoredSearchCache(ctx.app.db.pool).answerHits - seen.answers
    const usage = async (companyId: number) =>
      (await ctx.db.prisma.creditUsage.findMany({ where: { company_id: companyId, product_group: 'CARE_SELECT' } })).reduce(
        (sum, row) => sum + row.used,
        0,
      )
    let query: Record<string, string | number> = {}
    let reordered: Record<string, string | number> = {}

    beforeAll(async () => {
      const codes = await ctx.db.pool.query<{ code: string }>(
        `SELECT v.code FROM mv_provider_code_volume v JOIN providers p ON p.npi = v.npi
         WHERE v.code_kind = 'procedure' AND p.primary_taxonomy_code = $1 GROUP BY 1 ORDER BY sum(v.claim_count) DESC, 1 LIMIT 2`,
        [taxonomy],
      )
      const [a, b] = codes.rows.map((r) => r.code)
      const carrier = await commonCarrier()
      query = {
        zip_code: zip,
        omni_code: taxonomy,
        radius_in_m: radius,
        cpt_union_csv: `${a},${b}`,
        icd10_cm_union_csv: icdCategory,
        insurance_names_csv: carrier,
      }
      // the same search typed otherwise: codes in another order and case, the carrier in lower case
      reordered = { ...query, cpt_union_csv: `${b!.toLowerCase()}, ${a}`, insurance_names_csv: carrier.toLowerCase() }
    })

    it('answers a repeated search from the cache with the same JSON, a credit each time; _bypass_cache scores afresh', async () => {
      delta()
      const before = await usage(tenant.company.id)
      const fresh = await rankings({ ...query, _bypass_cache: 'true' }, { ...auth(), 'accept-encoding': 'identity' })
      expect(fresh.status, fresh.text).toBe(200)
      expect(delta()).toEqual({ hits: 0, scorings: 1 })
      rankingsResponseSchema.parse(fresh.body)
      expect(fresh.body.hcp_rankings.length).toBeGreaterThan(1)

      const repeated = await rankings(query, { ...auth(), 'accept-encoding': 'identity' })
      expect(repeated.status).toBe(200)
      // the answer written for the fresh search is sent again (0063): the same bytes and headers
      expect(answerHits()).toBe(1)
      expect(delta()).toEqual({ hits: 1, scorings: 0 })
      expect(repeated.text).toBe(fresh.text)
      expect(repeated.headers['content-type']).toBe(fresh.headers['content-type'])
      expect(repeated.headers['content-length']).toBe(fresh.headers['content-length'])
      expect(repeated.headers['content-encoding']).toBeUndefined()
      // to a client that accepts gzip, the kept answer compressed by @fastify/compress (docs/decisions/0077): the same
      // JSON once inflated
      const url = `/api/care-select/rankings?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`
      const gzipped = await ctx.app.inject({ method: 'GET', url, headers: { ...auth(), 'accept-encoding': 'gzip, deflate, br' } })
      expect(answerHits()).toBe(1)
      expect(delta()).toEqual({ hits: 1, scorings: 0 })
      expect(gzipped.headers['content-encoding']).toBe('gzip')
      expect(gzipped.headers.vary).toMatch(/accept-encoding/i)
      expect(gzipped.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(gunzipSync(gzipped.rawPayload).toString('utf8')).toBe(fresh.text)
      expect(gzipped.rawPayload.length).toBeLessThan(Buffer.byteLength(fresh.text) / 3)
      // the same search in another order and case is the same entry, and the same answer
      const other = await rankings(reordered)
      expect(answerHits()).toBe(1)
      expect(delta()).toEqual({ hits: 1, scorings: 0 })
      expect(other.text).toBe(fresh.text)

      const again = await rankings({ ...query, _bypass_cache: '1' })
      expect(delta()).toEqual({ hits: 0, scorings: 1 })
      expect(again.text).toBe(fresh.text)
      // one credit per answered search, cached or not
      expect(await usage(tenant.company.id)).toBe(before + 5)
    })

    it('narrows a cached search to filter_npis exactly as a fresh scoring does', async () => {
      const full = await ok(query)
      delta()
      const filter = [
        full.hcp_rankings.at(-1)!.hcp_entity.npi,
        full.hcp_rankings[0]!.hcp_entity.npi,
        ...full.hco_rankings.flatMap((h) => (h.hco_npi ? [h.hco_npi] : [])).slice(0, 2),
      ]
      // the scoring is the full search's; this selection's answer is written from it (no answer kept for it yet)
      const cached = await rankings({ ...query, filter_npis: filter.join(',') })
      expect(answerHits()).toBe(0)
      expect(delta()).toEqual({ hits: 1, scorings: 0 })
      const fresh = await rankings({ ...query, filter_npis: filter.join(','), _bypass_cache: 'true' })
      expect(delta()).toEqual({ hits: 0, scorings: 1 })
      expect(cached.status).toBe(200)
      expect(cached.text).toBe(fresh.text)
      // the same selection in another order, repeated: its kept answer, the same bytes; the unfiltered answer unchanged
      const again = await rankings({ ...query, filter_npis: [...filter].reverse().join(',') })
      expect(answerHits()).toBe(1)
      expect(delta()).toEqual({ hits: 1, scorings: 0 })
      expect(again.text).toBe(fresh.text)
      const unfiltered = await rankings(query)
      expect(unfiltered.text).toBe((await rankings({ ...query, _bypass_cache: 'true' })).text)
      delta()
      const narrowed = rankingsResponseSchema.parse(cached.body)
      expect(narrowed.hcp_rankings.map((r) => r.hcp_entity.npi)).toEqual([filter[1], filter[0]])
      expect(narrowed.hcp_rankings[1]!.final_score).toBe(full.hcp_rankings.at(-1)!.final_score)
      expect(narrowed.common_ranking_metadata.total_hcp_candidates).toBe(full.common_ranking_metadata.total_hcp_candidates)
    })

    it('checks input, access, links and credits on a cache hit as on a fresh search', async () => {
      expect((await rankings(query)).status).toBe(200)
      delta()
      // 400 for bad input, at no credit and without touching the cache
      const before = await usage(tenant.company.id)
      const bad = await rankings({ ...query, insurance_names_csv: 'No Such Plan' })
      expect(bad.status).toBe(400)
      expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('querystring.insurance_names_csv')
      expect((await rankings({ ...query, _bypass_cache: 'maybe' })).status).toBe(400)
      expect(await usage(tenant.company.id)).toBe(before)
      // 403 for a link that does not list the endpoint; 401 without a credential
      const notListed = await request(ctx.app.server)
        .post('/api/shareable-url')
        .set(auth())
        .send({
          url_type: 'public',
          client_routes: ['/member-recommendations'],
          role: 'member',
          api_endpoints: ['GET /shareable-url/validate-shareable-link'],
        })
      expect(notListed.status).toBe(200)
      const refused = await rankings({ ...query, token: new URL(notListed.body.url).searchParams.get('token')! }, {})
      expect(refused.status).toBe(403)
      expect(refused.body.message).toBe(SHARE_MESSAGES.endpointNotAllowed)
      expect((await rankings(query, {})).status).toBe(401)
      expect(delta()).toEqual({ hits: 0, scorings: 0 })
      // credits: a hit takes one, and a company without credits left is refused (402) though the search is cached
      const limited = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT', limit: 2 }] })
      const headers = { authorization: `Bearer ${await loginTokenFor(limited.users[0]!, limited.company.company_name)}` }
      const first = await rankings(query, headers)
      expect(first.status).toBe(200)
      expect(first.headers['x-credits-remaining']).toBe('1')
      expect((await rankings(query, headers)).headers['x-credits-remaining']).toBe('0')
      expect(delta()).toEqual({ hits: 2, scorings: 0 })
      expect((await rankings(query, headers)).status).toBe(402)
      expect(await usage(limited.company.id)).toBe(2)
    })

    // last: a new data version also rebuilds the candidate index for the tests after it
    it('scores afresh once a seed or import finishes (a new data version), with the same answer for the same data', async () => {
      const cached = await rankings(query)
      expect(cached.status).toBe(200)
      delta()
      expect((await rankings(query)).text).toBe(cached.text)
      expect(delta()).toEqual({ hits: 1, scorings: 0 })
      // what a finished seed or `data import` writes (in whatever process it runs)
      await ctx.db.pool.query(
        "INSERT INTO data_loads (kind, scale, status, finished_at) VALUES ('import', 'care-cache-test', 'done', now())",
      )
      const after = await rankings(query)
      expect(delta()).toEqual({ hits: 0, scorings: 1 })
      expect(after.text).toBe(cached.text)
      // the entries of the old version were dropped: only the search just scored is held
      expect(scoredSearchCache(ctx.app.db.pool).size).toBe(1)
      expect((await rankings(query)).text).toBe(cached.text)
      expect(delta()).toEqual({ hits: 1, scorings: 0 })
    })
  })
})
