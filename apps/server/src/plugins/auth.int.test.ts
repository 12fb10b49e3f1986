import { AUTH_MESSAGES, SHARE_MESSAGES, type Role } from '@citrus/contracts'
import Fastify, { type FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, testDatabase, useTestApp } from '../../../../test/helpers.ts'
import { registerTokens, signShareToken } from '../auth/tokens.ts'
import type { Database } from '../db/database.ts'
import type { Prisma } from '../generated/prisma/client.ts'
import { registerErrorHandling } from './error-handler.ts'
import { registerAuth, requireAccess, requireProduct, requireRoles, userOf } from './auth.ts'
import { dataVersion, requestDataVersion } from '../lib/versioned-cache.ts'

type Tenant = Awaited<ReturnType<typeof createTenant>>

async function shareToken(db: Database, tenant: Tenant, overrides: Partial<Prisma.ShareableLinkUncheckedCreateInput> = {}) {
  const link = await db.prisma.shareableLink.create({
    data: {
      company_id: tenant.company.id,
      created_by_user_id: tenant.users[0]!.id,
      url_type: 'public',
      client_routes: ['/member-recommendations'],
      api_endpoints: [],
      authorized_user_ids: [],
      role: 'member',
      ...overrides,
    },
  })
  return signShareToken(testConfig().jwtSecret, link)
}

describe('auth guards on a probe scope (guests, roles, products)', () => {
  let app: FastifyInstance
  let db: Database
  let tenant: Tenant

  beforeAll(async () => {
    db = testDatabase()
    tenant = await createTenant(db, { roles: ['admin', 'user', 'member'], products: [{ product_group: 'CARE_SELECT' }] })
    app = Fastify({ logger: false })
    app.setValidatorCompiler(validatorCompiler)
    app.setSerializerCompiler(serializerCompiler)
    app.decorate('config', testConfig())
    app.decorate('db', db)
    await registerTokens(app, testConfig().jwtSecret)
    registerErrorHandling(app, { spaFallback: () => undefined })
    await app.register(
      async (api) => {
        registerAuth(api)
        const who = (request: Parameters<typeof userOf>[0]) =>
          request.auth?.kind === 'guest'
            ? { kind: 'guest', company_id: request.auth.company_id }
            : { kind: 'user', role: userOf(request).role }
        api.get(
          '/care-select/rankings',
          { onRequest: requireAccess({ roles: ['admin', 'citrus', 'user', 'member', 'guest'], product: 'CARE_SELECT' }) },
          async (request) => who(request),
        )
        api.get('/nova/thing', { onRequest: requireAccess({ roles: ['citrus', 'guest'], product: 'NOVA' }) }, async (request) =>
          who(request),
        )
        api.get('/admin-only', { onRequest: requireRoles(['admin', 'citrus']) }, async (request) => who(request))
        api.get('/atlas-only', { onRequest: [requireRoles(['admin', 'user']), requireProduct('ATLAS')] }, async (request) => who(request))
        api.get('/data-version', { onRequest: requireAccess({ roles: ['admin', 'user', 'member', 'guest'] }) }, async (request) => ({
          read_with_login: request.dataVersion,
          version: await requestDataVersion(request),
        }))
      },
      { prefix: '/api' },
    )
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
    await db.close()
  })

  const bearer = async (index: number) => ({
    authorization: `Bearer ${await loginTokenFor(tenant.users[index]!, tenant.company.company_name)}`,
  })

  it('reads the data version with the login principal, as fresh as a read of its own; guests read it apart', async () => {
    const get = async (headers: Record<string, string>, query: Record<string, string> = {}) =>
      (await request(app.server).get('/api/data-version').query(query).set(headers)).body as {
        read_with_login: string | null
        version: string
      }
    const before = await get(await bearer(1))
    expect(before.read_with_login).toBe(before.version)
    expect(before.version).toBe(await dataVersion(db.pool))
    await db.pool.query("INSERT INTO data_loads (kind, scale, status, finished_at) VALUES ('import', 'auth-version-test', 'done', now())")
    const after = await get(await bearer(1))
    expect(after.read_with_login).not.toBe(before.version)
    expect(after.read_with_login).toBe(await dataVersion(db.pool))
    const token = await shareToken(db, tenant, { api_endpoints: ['GET /data-version'] })
    const guest = await get({}, { token })
    expect(guest).toEqual({ read_with_login: null, version: after.version })
  })

  it('admits a guest whose link lists the endpoint, on the link owner’s company', async () => {
    const token = await shareToken(db, tenant, { api_endpoints: ['GET /care-select/rankings'] })
    const response = await request(app.server).get('/api/care-select/rankings').query({ token, zip_code: '98101' })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ kind: 'guest', company_id: tenant.company.id })
  })

  it('refuses a guest on an endpoint the link does not list', async () => {
    const token = await shareToken(db, tenant, { api_endpoints: ['GET /something-else'] })
    const response = await request(app.server).get('/api/care-select/rankings').query({ token })
    expect(response.status).toBe(403)
    expect(response.body).toEqual({ message: SHARE_MESSAGES.endpointNotAllowed, code: 'FORBIDDEN', status: 403 })
  })

  it('refuses a guest on a listed endpoint that does not admit guests', async () => {
    const token = await shareToken(db, tenant, { api_endpoints: ['GET /admin-only'] })
    expect((await request(app.server).get('/api/admin-only').query({ token })).status).toBe(403)
  })

  it('grants nothing to the holder of a link that needs verification or an account', async () => {
    for (const requirement of ['requires_phone_verification', 'requires_email_verification', 'requires_account_creation'] as const) {
      const token = await shareToken(db, tenant, { api_endpoints: ['GET /care-select/rankings'], [requirement]: true })
      const response = await request(app.server).get('/api/care-select/rankings').query({ token })
      expect(response.status, requirement).toBe(403)
      expect(response.body.message).toBe(SHARE_MESSAGES.verificationRequired)
    }
  })

  it("checks the product against the link owner's company for guests too", async () => {
    const token = await shareToken(db, tenant, { api_endpoints: ['GET /nova/thing'] })
    const response = await request(app.server).get('/api/nova/thing').query({ token })
    expect(response.status).toBe(403)
    expect(response.body).toEqual({ message: AUTH_MESSAGES.productDenied('Nova'), code: 'FORBIDDEN', status: 403 })
  })

  it('runs as the signed-in user when both are present, held to the link (its users, its api_endpoints)', async () => {
    const listed = await shareToken(db, tenant, { api_endpoints: ['GET /care-select/rankings'] })
    const response = await request(app.server)
      .get('/api/care-select/rankings')
      .query({ token: listed })
      .set(await bearer(1))
    expect(response.body).toEqual({ kind: 'user', role: 'user' })
    const unlisted = await shareToken(db, tenant, { api_endpoints: [] })
    const refused = await request(app.server)
      .get('/api/care-select/rankings')
      .query({ token: unlisted })
      .set(await bearer(1))
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ message: 'This shared link does not grant access to this endpoint', code: 'FORBIDDEN', status: 403 })
    const forOthers = await shareToken(db, tenant, {
      api_endpoints: ['GET /care-select/rankings'],
      authorized_user_ids: [tenant.users[2]!.id],
    })
    const other = await request(app.server)
      .get('/api/care-select/rankings')
      .query({ token: forOthers })
      .set(await bearer(1))
    expect(other.status).toBe(403)
    expect(other.body).toEqual({ message: 'You are not authorized to access this content', code: 'FORBIDDEN', status: 403 })
    const member = await request(app.server)
      .get('/api/care-select/rankings')
      .query({ token: forOthers })
      .set(await bearer(2))
    expect(member.body).toEqual({ kind: 'user', role: 'member' })
    // a forged link token beside a valid login is refused, not ignored
    const forged = await request(app.server)
      .get('/api/care-select/rankings')
      .query({ token: `${listed}x` })
      .set(await bearer(1))
    expect(forged.status).toBe(401)
    expect(forged.body.message).toBe('This shared link is no longer valid or has expired.')
  })

  it('applies role and product guards to signed-in users', async () => {
    expect(
      (
        await request(app.server)
          .get('/api/admin-only')
          .set(await bearer(0))
      ).status,
    ).toBe(200)
    const user = await request(app.server)
      .get('/api/admin-only')
      .set(await bearer(1))
    expect(user.status).toBe(403)
    expect(user.body).toEqual({ message: AUTH_MESSAGES.roleDenied('user'), code: 'FORBIDDEN', status: 403 })
    const noAtlas = await request(app.server)
      .get('/api/atlas-only')
      .set(await bearer(0))
    expect(noAtlas.status).toBe(403)
    expect(noAtlas.body.message).toBe(AUTH_MESSAGES.productDenied('Atlas'))
    expect((await request(app.server).get('/api/atlas-only')).status).toBe(401)
  })
})

describe('API key resolver plug-in', () => {
  it('resolves `sk-` tokens through a registered resolver', async () => {
    const db = testDatabase()
    const tenant = await createTenant(db, { roles: ['admin'] })
    const app = Fastify({ logger: false })
    app.decorate('config', testConfig())
    app.decorate('db', db)
    await registerTokens(app, testConfig().jwtSecret)
    registerErrorHandling(app, { spaFallback: () => undefined })
    await app.register(
      async (api) => {
        registerAuth(api)
        api.credentials.register({
          name: 'api_key',
          accepts: (token) => token.startsWith('sk-'),
          async resolve(token) {
            if (token !== 'sk-good') throw new (await import('../lib/errors.ts')).AppError(401, 'UNAUTHORIZED', AUTH_MESSAGES.invalidApiKey)
            const user = tenant.users[0]!
            return {
              kind: 'user',
              credential: 'api_key',
              credential_id: 'key-1',
              user_id: user.id,
              email: user.email,
              company_id: tenant.company.id,
              company_name: tenant.company.company_name,
              role: user.role as Role,
              phone_number: null,
            }
          },
        })
        api.get('/me', { onRequest: api.authenticate }, async (request) => ({ credential: userOf(request).credential }))
      },
      { prefix: '/api' },
    )
    try {
      await app.ready()
      expect((await request(app.server).get('/api/me').set('authorization', 'Bearer sk-good')).body).toEqual({ credential: 'api_key' })
      const bad = await request(app.server).get('/api/me').set('authorization', 'Bearer sk-bad')
      expect(bad.status).toBe(401)
      expect(bad.body.message).toBe(AUTH_MESSAGES.invalidApiKey)
    } finally {
      await app.close()
      await db.close()
    }
  })
})

/**
 * The role x endpoint matrix of every endpoint issue 3 adds: 401 without credentials, 403 for
 * roles that may not call it and for shareable-link guests, and never 401/403 for allowed roles.
 */
describe('role x endpoint matrix', () => {
  const ctx = useTestApp()
  let tenant: Tenant
  const headers: Record<string, Record<string, string>> = {}
  let guestToken = ''

  const ALL: Role[] = ['admin', 'citrus', 'user', 'member']
  const STAFF: Role[] = ['admin', 'citrus', 'user']
  const protectedEndpoints: { method: 'get' | 'post'; path: string; body?: object; roles: Role[] }[] = [
    { method: 'get', path: '/api/users/info', roles: ALL },
    { method: 'get', path: '/api/company/products', roles: ALL },
    { method: 'get', path: '/api/company/product/has-access?product_group=ATLAS', roles: ALL },
    { method: 'post', path: '/api/feedback', body: { rating: 4, issues: ['other'], feedback: 'matrix' }, roles: ALL },
    { method: 'get', path: '/api/shareable-url', roles: STAFF },
    { method: 'post', path: '/api/shareable-url', body: { url_type: 'public', client_routes: ['/price-check'] }, roles: STAFF },
    { method: 'post', path: '/api/shareable-url/00000000-0000-4000-8000-000000000000/revoke', roles: STAFF },
  ]

  beforeAll(async () => {
    tenant = await createTenant(ctx.db, { roles: ALL })
    for (const [index, role] of ALL.entries()) {
      headers[role] = { authorization: `Bearer ${await loginTokenFor(tenant.users[index]!, tenant.company.company_name)}` }
    }
    guestToken = await shareToken(ctx.db, tenant, {
      api_endpoints: protectedEndpoints.map((endpoint) => `${endpoint.method.toUpperCase()} ${endpoint.path.replace(/\?.*/, '')}`),
    })
  })

  const call = (endpoint: (typeof protectedEndpoints)[number]) => {
    const pending = request(ctx.app.server)[endpoint.method](endpoint.path)
    return endpoint.body ? pending.send(endpoint.body) : pending
  }

  for (const endpoint of protectedEndpoints) {
    const label = `${endpoint.method.toUpperCase()} ${endpoint.path}`
    it(`${label}: 401 without credentials`, async () => {
      const response = await call(endpoint)
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ message: AUTH_MESSAGES.authRequired, code: 'UNAUTHORIZED', status: 401 })
    })
    it(`${label}: allowed for ${endpoint.roles.join(', ')}; 403 for the others and for guests`, async () => {
      for (const role of ALL) {
        const response = await call(endpoint).set(headers[role]!)
        if (endpoint.roles.includes(role)) {
          expect([401, 403], `${role} ${response.status} ${JSON.stringify(response.body)}`).not.toContain(response.status)
        } else {
          expect(response.status, role).toBe(403)
          expect(response.body).toEqual({ message: AUTH_MESSAGES.roleDenied(role), code: 'FORBIDDEN', status: 403 })
        }
      }
      const separator = endpoint.path.includes('?') ? '&' : '?'
      const guest = await request(ctx.app.server)[endpoint.method](`${endpoint.path}${separator}token=${guestToken}`).send(endpoint.body)
      expect(guest.status).toBe(403)
      expect(guest.body.message).toBe(SHARE_MESSAGES.endpointNotAllowed)
    })
  }

  const publicEndpoints: { method: 'get' | 'post'; path: string; body?: object }[] = [
    { method: 'post', path: '/api/users/login', body: { email: 'nobody@test.citrus', password: 'x' } },
    { method: 'post', path: '/api/users/user-signup', body: { email: 'nobody@test.citrus', password: 'x', activation_key: 'x' } },
    { method: 'post', path: '/api/users/password-reset-email', body: { email: 'nobody@test.citrus' } },
    { method: 'post', path: '/api/users/password-reset', body: { new_password: 'Abcdef#12', temp_jwt_token: 'x' } },
    { method: 'post', path: '/api/users/verify', body: { email: 'nobody@test.citrus' } },
    { method: 'get', path: '/api/shareable-url/validate-shareable-link?token=x' },
    { method: 'get', path: '/api/data-dictionary' },
    { method: 'post', path: '/api/analytics/events', body: { events: [{ name: 'user_logged_out' }] } },
  ]
  for (const endpoint of publicEndpoints) {
    it(`${endpoint.method.toUpperCase()} ${endpoint.path} is public (no credential needed; a bad one is ignored)`, async () => {
      for (const extra of [{}, { authorization: 'Bearer expired.or.bad' }]) {
        const pending = request(ctx.app.server)[endpoint.method](endpoint.path).set(extra)
        const response = await (endpoint.body ? pending.send(endpoint.body) : pending)
        if (endpoint.path.startsWith('/api/users/login')) {
          expect(response.body.message).toBe('Invalid email or password')
        } else if (endpoint.path.includes('validate-shareable-link')) {
          expect(response.body.message).toBe(SHARE_MESSAGES.invalidToken)
        } else {
          expect([401, 403]).not.toContain(response.status)
        }
      }
    })
  }
})
