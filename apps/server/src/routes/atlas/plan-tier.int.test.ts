import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { runCli } from '../../cli/main.js'

/** The company plan tier (docs/decisions/0033): set by the super admin and by the CLI, read by Atlas. */
describe('Atlas plan tier of a company', () => {
  const ctx = useTestApp()
  let citrus: string
  let admin: string
  let companyId: number

  beforeAll(async () => {
    const staff = await createTenant(ctx.db, { roles: ['citrus'] })
    citrus = await loginTokenFor(staff.users[0]!, staff.company.company_name)
    const customer = await createTenant(ctx.db, { roles: ['admin'] })
    admin = await loginTokenFor(customer.users[0]!, customer.company.company_name)
    companyId = customer.company.id
  })

  const tierSeenByAtlas = async () =>
    (await request(ctx.app.server).get('/api/atlas/').set('Authorization', `Bearer ${admin}`)).body.plan_tier

  it('starts at BASE; the super admin sets it on update and on create', async () => {
    expect(await tierSeenByAtlas()).toBe('BASE')
    const updated = await request(ctx.app.server)
      .put('/api/super-admin/company')
      .set('Authorization', `Bearer ${citrus}`)
      .send({ record: { id: companyId, company_name: 'Tiered Co', industry: 'Pharma', plan_tier: 'BUSINESS_PLUS' } })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.plan_tier).toBe('BUSINESS_PLUS')
    expect(await tierSeenByAtlas()).toBe('BUSINESS_PLUS')
    const created = await request(ctx.app.server)
      .post('/api/super-admin/company')
      .set('Authorization', `Bearer ${citrus}`)
      .send({
        company_name: 'New Tier Co',
        industry: 'Pharma',
        renewal_cycle_days: 30,
        policies: [{ product_group: 'ATLAS' }],
        plan_tier: 'ENTERPRISE',
      })
    expect(created.body.plan_tier).toBe('ENTERPRISE')
    const bad = await request(ctx.app.server)
      .put('/api/super-admin/company')
      .set('Authorization', `Bearer ${citrus}`)
      .send({ record: { id: companyId, company_name: 'Tiered Co', industry: 'Pharma', plan_tier: 'PLATINUM' } })
    expect(bad.status).toBe(400)
  })

  it('is set by the CLI (company create/update --plan-tier), Business+ spelt either way', async () => {
    let out = ''
    const cli = async (...argv: string[]) => {
      out = ''
      return runCli(argv, { out: (t) => (out += `${t}\n`), err: () => undefined }, ctx.db)
    }
    expect(await cli('company', 'update', String(companyId), '--plan-tier', 'Business+', '--json')).toBe(0)
    expect(JSON.parse(out).plan_tier).toBe('BUSINESS_PLUS')
    expect(await cli('company', 'update', String(companyId), '--plan-tier', 'enterprise', '--json')).toBe(0)
    expect(await tierSeenByAtlas()).toBe('ENTERPRISE')
    expect(await cli('company', 'create', '--name', 'CLI Tier', '--industry', 'Payer', '--plan-tier', 'BUSINESS', '--json')).toBe(0)
    expect(JSON.parse(out).plan_tier).toBe('BUSINESS')
    expect(await cli('company', 'show', String(companyId))).toBe(0)
    expect(out).toContain('atlas plan tier:    ENTERPRISE')
    expect(await cli('company', 'update', String(companyId), '--plan-tier', 'gold')).not.toBe(0)
  })
})
