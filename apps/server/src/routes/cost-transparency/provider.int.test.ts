import { PRICE_CHECK_MESSAGES, providerCostResponseSchema, type ProviderCostResponse } from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, useTestApp } from '../../../../../test/helpers.ts'
import { signShareToken } from '../../auth/tokens.ts'

const cents = (actual: number | null, expected: number | null, label: string) => {
  if (expected === null) return expect(actual, label).toBeNull()
  expect(Math.abs((actual as number) - expected), `${label}: ${actual} vs ${expected}`).toBeLessThanOrEqual(0.011)
}

describe('GET /api/cost-transparency/provider/{npi}', () => {
  const ctx = useTestApp({}, { dataset: true })
  let member: string
  let npi: string

  beforeAll(async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['member', 'admin'], products: [{ product_group: 'CARE_SELECT' }] })
    member = await loginTokenFor(users[0]!, company.company_name)
    // the provider with the most claims among those who have peers in the metro
    const { rows } = await ctx.db.pool.query<{ npi: string }>(
      `SELECT c.rendering_npi AS npi FROM claims c JOIN providers p ON p.npi = c.rendering_npi
       WHERE EXISTS (SELECT 1 FROM providers q WHERE q.primary_taxonomy_code = p.primary_taxonomy_code AND q.npi <> p.npi AND ST_DWithin(q.geog, p.geog, 50000)
                     AND EXISTS (SELECT 1 FROM claims qc WHERE qc.rendering_npi = q.npi))
       GROUP BY c.rendering_npi ORDER BY count(*) DESC, 1 LIMIT 1`,
    )
    npi = rows[0]!.npi
  })

  const get = (path: string, query: Record<string, string> = {}, auth: { bearer?: string; token?: string } | null = { bearer: member }) => {
    const call = request(ctx.app.server)
      .get(`/api/cost-transparency/provider/${path}`)
      .query(auth?.token ? { ...query, token: auth.token } : query)
    return auth?.bearer ? call.set('Authorization', `Bearer ${auth.bearer}`) : call
  }

  it("returns the provider's cost range, visit types and affordability against peers, recounted in SQL", async () => {
    const response = await get(npi)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const body = response.body as ProviderCostResponse
    // written with JSON.stringify, not through the zod serialiser: the answer must be the contract's exactly
    expect(providerCostResponseSchema.parse(body)).toEqual(body)
    expect(body.provider.npi).toBe(npi)

    const range = await ctx.db.pool.query<{ n: number; lo: number; mid: number; hi: number }>(
      `SELECT count(*)::int AS n, percentile_cont(0.1) WITHIN GROUP (ORDER BY negotiated_amount) AS lo,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY negotiated_amount) AS mid, percentile_cont(0.9) WITHIN GROUP (ORDER BY negotiated_amount) AS hi
       FROM claims WHERE rendering_npi = $1`,
      [npi],
    )
    const r = range.rows[0]!
    expect(body.claim_count).toBe(r.n)
    cents(body.estimated_cost_range!.low, r.lo, 'range low')
    cents(body.estimated_cost_range!.median, r.mid, 'range median')
    cents(body.estimated_cost_range!.high, r.hi, 'range high')

    // visit types: most billed first, with the mean amounts of their lines
    const visits = await ctx.db.pool.query<{ code: string; n: number; list: number; neg: number; ins: number; pat: number }>(
      `SELECT cp.procedure_code AS code, count(DISTINCT c.id)::int AS n, avg(cp.list_amount)::float8 AS list, avg(cp.negotiated_amount)::float8 AS neg,
         avg(cp.insurer_amount)::float8 AS ins, avg(cp.patient_amount)::float8 AS pat
       FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id WHERE c.rendering_npi = $1
       GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 12`,
      [npi],
    )
    expect(body.visit_types.map((v) => v.code)).toEqual(visits.rows.map((v) => v.code))
    expect(body.visit_types.length).toBeGreaterThan(0)

    // peers: same taxonomy within 50 km, the nearest 200; each peer's mean negotiated amount per code
    const peers = await ctx.db.pool.query<{ code: string; mean: number }>(
      `WITH me AS (SELECT geog, primary_taxonomy_code FROM providers WHERE npi = $1),
       peers AS (SELECT p.npi FROM providers p, me WHERE p.primary_taxonomy_code = me.primary_taxonomy_code AND p.npi <> $1
                 AND ST_DWithin(p.geog, me.geog, 50000) ORDER BY ST_Distance(p.geog, me.geog), p.npi LIMIT 200)
       SELECT cp.procedure_code AS code, avg(cp.negotiated_amount)::float8 AS mean
       FROM peers JOIN claims c ON c.rendering_npi = peers.npi JOIN claim_procedures cp ON cp.claim_id = c.id
       GROUP BY c.rendering_npi, cp.procedure_code`,
      [npi],
    )
    let scored = 0
    for (const [i, v] of body.visit_types.entries()) {
      const e = visits.rows[i]!
      expect(v.claim_count).toBe(e.n)
      cents(v.avg_list_rate, e.list, `${v.code} list`)
      cents(v.avg_negotiated_rate, e.neg, `${v.code} negotiated`)
      cents(v.avg_insurer_rate, e.ins, `${v.code} insurer`)
      cents(v.avg_patient_rate, e.pat, `${v.code} patient`)
      const means = peers.rows.filter((p) => p.code === v.code).map((p) => p.mean)
      expect(v.peer_count).toBe(means.length)
      if (means.length === 0) {
        expect(v.affordability).toBeNull()
        continue
      }
      scored++
      cents(v.peer_avg_negotiated_rate, means.reduce((s, m) => s + m, 0) / means.length, `${v.code} peer mean`)
      const round2 = (x: number) => Math.round(x * 100) / 100
      const atOrAbove = means.filter((m) => round2(m) >= round2(e.neg)).length
      expect(v.affordability, v.code).toBe(Math.floor((100 * atOrAbove) / means.length))
    }
    expect(scored).toBeGreaterThan(0)
    expect(body.affordability).toEqual(expect.any(Number))
  })

  it("restricts the figures to one carrier's claims, the peers' means recounted from the raw claims", async () => {
    // the provider's carrier with the most claims, asked in another case (the match is case-insensitive)
    const { rows: carriers } = await ctx.db.pool.query<{ carrier: string }>(
      `SELECT insurer_name AS carrier FROM claims WHERE rendering_npi = $1 AND insurer_name IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      [npi],
    )
    const carrier = carriers[0]!.carrier
    const response = await get(npi, { payment_perspective: carrier.toUpperCase() })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const body = response.body as ProviderCostResponse
    expect(providerCostResponseSchema.parse(body)).toEqual(body)

    const range = await ctx.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM claims WHERE rendering_npi = $1 AND lower(insurer_name) = lower($2)`,
      [npi, carrier],
    )
    expect(body.claim_count).toBe(range.rows[0]!.n)
    const visits = await ctx.db.pool.query<{ code: string; n: number; neg: number }>(
      `SELECT cp.procedure_code AS code, count(DISTINCT c.id)::int AS n, avg(cp.negotiated_amount)::float8 AS neg
       FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id WHERE c.rendering_npi = $1 AND lower(c.insurer_name) = lower($2)
       GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 12`,
      [npi, carrier],
    )
    expect(body.visit_types.map((v) => v.code)).toEqual(visits.rows.map((v) => v.code))
    // each peer's mean of each code over that carrier's claim lines only, from claims and claim_procedures
    const peers = await ctx.db.pool.query<{ code: string; mean: number }>(
      `WITH me AS (SELECT geog, primary_taxonomy_code FROM providers WHERE npi = $1),
       peers AS (SELECT p.npi FROM providers p, me WHERE p.primary_taxonomy_code = me.primary_taxonomy_code AND p.npi <> $1
                 AND ST_DWithin(p.geog, me.geog, 50000) ORDER BY ST_Distance(p.geog, me.geog), p.npi LIMIT 200)
       SELECT cp.procedure_code AS code, avg(cp.negotiated_amount)::float8 AS mean
       FROM peers JOIN claims c ON c.rendering_npi = peers.npi JOIN claim_procedures cp ON cp.claim_id = c.id
       WHERE lower(c.insurer_name) = lower($2)
       GROUP BY c.rendering_npi, cp.procedure_code`,
      [npi, carrier],
    )
    const everyCarrier = await ctx.db.pool.query<{ n: number }>(
      `WITH me AS (SELECT geog, primary_taxonomy_code FROM providers WHERE npi = $1),
       peers AS (SELECT p.npi FROM providers p, me WHERE p.primary_taxonomy_code = me.primary_taxonomy_code AND p.npi <> $1
                 AND ST_DWithin(p.geog, me.geog, 50000) ORDER BY ST_Distance(p.geog, me.geog), p.npi LIMIT 200)
       SELECT count(DISTINCT (c.rendering_npi, cp.procedure_code))::int AS n
       FROM peers JOIN claims c ON c.rendering_npi = peers.npi JOIN claim_procedures cp ON cp.claim_id = c.id WHERE cp.procedure_code = ANY($2::text[])`,
      [npi, body.visit_types.map((v) => v.code)],
    )
    const round2 = (x: number) => Math.round(x * 100) / 100
    let compared = 0
    for (const [i, v] of body.visit_types.entries()) {
      const e = visits.rows[i]!
      expect(v.claim_count).toBe(e.n)
      cents(v.avg_negotiated_rate, e.neg, `${v.code} negotiated`)
      const means = peers.rows.filter((p) => p.code === v.code).map((p) => p.mean)
      expect(v.peer_count, v.code).toBe(means.length)
      compared += means.length
      if (means.length === 0) {
        expect(v.affordability).toBeNull()
        continue
      }
      cents(v.peer_avg_negotiated_rate, means.reduce((s, m) => s + m, 0) / means.length, `${v.code} peer mean`)
      expect(v.affordability, v.code).toBe(Math.floor((100 * means.filter((m) => round2(m) >= round2(e.neg)).length) / means.length))
    }
    // the carrier's lines are a part of every carrier's: the filter removed peers, so it was applied
    expect(compared).toBeGreaterThan(0)
    expect(compared).toBeLessThan(everyCarrier.rows[0]!.n)
  })

  it("answers a facility's organisation NPI with the facility's claims, facilities of its type as peers, recounted in SQL", async () => {
    const { rows } = await ctx.db.pool.query<{ id: number; npi: string }>(
      `SELECT f.id, f.npi FROM facilities f JOIN claims c ON c.facility_id = f.id
       WHERE f.npi IS NOT NULL AND NOT EXISTS (SELECT 1 FROM providers p WHERE p.npi = f.npi)
       GROUP BY f.id, f.npi ORDER BY count(*) DESC, f.id LIMIT 1`,
    )
    const facility = rows[0]!
    const response = await get(facility.npi, { payment_perspective: '' })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const body = response.body as ProviderCostResponse
    expect(providerCostResponseSchema.parse(body)).toEqual(body)
    expect(body.kind).toBe('facility')
    expect(body.provider).toMatchObject({ npi: facility.npi, facility_npi: facility.npi })
    const range = await ctx.db.pool.query<{ n: number; lo: number; hi: number }>(
      `SELECT count(*)::int AS n, percentile_cont(0.1) WITHIN GROUP (ORDER BY negotiated_amount) AS lo,
         percentile_cont(0.9) WITHIN GROUP (ORDER BY negotiated_amount) AS hi FROM claims WHERE facility_id = $1`,
      [facility.id],
    )
    expect(body.claim_count).toBe(range.rows[0]!.n)
    cents(body.estimated_cost_range!.low, range.rows[0]!.lo, 'facility range low')
    cents(body.estimated_cost_range!.high, range.rows[0]!.hi, 'facility range high')
    const visits = await ctx.db.pool.query<{ code: string; n: number; neg: number; rate: number | null }>(
      `SELECT cp.procedure_code AS code, count(DISTINCT c.id)::int AS n, avg(cp.negotiated_amount)::float8 AS neg,
         (SELECT avg(coalesce(fp.negotiated_dollar, fp.median_amount, round(fp.negotiated_percentage / 100 * fp.gross_charge, 2)))::float8
          FROM facility_prices fp WHERE fp.facility_id = $1 AND fp.procedure_code = cp.procedure_code AND fp.payer_name <> '') AS rate
       FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id WHERE c.facility_id = $1 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 12`,
      [facility.id],
    )
    expect(body.visit_types.map((v) => [v.code, v.claim_count])).toEqual(visits.rows.map((v) => [v.code, v.n]))
    for (const [i, v] of body.visit_types.entries()) {
      cents(v.avg_negotiated_rate, visits.rows[i]!.neg, `${v.code} negotiated`)
      cents(v.facility_negotiated_rate, visits.rows[i]!.rate, `${v.code} facility rate`)
    }
    const peers = await ctx.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT g.id FROM facilities f JOIN facilities g ON g.facility_type = f.facility_type AND g.id <> f.id
         AND ST_DWithin(g.geog, f.geog, 50000) WHERE f.id = $1 LIMIT 20) x`,
      [facility.id],
    )
    expect(body.peers.count).toBe(peers.rows[0]!.n)
  })

  it('404 for an unknown NPI, 400 for a malformed one', async () => {
    const unknown = await get('0000000000')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ status: 404, message: PRICE_CHECK_MESSAGES.providerNotFound('0000000000') })
    const malformed = await get('12ab')
    expect(malformed.status).toBe(400)
  })

  it('needs a credential; a link token only when its api_endpoints list the page', async () => {
    expect((await get(npi, {}, null)).status).toBe(401)
    const { company, users } = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'CARE_SELECT' }] })
    const link = async (api_endpoints: string[]) =>
      signShareToken(
        testConfig().jwtSecret,
        await ctx.db.prisma.shareableLink.create({
          data: {
            company_id: company.id,
            created_by_user_id: users[0]!.id,
            url_type: 'public',
            client_routes: [`/provider-cost-transparency/${npi}`],
            api_endpoints,
            authorized_user_ids: [],
          },
        }),
      )
    expect((await get(npi, {}, { token: await link([`GET /cost-transparency/provider/${npi}`]) })).status).toBe(200)
    expect((await get(npi, {}, { token: await link(['GET /cost-transparency/procedure']) })).status).toBe(403)
  })

  it('lets a member share the page: a public link limited to this page and its endpoint', async () => {
    const created = await request(ctx.app.server)
      .post(`/api/cost-transparency/provider/${npi}/share`)
      .set('Authorization', `Bearer ${member}`)
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const url = new URL(created.body.url as string)
    expect(url.pathname).toBe(`/provider-cost-transparency/${npi}`)
    const token = url.searchParams.get('token')!
    const link = await ctx.db.prisma.shareableLink.findUniqueOrThrow({ where: { id: created.body.id as string } })
    expect(link).toMatchObject({
      url_type: 'public',
      client_routes: [`/provider-cost-transparency/${npi}`],
      api_endpoints: [`GET /cost-transparency/provider/${npi}`],
    })
    expect((await get(npi, {}, { token })).status).toBe(200)
    const other = await ctx.db.pool.query<{ npi: string }>('SELECT npi FROM providers WHERE npi <> $1 ORDER BY id LIMIT 1', [npi])
    expect((await get(other.rows[0]!.npi, {}, { token })).status).toBe(403)
    const procedure = await request(ctx.app.server)
      .get('/api/cost-transparency/procedure')
      .query({ zip_code: '10001', procedure_codes_csv: '99213', token })
    expect(procedure.status).toBe(403)
    const missing = await request(ctx.app.server)
      .post('/api/cost-transparency/provider/0000000000/share')
      .set('Authorization', `Bearer ${member}`)
    expect(missing.status).toBe(404)
  })

  it("shares a facility's cost page (kind: facility) as it shares a clinician's (issue 33 item 2)", async () => {
    const { rows } = await ctx.db.pool.query<{ npi: string }>(
      `SELECT f.npi FROM facilities f WHERE f.npi IS NOT NULL AND NOT EXISTS (SELECT 1 FROM providers p WHERE p.npi = f.npi)
         AND EXISTS (SELECT 1 FROM claims c WHERE c.facility_id = f.id) ORDER BY f.id LIMIT 1`,
    )
    const facilityNpi = rows[0]!.npi
    expect((await get(facilityNpi)).body.kind).toBe('facility')
    const created = await request(ctx.app.server)
      .post(`/api/cost-transparency/provider/${facilityNpi}/share`)
      .set('Authorization', `Bearer ${member}`)
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const url = new URL(created.body.url as string)
    expect(url.pathname).toBe(`/provider-cost-transparency/${facilityNpi}`)
    const shared = await get(facilityNpi, {}, { token: url.searchParams.get('token')! })
    expect(shared.status).toBe(200)
    expect(shared.body.kind).toBe('facility')
  })
})
