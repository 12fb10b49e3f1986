import { CARE_ANALYTICS_EVENTS } from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, useTestApp } from '../../../../../test/helpers.ts'
import { signShareToken } from '../../auth/tokens.ts'

/** The Care Connect screens' analytics events (spec 3 §7) as the client sends them land in analytics_events. */
describe('Care Connect analytics events', () => {
  const ctx = useTestApp()
  let tenant: Awaited<ReturnType<typeof createTenant>>

  beforeAll(async () => {
    tenant = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
  })

  const marker = () => `care-${Math.random().toString(36).slice(2)}`
  const stored = (value: string) =>
    ctx.db.prisma.analyticsEvent.findMany({ where: { properties: { path: ['marker'], equals: value } }, orderBy: { id: 'asc' } })
  const payloads = (value: string) => [
    { name: CARE_ANALYTICS_EVENTS.detailsToggled, properties: { marker: value, npi: '1475667386', expanded: true } },
    {
      name: CARE_ANALYTICS_EVENTS.paginationChanged,
      properties: { marker: value, view: 'referral', tab: 'providers', page: 2, page_size: 5 },
    },
    { name: CARE_ANALYTICS_EVENTS.selectionCleared, properties: { marker: value, view: 'referral', providers: 2, facilities: 1 } },
    { name: CARE_ANALYTICS_EVENTS.markerClicked, properties: { marker: value, npi: '1475667386' } },
  ]

  it('stores the four events of a clinician with their properties and identity', async () => {
    const value = marker()
    const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const response = await request(ctx.app.server)
      .post('/api/analytics/events')
      .set('authorization', `Bearer ${token}`)
      .send({ events: payloads(value) })
    expect(response.status).toBe(202)
    expect(response.body).toEqual({ accepted: 4 })
    const rows = await stored(value)
    expect(rows.map((row) => row.name)).toEqual([
      'provider_details_toggled',
      'pagination_changed',
      'selection_cleared',
      'provider_map_marker_clicked',
    ])
    expect(rows.map((row) => row.properties)).toEqual(payloads(value).map((event) => event.properties))
    for (const row of rows) {
      expect(row).toMatchObject({ user_id: tenant.users[0]!.id, company_id: tenant.company.id, role: 'user', share_id: null })
    }
  })

  it("stores a member's events from a shared link as the link's guest", async () => {
    const link = await ctx.db.prisma.shareableLink.create({
      data: {
        company_id: tenant.company.id,
        created_by_user_id: tenant.users[0]!.id,
        url_type: 'public',
        role: 'member',
        client_routes: ['/member-recommendations'],
        api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
        authorized_user_ids: [],
      },
    })
    const value = marker()
    await request(ctx.app.server)
      .post('/api/analytics/events')
      .query({ token: await signShareToken(testConfig().jwtSecret, link) })
      .send({ events: payloads(value) })
      .expect(202)
    const rows = await stored(value)
    expect(rows).toHaveLength(4)
    for (const row of rows) expect(row).toMatchObject({ user_id: null, role: 'guest', share_id: link.id })
  })
})
