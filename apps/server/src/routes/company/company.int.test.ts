import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'

describe('company product access', () => {
  const ctx = useTestApp()
  const auth: Record<string, Record<string, string>> = {}

  beforeAll(async () => {
    const a = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'NOVA' }, { product_group: 'ATLAS', limit: 10 }] })
    const b = await createTenant(ctx.db, { roles: ['member'], products: [{ product_group: 'CARE_SELECT' }] })
    const none = await createTenant(ctx.db, { roles: ['admin'], products: [] })
    auth.a = { authorization: `Bearer ${await loginTokenFor(a.users[0]!, a.company.company_name)}` }
    auth.b = { authorization: `Bearer ${await loginTokenFor(b.users[0]!, b.company.company_name)}` }
    auth.none = { authorization: `Bearer ${await loginTokenFor(none.users[0]!, none.company.company_name)}` }
  })

  it("GET /api/company/products lists only the caller's company's groups, in the documented order", async () => {
    expect((await request(ctx.app.server).get('/api/company/products').set(auth.a!)).body).toEqual({ product_groups: ['ATLAS', 'NOVA'] })
    expect((await request(ctx.app.server).get('/api/company/products').set(auth.b!)).body).toEqual({ product_groups: ['CARE_SELECT'] })
    expect((await request(ctx.app.server).get('/api/company/products').set(auth.none!)).body).toEqual({ product_groups: [] })
  })

  it('GET /api/company/product/has-access answers for the caller’s company', async () => {
    const has = await request(ctx.app.server).get('/api/company/product/has-access').query({ product_group: 'NOVA' }).set(auth.a!)
    expect(has.status).toBe(200)
    expect(has.body).toEqual({ has_access: true, product_group: 'NOVA' })
    const lower = await request(ctx.app.server).get('/api/company/product/has-access').query({ product_group: 'care_select' }).set(auth.a!)
    expect(lower.body).toEqual({ has_access: false, product_group: 'CARE_SELECT' })
    expect(
      (await request(ctx.app.server).get('/api/company/product/has-access').query({ product_group: 'CARE_SELECT' }).set(auth.b!)).body
        .has_access,
    ).toBe(true)
  })

  it('validates the product group', async () => {
    for (const query of [{ product_group: 'PHARMA' }, {}]) {
      const response = await request(ctx.app.server).get('/api/company/product/has-access').query(query).set(auth.a!)
      expect(response.status).toBe(400)
      expect(response.body.errors[0].path).toBe('querystring.product_group')
    }
  })
})
