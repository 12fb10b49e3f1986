import { ANALYTICS_EVENT_NAMES } from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, useTestApp } from '../../../../../test/helpers.ts'
import { signShareToken } from '../../auth/tokens.ts'

describe('POST /api/analytics/events', () => {
  const ctx = useTestApp()
  let tenant: Awaited<ReturnType<typeof createTenant>>

  beforeAll(async () => {
    tenant = await createTenant(ctx.db, { roles: ['admin'] })
  })

  const marker = () => `m-${Math.random().toString(36).slice(2)}`
  const eventsWith = (value: string) =>
    ctx.db.prisma.analyticsEvent.findMany({ where: { properties: { path: ['marker'], equals: value } }, orderBy: { id: 'asc' } })

  it('stores every documented event with the identity of the signed-in user', async () => {
    const value = marker()
    const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const occurred_at = new Date(Date.now() - 5000).toISOString()
    const response = await request(ctx.app.server)
      .post('/api/analytics/events')
      .set('authorization', `Bearer ${token}`)
      .send({ events: ANALYTICS_EVENT_NAMES.map((name) => ({ name, properties: { marker: value, tab: 'HCP DATA' }, occurred_at })) })
    expect(response.status).toBe(202)
    expect(response.body).toEqual({ accepted: ANALYTICS_EVENT_NAMES.length })
    const stored = await eventsWith(value)
    expect(stored.map((event) => event.name)).toEqual([...ANALYTICS_EVENT_NAMES])
    expect(stored[0]).toMatchObject({
      user_id: tenant.users[0]!.id,
      email: tenant.users[0]!.email,
      company_id: tenant.company.id,
      role: 'admin',
      company_name: tenant.company.company_name,
      share_id: null,
      occurred_at: new Date(occurred_at),
    })
  })

  it('accepts anonymous callers (nulls) and guests (role guest and the link id)', async () => {
    const anonymous = marker()
    await request(ctx.app.server)
      .post('/api/analytics/events')
      .send({ events: [{ name: 'error_occurred', properties: { marker: anonymous } }] })
      .expect(202)
    expect((await eventsWith(anonymous))[0]).toMatchObject({ user_id: null, email: null, company_id: null, role: null, company_name: null })

    const link = await ctx.db.prisma.shareableLink.create({
      data: {
        company_id: tenant.company.id,
        created_by_user_id: tenant.users[0]!.id,
        url_type: 'public',
        client_routes: ['/'],
        api_endpoints: [],
        authorized_user_ids: [],
      },
    })
    const token = await signShareToken(testConfig().jwtSecret, link)
    const guest = marker()
    await request(ctx.app.server)
      .post('/api/analytics/events')
      .query({ token })
      .send({ events: [{ name: 'product_app_clicked', properties: { marker: guest } }] })
      .expect(202)
    expect((await eventsWith(guest))[0]).toMatchObject({ user_id: null, role: 'guest', share_id: link.id, company_id: null })
  })

  it('replaces a wildly wrong client clock with the receive time', async () => {
    const value = marker()
    await request(ctx.app.server)
      .post('/api/analytics/events')
      .send({ events: [{ name: 'user_logged_in', properties: { marker: value }, occurred_at: '1999-01-01T00:00:00Z' }] })
      .expect(202)
    const [event] = await eventsWith(value)
    expect(Math.abs(event!.occurred_at.getTime() - Date.now())).toBeLessThan(60_000)
  })

  it('validates names and sizes', async () => {
    for (const body of [
      { events: [] },
      { events: [{ name: 'Bad Name' }] },
      { events: Array.from({ length: 51 }, () => ({ name: 'x' })) },
      {},
    ]) {
      const response = await request(ctx.app.server).post('/api/analytics/events').send(body)
      expect(response.status).toBe(400)
      expect(response.body.code).toBe('VALIDATION_ERROR')
    }
  })
})

describe('the analytics request limit, counted in the database (auth/request-rate-store.ts)', () => {
  const ctx = useTestApp(() => ({ TRUST_PROXY: 'true' }))

  it('accepts exactly 300 calls a minute from one address when 16 arrive at a time', async () => {
    const address = `10.33.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`
    const send = () =>
      request(ctx.app.server)
        .post('/api/analytics/events')
        .set('x-forwarded-for', address)
        .send({ events: [{ name: 'error_occurred' }] })
    const statuses: number[] = []
    for (let round = 0; round < 20; round++) statuses.push(...(await Promise.all(Array.from({ length: 16 }, send))).map((r) => r.status))
    expect(statuses.filter((status) => status === 202)).toHaveLength(300)
    expect(statuses.filter((status) => status === 429)).toHaveLength(20)
  }, 120_000)
})
