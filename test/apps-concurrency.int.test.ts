import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from './helpers.ts'

// Every app's main endpoint under 16 parallel requests on the suite's database (the embedded one by default):
// no 5xx, and metering stays exact when a company's credits run out in the middle of the burst.
describe('app endpoints under 16 parallel requests', () => {
  const ctx = useTestApp({}, { dataset: true })
  const PARALLEL = 16
  let zip = ''
  let taxonomy = ''

  beforeAll(async () => {
    const { rows } = await ctx.db.pool.query<{ zip: string; taxonomy: string }>(
      `SELECT zip_code AS zip, primary_taxonomy_code AS taxonomy FROM providers
       GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    zip = rows[0]!.zip
    taxonomy = rows[0]!.taxonomy
  })

  const burst = (send: () => Promise<{ statusCode: number }>) => Promise.all(Array.from({ length: PARALLEL }, send))

  it('answers every request of Atlas, Nova, Care Connect and Price Check without a server error', async () => {
    const tenant = await createTenant(ctx.db, {
      roles: ['citrus'],
      products: [{ product_group: 'ATLAS' }, { product_group: 'NOVA' }, { product_group: 'CARE_SELECT' }, { product_group: 'SEARCH' }],
    })
    const authorization = `Bearer ${await loginTokenFor(tenant.users[0]!, tenant.company.company_name)}`
    const calls: [string, () => Promise<{ statusCode: number }>][] = [
      [
        'atlas',
        () =>
          ctx.app.inject({
            method: 'GET',
            url: '/api/atlas/generic?icd10_cm_union_csv=I10&tile_granularity=STATE',
            headers: { authorization },
          }),
      ],
      [
        'nova',
        () =>
          ctx.app.inject({
            method: 'POST',
            url: '/api/nova/v1/insights/accounts',
            headers: { authorization },
            payload: {
              geo_filter_input: {
                code: 'region',
                filter_value: { filter_value_kind: 'GEO_WITHIN_REGION', region_level: 'COUNTRY', search_within_region: 'US' },
              },
            },
          }),
      ],
      [
        'rankings',
        () =>
          ctx.app.inject({
            method: 'GET',
            url: `/api/care-select/rankings?zip_code=${zip}&omni_code=${taxonomy}`,
            headers: { authorization },
          }),
      ],
      [
        'price check',
        () =>
          ctx.app.inject({
            method: 'GET',
            url: `/api/cost-transparency/procedure?zip_code=${zip}&procedure_codes_csv=99213&_bypass_cache=true`,
            headers: { authorization },
          }),
      ],
    ]
    for (const [name, send] of calls) {
      const statuses = (await burst(send)).map((response) => response.statusCode)
      expect(statuses, name).toEqual(Array<number>(PARALLEL).fill(200))
    }
  })

  it('grants exactly the credits a company has left when a burst outruns them', async () => {
    const tenant = await createTenant(ctx.db, { roles: ['citrus'], products: [{ product_group: 'CARE_SELECT', limit: 5 }] })
    const authorization = `Bearer ${await loginTokenFor(tenant.users[0]!, tenant.company.company_name)}`
    const statuses = (
      await burst(() =>
        ctx.app.inject({
          method: 'GET',
          url: `/api/care-select/rankings?zip_code=${zip}&omni_code=${taxonomy}`,
          headers: { authorization },
        }),
      )
    ).map((response) => response.statusCode)
    expect(statuses.filter((status) => status === 200)).toHaveLength(5)
    expect(statuses.filter((status) => status === 402)).toHaveLength(PARALLEL - 5)
  })
})
