import {
  procedureCostResponseSchema,
  providerCostResponseSchema,
  rankingsResponseSchema,
  type ProcedureCostResponse,
  type ProviderCostResponse,
} from '@citrus/contracts'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { silentSink } from '../../data/progress.ts'
import { runTicImport } from '../../data/tic/import.ts'
import { REPO_ROOT } from '../../runtime.ts'

const TIC_EXAMPLES = path.resolve(REPO_ROOT, '../shared/data/tic-price-transparency/examples')
const TIC_EXAMPLE = 'in-network-rates-fee-for-service-single-plan-sample.json'
/** the carrier the test's payer files are filed under (a new insurer, removed afterwards) */
const TIC_CARRIER = 'One Price Test Carrier'

interface Json {
  [key: string]: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * One number, one implementation (issue 33 item 3, docs/decisions/0075): for the same facility, codes and perspective
 * Price Check, the cost page's listed price and its visit types' listed rates show the same figures; a provider's
 * per-unit claim prices on the cost page are Care Connect's; a clinician's carrier rate from a payer file is the same on
 * the cost page and in Care Connect (docs/decisions/0081). SQL recounts and JSON.parse of the example are oracles,
 * not the product's code.
 */
describe('one pricing module across Price Check, the cost page and Care Connect', () => {
  const ctx = useTestApp({}, { dataset: true })
  let bearer = ''
  let scenario: { zip: string; code: string; payer: string }

  beforeAll(async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['member'], products: [{ product_group: 'CARE_SELECT' }] })
    bearer = await loginTokenFor(users[0]!, company.company_name)
    // the most priced (code, payer) pair of the synthetic lists with a cash price too, and the ZIP with the most such facilities
    const pair = await ctx.db.pool.query<{ code: string; payer: string }>(
      `SELECT fp.procedure_code AS code, fp.payer_name AS payer FROM facility_prices fp JOIN facilities f ON f.id = fp.facility_id
       WHERE fp.payer_name <> '' AND f.source = 'synthetic' AND f.npi IS NOT NULL
         AND EXISTS (SELECT 1 FROM facility_prices c WHERE c.facility_id = fp.facility_id AND c.procedure_code = fp.procedure_code
                     AND c.payer_name = '' AND c.discounted_cash IS NOT NULL)
       GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    const { code, payer } = pair.rows[0]!
    const zip = await ctx.db.pool.query<{ zip: string }>(
      `SELECT z.zip FROM facilities f JOIN facility_prices a ON a.facility_id = f.id AND a.procedure_code = $1 AND a.payer_name = $2
       JOIN zips z ON z.zip = f.zip_code JOIN facilities g ON ST_DWithin(g.geog, z.geog, 50000)
       JOIN facility_prices b ON b.facility_id = g.id AND b.procedure_code = $1 AND b.payer_name = $2
       GROUP BY z.zip ORDER BY count(DISTINCT g.id) DESC, z.zip LIMIT 1`,
      [code, payer],
    )
    scenario = { zip: zip.rows[0]!.zip, code, payer }
  })

  const get = async <T>(path: string, query: Record<string, string | number | boolean>) => {
    const response = await request(ctx.app.server).get(`/api${path}`).query(query).set('Authorization', `Bearer ${bearer}`)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return response.body as T
  }
  const priceCheck = async (payer: string | null) => {
    const body = await get<ProcedureCostResponse>('/cost-transparency/procedure', {
      zip_code: scenario.zip,
      procedure_codes_csv: scenario.code,
      ...(payer ? { payment_perspective: payer } : {}),
    })
    expect(procedureCostResponseSchema.parse(body)).toEqual(body)
    return body
  }
  const costPage = async (npi: string, query: Record<string, string>) => {
    const body = await get<ProviderCostResponse>(`/cost-transparency/provider/${npi}`, query)
    expect(providerCostResponseSchema.parse(body)).toEqual(body)
    return body
  }

  for (const perspective of ['cash', 'carrier'] as const)
    it(`shows a facility's Price Check figures on its cost page (${perspective})`, async () => {
      const payer = perspective === 'carrier' ? scenario.payer : null
      const search = await priceCheck(payer)
      // facilities with an NPI of their own in the answer (an NPI twice would be ambiguous)
      const npis = search.cost_by_hco.map((h) => h.hco_npi)
      const facilities = search.cost_by_hco.filter((h) => h.hco_npi !== null && npis.indexOf(h.hco_npi) === npis.lastIndexOf(h.hco_npi))
      expect(facilities.length).toBeGreaterThan(1)
      const rates = search.cost_by_hco.map((h) => h.cost_bundle.avg_patient_rate)
      // the cheapest, the dearest and one between: every affordability band
      const sorted = [...facilities].sort((a, b) => a.cost_bundle.avg_patient_rate - b.cost_bundle.avg_patient_rate)
      const picks = [...new Set([sorted[0]!, sorted[Math.floor(sorted.length / 2)]!, sorted.at(-1)!])]
      for (const hco of picks) {
        // the link Price Check's card builds: carrier as payment_perspective, the codes and the search's ZIP
        const page = await costPage(hco.hco_npi!, {
          procedure_codes_csv: scenario.code,
          zip_code: scenario.zip,
          ...(payer ? { payment_perspective: payer.toUpperCase() } : {}),
        })
        const listed = page.listed_price!
        expect(listed.facility_npi).toBe(hco.hco_npi)
        expect(listed.procedure_codes).toEqual([scenario.code])
        // every figure, to the cent and beyond: the same function on the same rows
        expect(listed.cost_bundle, hco.hco_name).toEqual(hco.cost_bundle)
        // Price Check's affordability, counted here as the results page counts it (the oracle, not the product's function)
        const expected = Math.round((100 * rates.filter((r) => r >= hco.cost_bundle.avg_patient_rate).length) / rates.length)
        expect(listed.price_check).toEqual({
          zip_code: scenario.zip,
          radius_in_m: 50_000,
          facility_count: search.cost_by_hco.length,
          affordability: expected,
        })
        // without the search: the same figures, no search to rank against
        const alone = await costPage(hco.hco_npi!, { procedure_codes_csv: scenario.code, ...(payer ? { payment_perspective: payer } : {}) })
        expect(alone.listed_price!.cost_bundle).toEqual(hco.cost_bundle)
        expect(alone.listed_price!.price_check).toBeNull()
      }
      // the page without codes has no listed price
      expect((await costPage(picks[0]!.hco_npi!, {})).listed_price).toBeNull()
    })

  it('answers bad listed-price input with a 400 naming the field, as Price Check does', async () => {
    const { rows } = await ctx.db.pool.query<{ npi: string }>(
      `SELECT npi FROM facilities f WHERE npi IS NOT NULL AND NOT EXISTS (SELECT 1 FROM providers p WHERE p.npi = f.npi) ORDER BY id LIMIT 1`,
    )
    const npi = rows[0]!.npi
    const bad = (query: Record<string, string>) =>
      request(ctx.app.server).get(`/api/cost-transparency/provider/${npi}`).query(query).set('Authorization', `Bearer ${bearer}`)
    const malformed = await bad({ procedure_codes_csv: 'not a code' })
    expect(malformed.status).toBe(400)
    expect(malformed.body.errors[0].path).toMatch(/procedure_codes_csv/)
    const unknownZip = await bad({ procedure_codes_csv: scenario.code, zip_code: '00000' })
    expect(unknownZip.status).toBe(400)
    expect(unknownZip.body.message).toBe('ZIP code 00000 is not a known US ZIP code')
    expect((await bad({ procedure_codes_csv: scenario.code, zip_code: scenario.zip, radius_in_m: '-1' })).status).toBe(400)
  })

  it("takes the visit types' listed negotiated rates from Price Check's function (recounted in SQL)", async () => {
    // a facility whose claims bill codes its price list prices for the carrier
    const { rows } = await ctx.db.pool.query<{ npi: string; id: number }>(
      `SELECT f.npi, f.id FROM facilities f JOIN claims c ON c.facility_id = f.id JOIN claim_procedures cp ON cp.claim_id = c.id
       JOIN facility_prices fp ON fp.facility_id = f.id AND fp.procedure_code = cp.procedure_code AND fp.payer_name = $1
       WHERE f.npi IS NOT NULL AND NOT EXISTS (SELECT 1 FROM providers p WHERE p.npi = f.npi)
       GROUP BY f.npi, f.id ORDER BY count(DISTINCT cp.procedure_code) DESC, f.npi LIMIT 1`,
      [scenario.payer],
    )
    const facility = rows[0]!
    const oracle = `SELECT fp.procedure_code AS code,
        avg(coalesce(fp.negotiated_dollar, fp.median_amount, round(fp.negotiated_percentage / 100 * fp.gross_charge, 2)))::float8 AS rate
      FROM facility_prices fp WHERE fp.facility_id = $1 AND fp.payer_name <> '' AND ($2::text IS NULL OR lower(fp.payer_name) = lower($2::text))
      GROUP BY 1`
    for (const payer of [scenario.payer, null]) {
      const page = await costPage(facility.npi, payer ? { payment_perspective: payer } : {})
      expect(page.kind).toBe('facility')
      const expected = new Map(
        (await ctx.db.pool.query<{ code: string; rate: number | null }>(oracle, [facility.id, payer])).rows.map((r) => [r.code, r.rate]),
      )
      let listedCodes = 0
      for (const v of page.visit_types) {
        const rate = expected.get(v.code) ?? null
        if (rate === null) {
          expect(v.facility_negotiated_rate, v.code).toBeNull()
          continue
        }
        listedCodes++
        expect(Math.abs(v.facility_negotiated_rate! - rate), `${v.code}: ${v.facility_negotiated_rate} vs ${rate}`).toBeLessThanOrEqual(
          0.00501,
        )
        if (payer) {
          // the same figure as Price Check's avg_negotiated_rate of that code for this facility (when it lists it)
          const listed = (await costPage(facility.npi, { payment_perspective: payer, procedure_codes_csv: v.code })).listed_price!
          if (listed.cost_bundle) expect(v.facility_negotiated_rate, v.code).toBe(listed.cost_bundle.avg_negotiated_rate)
        }
      }
      expect(listedCodes).toBeGreaterThan(0)
    }
  })

  it("shows a provider's per-unit claim prices exactly as Care Connect's features show them", async () => {
    // the provider with the most claims, in its own ZIP and specialty
    const { rows } = await ctx.db.pool.query<{ npi: string; zip: string; taxonomy: string }>(
      `SELECT p.npi, p.zip_code AS zip, p.primary_taxonomy_code AS taxonomy FROM claims c JOIN providers p ON p.npi = c.rendering_npi
       JOIN zips z ON z.zip = p.zip_code
       GROUP BY p.npi, p.zip_code, p.primary_taxonomy_code ORDER BY count(*) DESC, p.npi LIMIT 1`,
    )
    const provider = rows[0]!
    const page = await costPage(provider.npi, {})
    expect(page.kind).toBe('provider')
    const codes = page.visit_types.map((v) => v.code)
    expect(codes.length).toBeGreaterThan(0)
    const ranked = rankingsResponseSchema.parse(
      await get('/care-select/rankings', {
        zip_code: provider.zip,
        omni_code: provider.taxonomy,
        cpt_union_csv: codes.join(','),
        filter_npis: provider.npi,
      }),
    )
    const hcp = ranked.hcp_rankings.find((r) => r.hcp_entity.npi === provider.npi)!
    expect(hcp).toBeDefined()
    const f = hcp.features
    // units per line, counted from the claims (the oracle for which codes a line mean and a unit mean must agree on)
    const units = await ctx.db.pool.query<{ code: string; single: boolean }>(
      `SELECT cp.procedure_code AS code, bool_and(cp.units = 1) AS single FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id
       WHERE c.rendering_npi = $1 GROUP BY 1`,
      [provider.npi],
    )
    const single = new Map(units.rows.map((r) => [r.code, r.single]))
    let compared = 0
    for (const v of page.visit_types) {
      const negotiated = f.avg_negotiated_price_by_procedure[v.code]
      if (negotiated === undefined) {
        expect(v.unit_price, v.code).toBeNull()
        continue
      }
      compared++
      expect(v.unit_price, v.code).toEqual({
        line_count: expect.any(Number),
        list: f.avg_initial_price_by_procedure[v.code],
        negotiated,
        insurer: f.avg_insurer_price_by_procedure[v.code],
        patient: f.avg_patient_price_by_procedure[v.code],
      })
      // a code billed in single units: the claim-line means are the same figures
      if (single.get(v.code))
        expect([v.avg_list_rate, v.avg_negotiated_rate, v.avg_insurer_rate, v.avg_patient_rate], v.code).toEqual([
          v.unit_price!.list,
          v.unit_price!.negotiated,
          v.unit_price!.insurer,
          v.unit_price!.patient,
        ])
    }
    expect(compared).toBeGreaterThan(0)
    // one carrier's claims are not what Care Connect prices: no per-unit figures then
    const carrier = (
      await ctx.db.pool.query<{ carrier: string }>(
        `SELECT insurer_name AS carrier FROM claims WHERE rendering_npi = $1 AND insurer_name IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
        [provider.npi],
      )
    ).rows[0]!.carrier
    expect((await costPage(provider.npi, { payment_perspective: carrier })).visit_types.every((v) => v.unit_price === null)).toBe(true)
  })
  // a CMS example with the clinicians' NPIs and a code they bill, imported under a carrier of its own (issue 37)
  describe.skipIf(!existsSync(TIC_EXAMPLES))("a clinician's carrier rate from a payer file", () => {
    let dir = ''
    let scene: { a: string; b: string; zip: string; taxonomy: string; code: string }

    beforeAll(async () => {
      const pool = ctx.db.pool
      // A: a clinician with claims; B: the nearest other clinician of A's specialty to A's ZIP (both candidates of one search)
      const a = (
        await pool.query<{ npi: string; zip: string; taxonomy: string; code: string }>(
          `WITH top AS (
             SELECT c.rendering_npi AS npi FROM claims c JOIN providers p ON p.npi = c.rendering_npi JOIN zips z ON z.zip = p.zip_code
             GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1
           )
           SELECT p.npi, p.zip_code AS zip, p.primary_taxonomy_code AS taxonomy,
             (SELECT cp.procedure_code FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id
              WHERE c.rendering_npi = p.npi AND EXISTS (SELECT 1 FROM procedure_codes pc WHERE pc.code = cp.procedure_code)
              GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1) AS code
           FROM top JOIN providers p ON p.npi = top.npi`,
        )
      ).rows[0]!
      const b = (
        await pool.query<{ npi: string }>(
          `SELECT p.npi FROM providers p, zips z WHERE z.zip = $1 AND p.primary_taxonomy_code = $2 AND p.npi <> $3
           ORDER BY ST_Distance(p.geog, z.geog), p.npi LIMIT 1`,
          [a.zip, a.taxonomy, a.npi],
        )
      ).rows[0]!
      scene = { a: a.npi, b: b.npi, zip: a.zip, taxonomy: a.taxonomy, code: a.code }
      dir = mkdtempSync(path.join(tmpdir(), 'citrus-one-price-'))
      // the example's rates in force (they expired in 2022), for one NPI each; B's at twice A's
      const file = (npi: string, factor: number) => {
        const doc = JSON.parse(readFileSync(path.join(TIC_EXAMPLES, TIC_EXAMPLE), 'utf8')) as Json
        for (const ref of doc.provider_references) for (const group of ref.provider_groups) group.npi = [Number(npi)]
        for (const item of doc.in_network) {
          if (item.billing_code === '27447') item.billing_code = scene.code
          for (const rate of item.negotiated_rates)
            for (const price of rate.negotiated_prices) {
              price.expiration_date = '2122-01-01'
              price.negotiated_rate = Math.round(price.negotiated_rate * factor * 100) / 100
            }
        }
        // not dollar prices of the code, or not in force: never a price, however low
        const first = doc.in_network[0].negotiated_rates[0].negotiated_prices
        first.push({ ...first[0], negotiated_type: 'percentage', negotiated_rate: 1 })
        first.push({ ...first[0], negotiated_type: 'per diem', negotiated_rate: 2 })
        first.push({ ...first[0], negotiated_rate: 3, expiration_date: '2020-01-01' })
        const target = path.join(dir, `${npi}.json`)
        writeFileSync(target, JSON.stringify(doc))
        return doc
      }
      file(scene.a, 1)
      file(scene.b, 2)
      const summary = await runTicImport(pool, dir, { sink: silentSink, payer: TIC_CARRIER })
      expect(summary.files.map((f) => f.status)).toEqual(['imported', 'imported'])
    })

    afterAll(async () => {
      if (dir) rmSync(dir, { recursive: true, force: true })
      const pool = ctx.db.pool
      await pool.query(`DELETE FROM tic_files WHERE starts_with(source, $1)`, [dir])
      await pool.query(
        `UPDATE providers SET aggregated_insurance_networks_v1 = aggregated_insurance_networks_v1 - $1::text WHERE aggregated_insurance_networks_v1 ? $1::text`,
        [TIC_CARRIER],
      )
      await pool.query(`DELETE FROM insurers WHERE name = $1`, [TIC_CARRIER])
    })

    /** The oracle: the mean of the example's professional dollar rates in force (both TINs), from JSON.parse. */
    const expectedRate = (factor: number) => {
      const doc = JSON.parse(readFileSync(path.join(TIC_EXAMPLES, TIC_EXAMPLE), 'utf8')) as Json
      const item = doc.in_network.find((i: Json) => i.billing_code === '27447')
      const tins = doc.provider_references.find((r: Json) => r.provider_group_id === 1).provider_groups.length
      const rates: number[] = []
      for (const rate of item.negotiated_rates)
        for (const price of rate.negotiated_prices)
          if (price.billing_class !== 'institutional')
            for (const id of rate.provider_references)
              if (id === 1) for (let t = 0; t < tins; t++) rates.push(Math.round(price.negotiated_rate * factor * 100) / 100)
      return Math.round((rates.reduce((s, r) => s + r, 0) / rates.length) * 100) / 100
    }

    it('shows the same rate on the cost page and in Care Connect, which ranks the code by the carrier’s rates', async () => {
      expect(expectedRate(1)).toBe(121.95)
      const rankings = async (insurer: string | null) =>
        rankingsResponseSchema.parse(
          await get('/care-select/rankings', {
            zip_code: scene.zip,
            omni_code: scene.taxonomy,
            cpt_union_csv: scene.code,
            filter_npis: `${scene.a},${scene.b}`,
            ...(insurer ? { insurance_names_csv: insurer } : {}),
          }),
        )
      const ranked = await rankings(TIC_CARRIER.toUpperCase())
      for (const [npi, factor, affordability] of [
        [scene.a, 1, 100],
        [scene.b, 2, 0],
      ] as const) {
        const page = await costPage(npi, { payment_perspective: TIC_CARRIER, procedure_codes_csv: scene.code })
        expect(page.kind).toBe('provider')
        expect(page.carrier_rate_by_procedure).toEqual({ [scene.code]: expectedRate(factor) })
        // the page lists the percentage, the per diem and the dollar rates as they are (the expired one not)
        // (each price twice: the example's provider group has two TINs)
        expect(page.payer_rates!.map((r) => r.unit).sort()).toEqual([
          'percent',
          'percent',
          ...Array<string>(6).fill('usd'),
          'usd_per_day',
          'usd_per_day',
        ])
        const hcp = ranked.hcp_rankings.find((r) => r.hcp_entity.npi === npi)!
        expect(hcp, npi).toBeDefined()
        const f = hcp.features
        expect(f.price_source_by_procedure).toEqual({ [scene.code]: 'payer_file' })
        expect(f.avg_negotiated_price_by_procedure).toEqual(page.carrier_rate_by_procedure)
        // ranked among the candidates with the carrier's rate (A's is half B's); no claims figure beside it
        expect(f.negotiated_affordability_percentiles).toEqual({ [scene.code]: affordability })
        expect(f.patient_affordability_percentiles).toEqual({})
        expect(f.avg_initial_price_by_procedure).toEqual({})
        expect(hcp.task_scores.cost).toBe(affordability / 100)
        // without a carrier: the claims' prices, as before; the page has no carrier rate
        expect((await costPage(npi, { procedure_codes_csv: scene.code })).carrier_rate_by_procedure).toBeUndefined()
      }
      const claims = await rankings(null)
      const a = claims.hcp_rankings.find((r) => r.hcp_entity.npi === scene.a)!
      expect(a.features.price_source_by_procedure).toEqual({ [scene.code]: 'claims' })
      expect(a.features.avg_patient_price_by_procedure[scene.code]).toEqual(expect.any(Number))
    })
  })
})
