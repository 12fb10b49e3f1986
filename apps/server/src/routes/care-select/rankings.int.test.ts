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
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { affordabilityPercentiles, percentRanks } from './rankings.ts'

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
    // a smaller radius keeps only the closer ones
    const near = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: 40_000 })
    for (const r of near.hcp_rankings) expect(r.features.distance_in_miles * METERS_PER_MILE).toBeLessThanOrEqual(40_000)
    expect(near.common_ranking_metadata.total_hcp_candidates).toBeLessThanOrEqual(body.common_ranking_metadata.total_hcp_candidates)
  })

  it('computes the features from the claims: counts, prices and percentiles equal an independent recount', async () => {
    const body = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius, cpt_union_csv: cpt, icd10_cm_union_csv: icdCategory })
    expect(body.common_ranking_metadata.codes_source).toBe('given')
    expect(body.common_ranking_metadata.relevant_procedure_codes).toEqual([cpt])
    expect(body.common_ranking_metadata.relevant_diagnosis_codes).toEqual([icdCategory])
    const pool = ctx.db.pool
    // all candidates' volumes straight from the claims (not the materialised views)
    const procedures = await pool.query<{ npi: string; n: number }>(
      `SELECT p.npi, count(DISTINCT c.id)::int AS n FROM providers p, zips z, claims c JOIN claim_procedures l ON l.claim_id = c.id
       WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3 AND c.rendering_npi = p.npi
         AND l.procedure_code = $4 GROUP BY p.npi`,
      [zip, taxonomy, radius, cpt],
    )
    const diagnoses = await pool.query<{ npi: string; n: number }>(
      `SELECT npi, count(*)::int AS n FROM (
         SELECT DISTINCT p.npi, c.id, d.icd10_code FROM providers p, zips z, claims c JOIN claim_diagnoses d ON d.claim_id = c.id
         WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3 AND c.rendering_npi = p.npi
           AND d.icd10_code LIKE $4 || '%') x GROUP BY npi`,
      [zip, taxonomy, radius, icdCategory],
    )
    const prices = await pool.query<{ npi: string; list: string; negotiated: string; insurer: string; patient: string }>(
      `SELECT c.rendering_npi AS npi, round(avg(l.list_amount / l.units), 2) AS list, round(avg(l.negotiated_amount / l.units), 2) AS negotiated,
              round(avg(l.insurer_amount / l.units), 2) AS insurer, round(avg(l.patient_amount / l.units), 2) AS patient
       FROM claims c JOIN claim_procedures l ON l.claim_id = c.id JOIN providers p ON p.npi = c.rendering_npi, zips z
       WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3 AND l.procedure_code = $4 AND l.units > 0
       GROUP BY c.rendering_npi`,
      [zip, taxonomy, radius, cpt],
    )
    const procedureCount = new Map(procedures.rows.map((r) => [r.npi.trim(), r.n]))
    const diagnosisCount = new Map(diagnoses.rows.map((r) => [r.npi.trim(), r.n]))
    const priceOf = new Map(prices.rows.map((r) => [r.npi.trim(), r]))
    expect(procedureCount.size).toBeGreaterThan(0)
    expect(diagnosisCount.size).toBeGreaterThan(0)

    const candidates = body.common_ranking_metadata.total_hcp_candidates
    expect(body.hcp_rankings.length).toBe(Math.min(candidates, 100))
    // the quality volume of every candidate, for the percentile recount
    const allNpis = (
      await pool.query<{ npi: string }>(
        `SELECT p.npi FROM providers p, zips z WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3`,
        [zip, taxonomy, radius],
      )
    ).rows.map((r) => r.npi.trim())
    const cptCounts = allNpis.map((npi) => procedureCount.get(npi) ?? 0)
    const cptRanks = percentRanks(cptCounts)
    const volumes = allNpis.map((npi) => (procedureCount.get(npi) ?? 0) + (diagnosisCount.get(npi) ?? 0))
    const qualityRanks = percentRanks(volumes)
    const priced = allNpis.filter((npi) => priceOf.has(npi))
    const negotiatedAff = affordabilityPercentiles(priced.map((npi) => Number(priceOf.get(npi)!.negotiated)))

    for (const r of body.hcp_rankings) {
      const npi = r.hcp_entity.npi
      const i = allNpis.indexOf(npi)
      expect(r.features.given_procedure_counts).toEqual(procedureCount.has(npi) ? { [cpt]: procedureCount.get(npi) } : {})
      expect(r.features.given_diagnosis_counts).toEqual(diagnosisCount.has(npi) ? { [icdCategory]: diagnosisCount.get(npi) } : {})
      expect(r.features.relevant_claim_count).toBe(volumes[i])
      expect(r.task_scores.quality_of_care).toBeCloseTo(volumes[i]! > 0 ? qualityRanks[i]! / 100 : 0, 3)
      const cptPercentile = r.features.top_procedure_percentiles.find((p) => p.code === cpt)
      if (procedureCount.has(npi)) expect(cptPercentile?.percentile).toBeCloseTo(cptRanks[i]!, 1)
      else expect(cptPercentile).toBeUndefined()
      const price = priceOf.get(npi)
      if (price) {
        expect(r.features.avg_initial_price_by_procedure[cpt]).toBe(Number(price.list))
        expect(r.features.avg_negotiated_price_by_procedure[cpt]).toBe(Number(price.negotiated))
        expect(r.features.avg_insurer_price_by_procedure[cpt]).toBe(Number(price.insurer))
        expect(r.features.avg_patient_price_by_procedure[cpt]).toBe(Number(price.patient))
        expect(r.features.negotiated_affordability_percentiles[cpt]).toBeCloseTo(negotiatedAff[priced.indexOf(npi)]!, 1)
      } else {
        expect(r.features.avg_negotiated_price_by_procedure).toEqual({})
        expect(r.task_scores.cost_grade).toBe('N/A')
      }
      // badges only when true
      if (r.badges.includes('ALL_PROCEDURES_MATCH')) expect(procedureCount.get(npi)).toBeGreaterThan(0)
      else expect(procedureCount.get(npi) ?? 0).toBe(0)
      if (r.badges.includes('ALL_DIAGNOSIS_MATCH')) expect(diagnosisCount.get(npi)).toBeGreaterThan(0)
      else expect(diagnosisCount.get(npi) ?? 0).toBe(0)
      if (r.badges.includes('CONFIDENTLY_AFFORDABLE')) expect(r.task_scores.cost).toBeGreaterThanOrEqual(0.75)
    }
    const accepting = await ctx.db.prisma.provider.findMany({
      where: { npi: { in: body.hcp_rankings.map((r) => r.hcp_entity.npi) } },
      select: { npi: true, accepting_new_patients: true },
    })
    for (const row of accepting) {
      const ranked = body.hcp_rankings.find((r) => r.hcp_entity.npi === row.npi)!
      expect(ranked.badges.includes('NEW_PATIENT_AVAILABLE')).toBe(row.accepting_new_patients)
    }
    expect(body.common_ranking_metadata.procedure_code_descriptions[cpt]).toEqual(expect.any(String))
    expect(body.common_ranking_metadata.diagnosis_code_descriptions[icdCategory]).toEqual(expect.any(String))
  })

  it('ranks in-network clinicians above out-of-network ones when a carrier is given', async () => {
    const carrier = (
      await ctx.db.pool.query<{ name: string }>(
        `SELECT n.key AS name FROM providers p, zips z, jsonb_each_text(p.aggregated_insurance_networks_v1) n
         WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_DWithin(p.geog, z.geog, $3)
         GROUP BY 1 HAVING bool_or(n.value::boolean) AND bool_or(NOT n.value::boolean) ORDER BY count(*) DESC LIMIT 1`,
        [zip, taxonomy, radius],
      )
    ).rows[0]!.name
    const body = await ok({ zip_code: zip, omni_code: taxonomy, radius_in_m: radius, insurance_names_csv: carrier })
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
    const samples = await ctx.db.pool.query<{ id: number; n: number }>(
      `SELECT f.id, count(*)::int AS n FROM providers p JOIN facilities f ON f.id = p.facility_id, zips z
       WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND ST_Distance(p.geog, z.geog) <= $3 AND ST_Distance(f.geog, z.geog) <= $3
       GROUP BY f.id`,
      [zip, taxonomy, radius],
    )
    expect(full.common_ranking_metadata.total_hco_candidates).toBe(samples.rows.length)
    for (const h of full.hco_rankings) {
      expect(h.num_hcp_samples).toBe(samples.rows.find((r) => r.id === h.hco_id)!.n)
      expect(h.final_score).toBeGreaterThanOrEqual(0)
      expect(h.final_score).toBeLessThanOrEqual(1)
      expect(h.distance_in_miles * METERS_PER_MILE).toBeLessThanOrEqual(radius)
    }
    const scores = full.hco_rankings.map((h) => h.final_score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
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
})
