import { AUTH_MESSAGES, COMPANY_MESSAGES, SHARE_MESSAGES } from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'

type Tenant = Awaited<ReturnType<typeof createTenant>>
type Method = 'get' | 'post' | 'put' | 'delete'

const newCompany = () => ({
  company_name: `Acme ${Math.random().toString(36).slice(2, 8)}`,
  industry: 'Payer',
  renewal_cycle_days: 30,
  policies: [
    { product_group: 'ATLAS', limit: null },
    { product_group: 'NOVA', limit: 250 },
  ],
})

describe('super-admin endpoints', () => {
  const ctx = useTestApp()
  let a: Tenant
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    a = await createTenant(ctx.db, { roles: ['citrus', 'admin', 'user', 'member'] })
    for (const [index, name] of (['citrus', 'admin', 'user', 'member'] as const).entries()) {
      tokens[name] = await loginTokenFor(a.users[index]!, a.company.company_name)
    }
  })

  const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` })
  const call = (method: Method, path: string, headers: Record<string, string>, body?: object) => {
    const pending = request(ctx.app.server)[method](path).set(headers)
    return body === undefined ? pending : pending.send(body)
  }

  it('refuses admin, user and member with 403, a link guest with 403 and anonymous callers with 401', async () => {
    const endpoints: [Method, string, object | undefined][] = [
      ['get', '/api/super-admin/company', undefined],
      ['get', `/api/super-admin/company/${a.company.id}`, undefined],
      ['post', '/api/super-admin/company', newCompany()],
      ['put', '/api/super-admin/company', { record: { id: a.company.id, company_name: 'x', industry: 'y' } }],
      ['get', `/api/super-admin/company/${a.company.id}/users`, undefined],
      ['get', '/api/super-admin/audit-log', undefined],
    ]
    const link = await call('post', '/api/shareable-url', as('admin'), {
      url_type: 'public',
      client_routes: ['/citrus-admin'],
      api_endpoints: endpoints.map(([method, path]) => `${method.toUpperCase()} ${path.replace(/^\/api/, '')}`),
      requires_email_verification: false,
      requires_phone_verification: false,
      requires_account_creation: false,
    })
    expect(link.status).toBe(200)
    const guestToken = new URL(link.body.url as string).searchParams.get('token') ?? ''
    const before = await ctx.db.prisma.company.count()

    for (const [method, path, body] of endpoints) {
      for (const role of ['admin', 'user', 'member'] as const) {
        const response = await call(method, path, as(role), body)
        expect(response.status, `${role} ${method} ${path}`).toBe(403)
        expect(response.body).toEqual({ message: AUTH_MESSAGES.roleDenied(role), code: 'FORBIDDEN', status: 403 })
      }
      const guest = await call(method, `${path}?token=${encodeURIComponent(guestToken)}`, {}, body)
      expect(guest.status, `guest ${method} ${path}`).toBe(403)
      expect(guest.body.message).toBe(SHARE_MESSAGES.endpointNotAllowed)
      const anonymous = await call(method, path, {}, body)
      expect(anonymous.status, `anonymous ${method} ${path}`).toBe(401)
    }
    expect(await ctx.db.prisma.company.count()).toBe(before)
  })

  it('creates a company, returns it, lists it and shows it', async () => {
    const body = newCompany()
    const created = await call('post', '/api/super-admin/company', as('citrus'), body)
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body).toMatchObject({
      company_name: body.company_name,
      industry: 'Payer',
      renewal_cycle_days: 30,
      policies: [
        { product_group: 'ATLAS', limit: null },
        { product_group: 'NOVA', limit: 250 },
      ],
    })
    expect(created.body.activation_key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Object.keys(created.body).sort()).toEqual([
      'activation_key',
      'company_name',
      'created_at',
      'id',
      'industry',
      'plan_tier',
      'policies',
      'renewal_cycle_days',
    ])

    const list = await call('get', '/api/super-admin/company', as('citrus'))
    expect(list.status).toBe(200)
    expect((list.body.companies as { id: number }[]).find((c) => c.id === created.body.id)).toEqual(created.body)

    const one = await call('get', `/api/super-admin/company/${created.body.id as number}`, as('citrus'))
    expect(one.status).toBe(200)
    expect(one.body).toEqual(created.body)

    const audit = await ctx.db.prisma.auditLog.findFirstOrThrow({
      where: { action: 'company.create', company_id: created.body.id as number },
    })
    expect(audit).toMatchObject({ source: 'api', actor_user_id: a.users[0]!.id, actor_email: a.users[0]!.email, target_type: 'company' })
    expect(JSON.stringify(audit.details)).not.toContain(created.body.activation_key as string)
  })

  it('accepts lower-case groups and a policy without limit (unlimited)', async () => {
    const created = await call('post', '/api/super-admin/company', as('citrus'), {
      ...newCompany(),
      policies: [{ product_group: 'care_select' }, { product_group: 'SEARCH', limit: '' }],
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body.policies).toEqual([
      { product_group: 'CARE_SELECT', limit: null },
      { product_group: 'SEARCH', limit: null },
    ])
  })

  it(`answers '${COMPANY_MESSAGES.fieldsRequired}' for missing fields and policies without a group`, async () => {
    const cases: Record<string, unknown>[] = [
      {},
      { ...newCompany(), company_name: '' },
      { ...newCompany(), company_name: undefined },
      { ...newCompany(), industry: '  ' },
      { ...newCompany(), renewal_cycle_days: undefined },
      { ...newCompany(), renewal_cycle_days: 'thirty' },
      { ...newCompany(), renewal_cycle_days: 0 },
      { ...newCompany(), policies: [] },
      { ...newCompany(), policies: [{ limit: 5 }] },
      { ...newCompany(), policies: [{ product_group: '', limit: 5 }] },
      { ...newCompany(), policies: [{ product_group: 'ATLAS', limit: 1.5 }] },
      { ...newCompany(), policies: [{ product_group: 'ATLAS', limit: -1 }] },
    ]
    for (const body of cases) {
      const response = await call('post', '/api/super-admin/company', as('citrus'), body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.message, JSON.stringify(body)).toBe(COMPANY_MESSAGES.fieldsRequired)
      expect(response.body.errors.length).toBeGreaterThan(0)
    }
    const missingGroup = await call('post', '/api/super-admin/company', as('citrus'), {
      ...newCompany(),
      policies: [{ product_group: 'ATLAS' }, { limit: 5 }],
    })
    expect(missingGroup.body.errors).toEqual([expect.objectContaining({ path: 'body.policies.1.product_group' })])
    const twice = await call('post', '/api/super-admin/company', as('citrus'), {
      ...newCompany(),
      policies: [{ product_group: 'ATLAS' }, { product_group: 'ATLAS' }],
    })
    expect(twice.status).toBe(400)
    expect(twice.body.message).toBe(COMPANY_MESSAGES.duplicateGroup('ATLAS'))
  })

  it('updates with the documented { record, reset_activation_key } body and with the flat body', async () => {
    const created = (await call('post', '/api/super-admin/company', as('citrus'), newCompany())).body as {
      id: number
      activation_key: string
      company_name: string
    }

    const nested = await call('put', '/api/super-admin/company', as('citrus'), {
      record: {
        id: created.id,
        company_name: 'Renamed',
        industry: 'Pharma',
        renewal_cycle_days: 90,
        policies: [{ product_group: 'NOVA', limit: 10 }],
        activation_key: created.activation_key,
      },
      reset_activation_key: false,
    })
    expect(nested.status, JSON.stringify(nested.body)).toBe(200)
    expect(nested.body).toMatchObject({
      id: created.id,
      company_name: 'Renamed',
      industry: 'Pharma',
      renewal_cycle_days: 90,
      activation_key: created.activation_key,
      policies: [{ product_group: 'NOVA', limit: 10 }],
    })

    const flat = await call('put', '/api/super-admin/company', as('citrus'), {
      id: created.id,
      company_name: 'Flat',
      industry: 'Provider',
      renewal_cycle_days: 30,
      policies: [{ product_group: 'ATLAS', limit: null }],
      activation_key: null,
      reset_activation_key: true,
    })
    expect(flat.status, JSON.stringify(flat.body)).toBe(200)
    expect(flat.body).toMatchObject({ company_name: 'Flat', industry: 'Provider', policies: [{ product_group: 'ATLAS', limit: null }] })
    expect(flat.body.activation_key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(flat.body.activation_key).not.toBe(created.activation_key)

    // an activation_key in the record never sets the key
    const ignored = await call('put', '/api/super-admin/company', as('citrus'), {
      record: { id: created.id, company_name: 'Flat', industry: 'Provider', activation_key: 'x'.repeat(43) },
    })
    expect(ignored.status).toBe(200)
    expect(ignored.body.activation_key).toBe(flat.body.activation_key)
    expect(ignored.body.policies).toEqual([{ product_group: 'ATLAS', limit: null }])

    const entries = await ctx.db.prisma.auditLog.findMany({ where: { company_id: created.id }, orderBy: { id: 'asc' } })
    expect(entries.map((e) => e.action)).toEqual([
      'company.create',
      'company.update',
      'company.update',
      'company.reset_activation_key',
      'company.update',
    ])
    expect(entries[1]!.details).toMatchObject({
      before: { company_name: created.company_name },
      after: { company_name: 'Renamed', renewal_cycle_days: 90 },
    })
  })

  it('validates the edit form and answers 404 for an unknown company', async () => {
    const cases: Record<string, unknown>[] = [
      {},
      { record: { id: a.company.id, company_name: '', industry: 'x' } },
      { record: { id: a.company.id, company_name: 'x' } },
      { id: a.company.id, company_name: 'x', industry: 'y', policies: [{ limit: 1 }] },
      { id: a.company.id, company_name: 'x', industry: 'y', renewal_cycle_days: 'soon' },
    ]
    for (const body of cases) {
      const response = await call('put', '/api/super-admin/company', as('citrus'), body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.message).toBe(COMPANY_MESSAGES.fieldsRequired)
    }
    const unknown = await call('put', '/api/super-admin/company', as('citrus'), {
      record: { id: 999999999, company_name: 'x', industry: 'y' },
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ message: COMPANY_MESSAGES.notFound(999999999), code: 'NOT_FOUND', status: 404 })
    for (const path of ['/api/super-admin/company/999999999', '/api/super-admin/company/999999999/users']) {
      const response = await call('get', path, as('citrus'))
      expect(response.status, path).toBe(404)
      expect(response.body).toEqual({ message: COMPANY_MESSAGES.notFound(999999999), code: 'NOT_FOUND', status: 404 })
    }
  })

  it('lists the users of a company', async () => {
    const t = await createTenant(ctx.db, { roles: ['admin', 'user'] })
    await ctx.db.prisma.user.update({ where: { id: t.users[1]!.id }, data: { is_active: false } })
    const response = await call('get', `/api/super-admin/company/${t.company.id}/users`, as('citrus'))
    expect(response.status).toBe(200)
    const expected = [...t.users]
      .sort((x, y) => x.id - y.id)
      .map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: u.created_at.toISOString(), is_active: u.id !== t.users[1]!.id }))
    expect(response.body).toEqual({ users: expected })
  })

  it('reads the audit log, newest first, per company and limited', async () => {
    const created = (await call('post', '/api/super-admin/company', as('citrus'), newCompany())).body as {
      id: number
      company_name: string
    }
    await call('put', '/api/super-admin/company', as('citrus'), {
      id: created.id,
      company_name: 'Audited',
      industry: 'x',
      reset_activation_key: true,
    }).expect(200)
    const response = await call('get', `/api/super-admin/audit-log?company_id=${created.id}&limit=10`, as('citrus'))
    expect(response.status).toBe(200)
    const entries = response.body.entries as {
      action: string
      source: string
      actor_email: string
      company_id: number
      target_id: string
    }[]
    expect(entries.map((e) => e.action)).toEqual(['company.reset_activation_key', 'company.update', 'company.create'])
    expect(
      entries.every(
        (e) =>
          e.source === 'api' && e.actor_email === a.users[0]!.email && e.company_id === created.id && e.target_id === String(created.id),
      ),
    ).toBe(true)
    const limited = await call('get', '/api/super-admin/audit-log?limit=1', as('citrus'))
    expect(limited.body.entries).toHaveLength(1)
    const bad = await call('get', '/api/super-admin/audit-log?limit=0', as('citrus'))
    expect(bad.status).toBe(400)
  })
})
