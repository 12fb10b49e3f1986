import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import {
  procedureCostResponseSchema,
  providerCostResponseSchema,
  type ProcedureCostResponse,
  type ProviderCostResponse,
} from '@citrus/contracts'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { refreshPriceCodePoints } from '../../data/refresh.ts'
import { silentSink } from '../../data/progress.ts'
import { runTicImport, type TicImportSummary } from '../../data/tic/import.ts'
import { REPO_ROOT } from '../../runtime.ts'

interface Json {
  [key: string]: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Every negotiated price of the in-network examples per (NPI, TIN), with its file: the oracle, from JSON.parse. */
function exampleRates() {
  const out: { file: string; npi: string; code: string; type: string; rate: number; billing_class: string }[] = []
  for (const file of readdirSync(TIC_EXAMPLES).filter((f) => f.startsWith('in-network-rates'))) {
    const doc = JSON.parse(readFileSync(path.join(TIC_EXAMPLES, file), 'utf8')) as Json
    const groups = new Map<number, Json[]>(doc.provider_references.map((r: Json) => [r.provider_group_id, r.provider_groups]))
    for (const item of doc.in_network)
      for (const rate of item.negotiated_rates)
        for (const price of rate.negotiated_prices)
          for (const id of rate.provider_references)
            for (const group of groups.get(id) ?? [])
              for (const npi of group.npi)
                out.push({
                  file,
                  npi: String(npi),
                  code: item.billing_code,
                  type: price.negotiated_type,
                  rate: price.negotiated_rate,
                  billing_class: price.billing_class,
                })
  }
  return out
}

const TIC_EXAMPLES = path.resolve(REPO_ROOT, '../shared/data/tic-price-transparency/examples')
const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100
const PROVIDER_NPI = '5555555555'

/**
 * Issue 37 item 2: the CMS examples imported, their rates found through Price Check and the cost page with the
 * examples' numbers, percentages and per diems shown as such, network membership for Care Connect. The example NPIs
 * become facilities (and one clinician) of the directory at a ZIP with no other facility near, removed afterwards.
 */
// the CMS examples live beside the repository (../shared/data, SOURCES.md §7): skipped when absent
describe.skipIf(!existsSync(TIC_EXAMPLES))("payers' Transparency-in-Coverage rates in Price Check and on the cost page", () => {
  const ctx = useTestApp({}, { dataset: true })
  let bearer = ''
  let zip = ''
  let summary: TicImportSummary
  let payerOf: Map<string, string>
  const rates = existsSync(TIC_EXAMPLES) ? exampleRates() : []
  const facilityNpis = [...new Set(rates.map((r) => r.npi))].filter((n) => n !== PROVIDER_NPI).sort()
  const codes = [...new Set(rates.map((r) => r.code))].sort()
  const insurersBefore: string[] = []

  beforeAll(async () => {
    const pool = ctx.db.pool
    const { company, users } = await createTenant(ctx.db, { roles: ['member'], products: [{ product_group: 'CARE_SELECT' }] })
    bearer = await loginTokenFor(users[0]!, company.company_name)
    insurersBefore.push(...(await pool.query<{ name: string }>('SELECT name FROM insurers')).rows.map((r) => r.name))
    // a ZIP 300 km from every facility of the dataset, so no other test's search meets these facilities
    const far = await pool.query<{ zip: string; latitude: number; longitude: number; state: string; county_fips: string | null }>(
      `SELECT z.zip, z.latitude, z.longitude, z.state, z.county_fips FROM zips z
       WHERE NOT EXISTS (SELECT 1 FROM facilities f WHERE ST_DWithin(f.geog, z.geog, 300000)) ORDER BY z.zip LIMIT 1`,
    )
    const place = far.rows[0]!
    zip = place.zip
    for (const [i, npi] of facilityNpis.entries()) {
      const { rows } = await pool.query<{ id: number }>(
        `INSERT INTO facilities (npi, name, facility_type, hco_compile_level_1, address_line_1, city, state, zip_code, county_fips, latitude, longitude, source)
         VALUES ($1, $2, 'hospital', 'Hospital', '1 Test Way', 'Testville', $3, $4, $5, $6, $7, 'tic-test') RETURNING id`,
        [npi, `TiC Test Hospital ${npi}`, place.state, zip, place.county_fips, place.latitude + i * 0.001, place.longitude],
      )
      // the hospital's own price list: gross and cash for every code of the examples
      for (const code of codes)
        await pool.query(
          `INSERT INTO facility_prices (facility_id, procedure_code, code_type, description, setting, gross_charge, discounted_cash, source)
           VALUES ($1, $2, 'CPT', 'test', 'both', 1000, 800, 'tic-test')`,
          [rows[0]!.id, code],
        )
    }
    await pool.query(
      `INSERT INTO providers (npi, first_name, last_name, full_name, provider_kind, primary_taxonomy_code, cms_specialization, address, city, state, zip_code,
         latitude, longitude, last_verified_at, confidence, source)
       VALUES ($1, 'Tic', 'Tester', 'Tic Tester, MD', 'physician', '207X00000X', 'Orthopaedic Surgery', '1 Test Way', 'Testville', $2, $3, $4, $5, current_date, 0.9, 'tic-test')`,
      [PROVIDER_NPI, place.state, zip, place.latitude, place.longitude],
    )
    const client = await pool.connect()
    try {
      await refreshPriceCodePoints(client)
    } finally {
      client.release()
    }
    summary = await runTicImport(pool, TIC_EXAMPLES, { sink: silentSink })
    // the examples' rates expired in 2022 and 2024, and an expired rate is neither priced nor listed (issue 37): they
    // are moved 100 years on, so that they are in force (the last test expires one file's again)
    await pool.query(
      `UPDATE tic_rates t SET expiration_date = t.expiration_date + interval '100 years' FROM tic_files f
       WHERE f.id = t.file_id AND starts_with(f.source, $1)`,
      [TIC_EXAMPLES],
    )
    const files = await pool.query<{ source: string; payer_name: string }>(
      'SELECT source, payer_name FROM tic_files WHERE starts_with(source, $1)',
      [TIC_EXAMPLES],
    )
    payerOf = new Map(files.rows.map((f) => [path.basename(f.source), f.payer_name]))
  })

  afterAll(async () => {
    const pool = ctx.db.pool
    await pool.query(`DELETE FROM tic_files WHERE starts_with(source, $1)`, [TIC_EXAMPLES])
    await pool.query(`DELETE FROM facilities WHERE source = 'tic-test'`)
    await pool.query(`DELETE FROM providers WHERE source = 'tic-test'`)
    await pool.query(
      `DELETE FROM insurers i WHERE NOT (i.name = ANY($1::text[])) AND NOT EXISTS (SELECT 1 FROM tic_files f WHERE f.payer_name = i.name)`,
      [insurersBefore],
    )
    const client = await pool.connect()
    try {
      await refreshPriceCodePoints(client)
    } finally {
      client.release()
    }
  })

  const get = async <T>(url: string, query: Record<string, string | number>) => {
    const response = await request(ctx.app.server).get(`/api${url}`).query(query).set('Authorization', `Bearer ${bearer}`)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return response.body as T
  }
  const priceCheck = async (code: string, payer: string) => {
    const body = await get<ProcedureCostResponse>('/cost-transparency/procedure', {
      zip_code: zip,
      procedure_codes_csv: code,
      payment_perspective: payer,
      radius_in_m: 50_000,
    })
    expect(procedureCostResponseSchema.parse(body)).toEqual(body)
    return body
  }

  it('imports the examples directory and reports the directory matches', async () => {
    const imported = summary.files.filter((f) => f.status === 'imported')
    expect(imported.length).toBe(8) // six in-network, two allowed-amounts; the table of contents' remote files are skipped
    expect(summary.files.filter((f) => f.status === 'skipped').length).toBe(5)
    // every NPI of the in-network examples is now in the directory; the allowed-amounts NPIs are not
    for (const f of imported.filter((f) => f.kind === 'in_network')) expect(f.npis_unmatched, f.source).toBe(0)
    const allowed = imported.find((f) => f.source.endsWith('allowed-amounts-single-plan-sample.json'))!
    // 1111111111-4444444444 are test facilities and 5555555555 a clinician; 1234567891-1234567893 are in no directory
    expect(allowed).toMatchObject({ npis_matched: 5, npis_unmatched: 3 })
  })

  it("Price Check lists each facility's dollar rates of each payer with the examples' numbers (institutional, mean over the plan rows)", async () => {
    let checked = 0
    // Price Check takes CPT and HCPCS codes (the revenue code and the ICD bundle are on the cost page only)
    const pairs = new Set(
      rates.filter((r) => r.npi !== PROVIDER_NPI && /^[0-9A-Z]\d{3}[0-9A-Z]$/.test(r.code)).map((r) => `${payerOf.get(r.file)}|${r.code}`),
    )
    for (const pair of pairs) {
      const [payer, code] = pair.split('|') as [string, string]
      const body = await priceCheck(code, payer)
      for (const npi of facilityNpis) {
        const expected = rates.filter(
          (r) =>
            r.npi === npi &&
            r.code === code &&
            payerOf.get(r.file)?.toLowerCase() === payer.toLowerCase() &&
            r.billing_class !== 'professional' &&
            ['negotiated', 'derived', 'fee schedule'].includes(r.type),
        )
        const card = body.cost_by_hco.find((h) => h.hco_npi === npi)
        if (expected.length === 0) {
          expect(card, `${pair} ${npi}`).toBeUndefined()
          continue
        }
        expect(card, `${pair} ${npi}`).toBeDefined()
        expect(card!.cost_bundle.avg_negotiated_rate, `${pair} ${npi}`).toBe(
          round2(expected.reduce((s, r) => s + r.rate, 0) / expected.length),
        )
        expect(card!.cost_bundle.avg_list_rate).toBe(1000)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(20)
    // one by hand: CPT 27447 at 1111111111 under ACME Issuer = the fee-for-service file's institutional 1230.45 (two TINs) and the no-NPI file's 123.45
    const acme = await priceCheck('27447', 'ACME Issuer')
    expect(acme.cost_by_hco.find((h) => h.hco_npi === '1111111111')!.cost_bundle.avg_negotiated_rate).toBe(
      round2((1230.45 * 2 + 123.45) / 3),
    )
  })

  it('a percentage or a per diem is not priced in dollars: Price Check leaves the facility out, the cost page shows it in its unit', async () => {
    // CPT 97110 is only a percentage (65 % of billed charges) at Premier Medical Associates' NPIs
    const pt = await priceCheck('97110', 'Comprehensive Health Issuer')
    expect(pt.cost_by_hco.filter((h) => facilityNpis.includes(h.hco_npi ?? ''))).toEqual([])
    const page = await get<ProviderCostResponse>('/cost-transparency/provider/1234567890', { procedure_codes_csv: '97110,0200,99285' })
    expect(providerCostResponseSchema.parse(page)).toEqual(page)
    expect(page.payer_rates!.map((r) => [r.billing_code, r.negotiated_type, r.negotiated_rate, r.unit, r.payer_name])).toEqual([
      ['97110', 'percentage', 65, 'percent', 'Comprehensive Health Issuer'],
    ])
    const icu = await get<ProviderCostResponse>('/cost-transparency/provider/5678901234', { procedure_codes_csv: '0200,99285' })
    expect(icu.payer_rates!.map((r) => [r.billing_code, r.negotiated_type, r.negotiated_rate, r.unit, r.billing_class]).sort()).toEqual(
      [
        ['0200', 'per diem', 5500, 'usd_per_day', 'institutional'],
        ['99285', 'negotiated', 2500, 'usd', 'institutional'],
        ['99285', 'percentage', 75.5, 'percent', 'professional'],
      ].sort(),
    )
  })

  it("the cost page lists every rate of the NPI with the examples' numbers, and its listed price is Price Check's", async () => {
    for (const npi of ['1111111111', PROVIDER_NPI, '4567890123']) {
      const page = await get<ProviderCostResponse>(`/cost-transparency/provider/${npi}`, {})
      const expected = rates
        .filter((r) => r.npi === npi)
        .map((r) => `${payerOf.get(r.file)}|${r.code}|${r.type}|${r.rate}|${r.billing_class}`)
      expect(
        page
          .payer_rates!.map((r) => `${r.payer_name}|${r.billing_code}|${r.negotiated_type}|${r.negotiated_rate}|${r.billing_class}`)
          .sort(),
        npi,
      ).toEqual(expected.sort())
    }
    const knee = await get<ProviderCostResponse>('/cost-transparency/provider/1111111111', {
      procedure_codes_csv: '27447',
      payment_perspective: 'ACME Issuer',
      zip_code: zip,
    })
    const pc = await priceCheck('27447', 'ACME Issuer')
    expect(knee.listed_price!.cost_bundle).toEqual(pc.cost_by_hco.find((h) => h.hco_npi === '1111111111')!.cost_bundle)
    const first = knee.payer_rates!.find((r) => r.billing_code_modifiers.length > 0)!
    expect(first).toMatchObject({
      payer_name: 'ACME Issuer',
      plan_name: 'Plan A PPO',
      billing_code_type: 'CPT',
      name: 'Knee Replacement',
      negotiation_arrangement: 'ffs',
      negotiated_rate: 123.45,
      unit: 'usd',
      service_codes: ['18', '19', '11'],
      billing_code_modifiers: ['AS'],
      expiration_date: '2122-01-01', // the example's 2022-01-01, moved on (beforeAll)
      source_file: 'in-network-rates-fee-for-service-single-plan-sample.json',
      last_updated_on: '2020-08-27',
    })
  })

  it("the providers of the files' groups join the payers' networks (Care Connect's in-network filter reads them)", async () => {
    const { rows } = await ctx.db.pool.query<{ networks: Record<string, boolean> }>(
      `SELECT aggregated_insurance_networks_v1 AS networks FROM providers WHERE npi = $1`,
      [PROVIDER_NPI],
    )
    const payers = [...new Set(rates.filter((r) => r.npi === PROVIDER_NPI).map((r) => payerOf.get(r.file)!))].sort()
    expect(Object.keys(rows[0]!.networks).sort()).toEqual(payers)
    expect(Object.values(rows[0]!.networks).every((v) => v === true)).toBe(true)
    const insurers = await ctx.db.pool.query<{ name: string }>('SELECT name FROM insurers WHERE name = ANY($1::text[])', [payers])
    expect(insurers.rows.map((r) => r.name).sort()).toEqual(payers)
  })

  it('an expired rate (expiration_date before today) is neither priced by Price Check nor listed on the cost page', async () => {
    const pool = ctx.db.pool
    const NO_NPI = 'in-network-rates-no-npi.json'
    const payer = payerOf.get(NO_NPI)!
    const expected = (withExpired: boolean) =>
      rates.filter(
        (r) =>
          r.npi === '1111111111' &&
          r.code === '27447' &&
          payerOf.get(r.file) === payer &&
          r.billing_class !== 'professional' &&
          ['negotiated', 'derived', 'fee schedule'].includes(r.type) &&
          (withExpired || r.file !== NO_NPI),
      )
    const mean = (list: { rate: number }[]) => round2(list.reduce((s, r) => s + r.rate, 0) / list.length)
    const knee = async () => {
      const query = { zip_code: zip, procedure_codes_csv: '27447', payment_perspective: payer, radius_in_m: 50_000, _bypass_cache: 'true' }
      const pc = await get<ProcedureCostResponse>('/cost-transparency/procedure', query)
      const page = await get<ProviderCostResponse>('/cost-transparency/provider/1111111111', { procedure_codes_csv: '27447' })
      return { rate: pc.cost_by_hco.find((h) => h.hco_npi === '1111111111')!.cost_bundle.avg_negotiated_rate, page }
    }
    // in force: the no-NPI file's rate is priced with the others and listed
    expect(expected(false).length).toBeGreaterThan(0)
    expect(expected(true).length).toBeGreaterThan(expected(false).length)
    const before = await knee()
    expect(before.rate).toBe(mean(expected(true)))
    expect(before.page.payer_rates!.some((r) => r.source_file === NO_NPI)).toBe(true)
    const { rows } = await pool.query<{ id: string; was: string }>(
      `SELECT t.id, to_char(t.expiration_date, 'YYYY-MM-DD') AS was FROM tic_rates t JOIN tic_files f ON f.id = t.file_id
       WHERE starts_with(f.source, $1) AND f.source LIKE '%' || $2`,
      [TIC_EXAMPLES, NO_NPI],
    )
    expect(rows.length).toBeGreaterThan(0)
    try {
      // expired yesterday: gone from the bundle and from the cost page's payer rates
      await pool.query('UPDATE tic_rates SET expiration_date = current_date - 1 WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)])
      const after = await knee()
      expect(after.rate).toBe(mean(expected(false)))
      expect(after.rate).not.toBe(before.rate)
      expect(after.page.payer_rates!.some((r) => r.source_file === NO_NPI)).toBe(false)
      expect(after.page.payer_rates!.length).toBe(before.page.payer_rates!.filter((r) => r.source_file !== NO_NPI).length)
      // expiring today: still in force
      await pool.query('UPDATE tic_rates SET expiration_date = current_date WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)])
      expect((await knee()).rate).toBe(before.rate)
    } finally {
      for (const r of rows) await pool.query('UPDATE tic_rates SET expiration_date = $2::date WHERE id = $1::bigint', [r.id, r.was])
    }
  })
})
