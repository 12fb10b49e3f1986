import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, useTestDatabase } from '../../../../../test/helpers.ts'
import { buildApp } from '../../app.ts'
import { careSelectCandidates, careSelectServed, heldSpecialtyIndex } from '../../engines/care-select/candidate-index.ts'
import { dataVersion } from '../../lib/versioned-cache.ts'

// Issue 34 §3: while a specialty's index builds (its first search, a new data version, after an eviction), a search
// is answered from its area's rows read from the database, indexed and scored by the same functions; the answer must
// be the one the whole specialty's index gives, byte for byte.

type App = Awaited<ReturnType<typeof buildApp>>

describe('Care Connect answers from its area while the specialty builds', () => {
  const ctx = useTestDatabase({ dataset: true })
  let app: App
  let token: string
  beforeAll(async () => {
    app = await buildApp(testConfig({}, { OUTBOX_POLL_INTERVAL_MS: '0' }), { logger: false, database: ctx.db })
    await app.ready()
    const tenant = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
  })
  afterAll(async () => {
    await app?.close()
  })

  async function searches() {
    const pool = ctx.db.pool
    const { rows: specialties } = await pool.query<{ code: string }>(
      `SELECT primary_taxonomy_code AS code FROM providers GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 3`,
    )
    const cases: Record<string, string>[] = []
    for (const { code } of specialties) {
      const { rows: zips } = await pool.query<{ zip: string }>(
        `(SELECT zip_code AS zip FROM providers WHERE primary_taxonomy_code = $1 GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1)
         UNION ALL
         (SELECT zip_code FROM providers WHERE primary_taxonomy_code = $1 GROUP BY 1 ORDER BY count(*), 1 LIMIT 1)`,
        [code],
      )
      const { rows: procedures } = await pool.query<{ code: string }>(
        `SELECT pr.procedure_code AS code FROM providers p JOIN mv_provider_prices pr ON pr.npi = p.npi
         WHERE p.primary_taxonomy_code = $1 AND pr.line_count > 0 GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 2`,
        [code],
      )
      const { rows: diagnoses } = await pool.query<{ code: string }>(
        `SELECT v.code FROM providers p JOIN mv_provider_code_volume v ON v.npi = p.npi
         WHERE p.primary_taxonomy_code = $1 AND v.code_kind = 'icd10' GROUP BY 1 ORDER BY sum(v.claim_count) DESC, 1 LIMIT 1`,
        [code],
      )
      const { rows: carriers } = await pool.query<{ name: string }>(
        `SELECT n.key AS name FROM providers p, jsonb_each(p.aggregated_insurance_networks_v1) n
         WHERE p.primary_taxonomy_code = $1 GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
        [code],
      )
      for (const { zip } of zips) {
        cases.push({ zip_code: zip, omni_code: code })
        cases.push({ zip_code: zip, omni_code: code, radius_in_m: '5000' })
        cases.push({
          zip_code: zip,
          omni_code: code,
          radius_in_m: '80000',
          cpt_union_csv: procedures.map((r) => r.code).join(','),
          icd10_cm_union_csv: diagnoses.map((r) => r.code).join(','),
          insurance_names_csv: carriers[0]?.name ?? '',
        })
      }
    }
    return cases
  }

  async function answer(query: Record<string, string>) {
    const response = await request(app.server)
      .get('/api/care-select/rankings')
      .query({ ...query, _bypass_cache: 'true' })
      .set('authorization', `Bearer ${token}`)
    expect(response.status, response.text).toBe(200)
    return response.text
  }

  it('gives the answer of the whole index for metro and rural ZIPs, radii, codes and a carrier', async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    const cases = await searches()
    expect(cases.length).toBeGreaterThanOrEqual(12)
    let compared = 0
    for (const query of cases) {
      careSelectCandidates.evict(pool)
      expect(heldSpecialtyIndex(pool, version, query.omni_code!)).toBeNull()
      const database = careSelectServed.database
      const fromArea = await answer(query)
      expect(careSelectServed.database, 'answered from the area').toBe(database + 1)

      // the search started the specialty's build; once it is held the same search reads the whole index
      await careSelectCandidates.rows(pool, version, { taxonomy: query.omni_code! })
      expect(heldSpecialtyIndex(pool, version, query.omni_code!)).not.toBeNull()
      const indexed = careSelectServed.index
      const fromIndex = await answer(query)
      expect(careSelectServed.index, 'answered from the index').toBe(indexed + 1)
      expect(fromArea, JSON.stringify(query)).toBe(fromIndex)
      if ((JSON.parse(fromIndex) as { hcp_rankings: unknown[] }).hcp_rankings.length > 0) compared++
    }
    // most cases list clinicians (a comparison of empty answers proves little)
    expect(compared).toBeGreaterThanOrEqual(cases.length / 2)
  }, 240_000)
})
