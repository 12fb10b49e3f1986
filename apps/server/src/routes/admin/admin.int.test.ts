import {
  ADMIN_MESSAGES,
  API_TOKEN_MESSAGES,
  AUTH_MESSAGES,
  MAX_API_TOKENS_PER_USER,
  MESSAGES,
  ONBOARDING_MESSAGES,
  SHARE_MESSAGES,
  USER_MESSAGES,
} from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { TEST_PASSWORD, createTenant, loginTokenFor, uniqueEmail, useTestApp } from '../../../../../test/helpers.ts'
import { newActivationKey } from '../../seed/demo-accounts.ts'

type Tenant = Awaited<ReturnType<typeof createTenant>>

/** Every admin endpoint, with a body that would pass validation. */
const ADMIN_ENDPOINTS = (userId: number, key: string) =>
  [
    ['get', '/api/admin/api-token', undefined],
    ['post', '/api/admin/api-token', { name: 'ci' }],
    ['delete', '/api/admin/api-token', { id: '00000000-0000-4000-8000-000000000000' }],
    ['get', '/api/admin/active-seats', undefined],
    ['get', '/api/admin/product-usage', undefined],
    ['get', '/api/admin/activation-key', undefined],
    ['get', `/api/admin/permission/${userId}`, undefined],
    ['post', '/api/admin/email/onboarding', { email: uniqueEmail('x'), company_activation_key: key, role: 'user', is_trial: false }],
  ] as const

describe('admin endpoints', () => {
  const ctx = useTestApp({ PUBLIC_URL: 'https://citrus.example.com' })
  let a: Tenant
  let b: Tenant
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    a = await createTenant(ctx.db, {
      roles: ['admin', 'user', 'member', 'citrus'],
      products: [{ product_group: 'ATLAS', limit: 100 }, { product_group: 'NOVA' }],
    })
    b = await createTenant(ctx.db, { roles: ['admin', 'user'], products: [{ product_group: 'CARE_SELECT', limit: 5 }] })
    for (const [index, name] of (['aAdmin', 'aUser', 'aMember', 'aCitrus'] as const).entries()) {
      tokens[name] = await loginTokenFor(a.users[index]!, a.company.company_name)
    }
    tokens.bAdmin = await loginTokenFor(b.users[0]!, b.company.company_name)
    tokens.bUser = await loginTokenFor(b.users[1]!, b.company.company_name)
  })

  const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` })
  const call = (method: 'get' | 'post' | 'delete' | 'put', path: string, headers: Record<string, string>, body?: object) => {
    const pending = request(ctx.app.server)[method](path).set(headers)
    return body === undefined ? pending : pending.send(body)
  }

  describe('roles', () => {
    it('refuses user and member with 403, a shareable-link guest with 403 and anonymous callers with 401', async () => {
      const endpoints = ADMIN_ENDPOINTS(a.users[1]!.id, a.company.activation_key)
      // a link that even lists every admin endpoint grants a guest nothing here
      const link = await request(ctx.app.server)
        .post('/api/shareable-url')
        .set(as('aUser'))
        .send({
          url_type: 'public',
          client_routes: ['/team-management'],
          api_endpoints: endpoints.map(([method, path]) => `${method.toUpperCase()} ${path.replace(/^\/api/, '')}`),
          requires_email_verification: false,
          requires_phone_verification: false,
          requires_account_creation: false,
        })
      expect(link.status, JSON.stringify(link.body)).toBe(200)
      const guestToken = new URL(link.body.url as string).searchParams.get('token') ?? ''

      for (const [method, path, body] of endpoints) {
        for (const who of ['aUser', 'aMember'] as const) {
          const response = await call(method, path, as(who), body)
          expect(response.status, `${who} ${method} ${path}`).toBe(403)
          expect(response.body).toEqual({
            message: AUTH_MESSAGES.roleDenied(who === 'aUser' ? 'user' : 'member'),
            code: 'FORBIDDEN',
            status: 403,
          })
        }
        const guest = await call(method, `${path}?token=${encodeURIComponent(guestToken)}`, {}, body)
        expect(guest.status, `guest ${method} ${path}`).toBe(403)
        expect(guest.body.message).toBe(SHARE_MESSAGES.endpointNotAllowed)
        const anonymous = await call(method, path, {}, body)
        expect(anonymous.status, `anonymous ${method} ${path}`).toBe(401)
        expect(anonymous.body).toEqual({ message: AUTH_MESSAGES.authRequired, code: 'UNAUTHORIZED', status: 401 })
      }
    })
  })

  describe('API keys', () => {
    it('creates a key shown once, lists it masked and deletes it', async () => {
      const created = await call('post', '/api/admin/api-token', as('aAdmin'), { name: 'Reporting', company_id: a.company.id })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const token = created.body.token as string
      expect(token).toMatch(/^sk-[A-Za-z0-9_-]{48}$/)
      expect(created.body).toMatchObject({
        name: 'Reporting',
        masked_token: token.slice(3, 7),
        last_used_at: null,
        user_id: a.users[0]!.id,
        company_id: a.company.id,
      })
      expect(new Date(created.body.created_at as string).getTime()).toBeGreaterThan(Date.now() - 60_000)

      const stored = await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: created.body.id as string } })
      expect(stored.token_hash).not.toContain(token.slice(3))
      expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/)

      const list = await call('get', `/api/admin/api-token?company_id=${a.company.id}`, as('aAdmin'))
      expect(list.status).toBe(200)
      const entry = (list.body as { id: string }[]).find((t) => t.id === created.body.id)
      expect(entry).toEqual({
        id: created.body.id,
        name: 'Reporting',
        masked_token: token.slice(3, 7),
        created_at: created.body.created_at,
        last_used_at: null,
        user_id: a.users[0]!.id,
        user_email: a.users[0]!.email,
        company_id: a.company.id,
      })
      expect(JSON.stringify(list.body)).not.toContain(token)

      const deleted = await call('delete', '/api/admin/api-token', as('aAdmin'), { id: created.body.id as string })
      expect(deleted.status).toBe(200)
      expect(deleted.body).toEqual({ message: API_TOKEN_MESSAGES.deleted })
      const after = await call('get', '/api/admin/api-token', as('aAdmin'))
      expect((after.body as { id: string }[]).map((t) => t.id)).not.toContain(created.body.id)
      const again = await call('delete', '/api/admin/api-token', as('aAdmin'), { id: created.body.id as string })
      expect(again.status).toBe(404)
      expect(again.body).toEqual({ message: API_TOKEN_MESSAGES.notFound, code: 'NOT_FOUND', status: 404 })
    })

    it("shows an admin every key of the company, and lets the admin revoke a colleague's key", async () => {
      const key = await call('post', '/api/admin/api-token', as('aCitrus'), { name: 'citrus key' })
      expect(key.status).toBe(200)
      const list = await call('get', '/api/admin/api-token', as('aAdmin'))
      expect((list.body as { id: string }[]).map((t) => t.id)).toContain(key.body.id)
      const revoke = await call('delete', '/api/admin/api-token', as('aAdmin'), { id: key.body.id as string })
      expect(revoke.status).toBe(200)
    })

    it('requires a name (spec 1 §5)', async () => {
      for (const body of [{}, { name: '' }, { name: '   ' }, { name: null }]) {
        const response = await call('post', '/api/admin/api-token', as('aAdmin'), body)
        expect(response.status, JSON.stringify(body)).toBe(400)
        expect(response.body.message).toBe(API_TOKEN_MESSAGES.nameRequired)
        expect(response.body.token).toBeUndefined()
      }
    })

    it(`enforces at most ${MAX_API_TOKENS_PER_USER} active keys per user with the documented message`, async () => {
      const { users, company } = await createTenant(ctx.db, { roles: ['admin'] })
      const token = await loginTokenFor(users[0]!, company.company_name)
      const headers = { authorization: `Bearer ${token}` }
      const ids: string[] = []
      for (let i = 0; i < MAX_API_TOKENS_PER_USER; i++) {
        const response = await call('post', '/api/admin/api-token', headers, { name: `k${i}`, company_id: company.id })
        expect(response.status).toBe(200)
        ids.push(response.body.id as string)
      }
      const over = await call('post', '/api/admin/api-token', headers, { name: 'one too many', company_id: company.id })
      expect(over.status).toBe(409)
      expect(over.body).toEqual({ message: API_TOKEN_MESSAGES.maxTokens, code: 'CONFLICT', status: 409 })
      // a revoked key frees its place
      await call('delete', '/api/admin/api-token', headers, { id: ids[0]! }).expect(200)
      const replaced = await call('post', '/api/admin/api-token', headers, { name: 'replacement' })
      expect(replaced.status).toBe(200)
    })

    // Runs in both modes: the embedded database's wire server gives each transaction the session alone.
    it('holds the maximum under concurrent creates', async () => {
      const { users, company } = await createTenant(ctx.db, { roles: ['admin'] })
      const headers = { authorization: `Bearer ${await loginTokenFor(users[0]!, company.company_name)}` }
      const responses = await Promise.all(
        Array.from({ length: MAX_API_TOKENS_PER_USER + 4 }, (_, i) => call('post', '/api/admin/api-token', headers, { name: `race ${i}` })),
      )
      expect(responses.filter((r) => r.status === 200)).toHaveLength(MAX_API_TOKENS_PER_USER)
      expect(responses.filter((r) => r.status === 409)).toHaveLength(4)
      expect(await ctx.db.prisma.apiToken.count({ where: { user_id: users[0]!.id, revoked_at: null } })).toBe(MAX_API_TOKENS_PER_USER)
    })

    it("lets citrus list any company's keys, and 404s an unknown company", async () => {
      const bKey = await call('post', '/api/admin/api-token', as('bAdmin'), { name: 'b key' })
      const list = await call('get', `/api/admin/api-token?company_id=${b.company.id}`, as('aCitrus'))
      expect(list.status).toBe(200)
      expect((list.body as { id: string }[]).map((t) => t.id)).toContain(bKey.body.id)
      const unknown = await call('get', '/api/admin/api-token?company_id=999999999', as('aCitrus'))
      expect(unknown.status).toBe(404)
      expect(unknown.body.message).toBe('Company 999999999 not found')
      // citrus creates keys for itself only, in its own company
      const elsewhere = await call('post', '/api/admin/api-token', as('aCitrus'), { name: 'x', company_id: b.company.id })
      expect(elsewhere.status).toBe(403)
      expect(elsewhere.body.message).toBe(API_TOKEN_MESSAGES.ownCompanyOnly)
      const revoke = await call('delete', '/api/admin/api-token', as('aCitrus'), { id: bKey.body.id as string })
      expect(revoke.status).toBe(200)
    })
  })

  describe('tenant isolation: an admin of company A and company B', () => {
    it("cannot list, create or delete B's keys", async () => {
      const bKey = await call('post', '/api/admin/api-token', as('bAdmin'), { name: 'b secret' })
      expect(bKey.status).toBe(200)

      const list = await call('get', `/api/admin/api-token?company_id=${b.company.id}`, as('aAdmin'))
      expect(list.status).toBe(403)
      expect(list.body).toEqual({ message: ADMIN_MESSAGES.otherCompany, code: 'FORBIDDEN', status: 403 })

      const create = await call('post', '/api/admin/api-token', as('aAdmin'), { name: 'intruder', company_id: b.company.id })
      expect(create.status).toBe(403)
      expect(create.body.message).toBe(API_TOKEN_MESSAGES.ownCompanyOnly)
      expect(create.body.token).toBeUndefined()

      const remove = await call('delete', '/api/admin/api-token', as('aAdmin'), { id: bKey.body.id as string })
      expect(remove.status).toBe(404)
      expect(remove.body.message).toBe(API_TOKEN_MESSAGES.notFound)
      const still = await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: bKey.body.id as string } })
      expect(still.revoked_at).toBeNull()

      // A's own list never shows B's keys
      const own = await call('get', '/api/admin/api-token', as('aAdmin'))
      expect((own.body as { company_id: number }[]).every((t) => t.company_id === a.company.id)).toBe(true)
    })

    it("cannot see B's seats, usage, activation key or users' permissions", async () => {
      for (const path of ['/api/admin/active-seats', '/api/admin/product-usage', '/api/admin/activation-key']) {
        const response = await call('get', `${path}?company_id=${b.company.id}`, as('aAdmin'))
        expect(response.status, path).toBe(403)
        expect(response.body).toEqual({ message: ADMIN_MESSAGES.otherCompany, code: 'FORBIDDEN', status: 403 })
        expect(JSON.stringify(response.body)).not.toContain(b.company.activation_key)
      }
      const permission = await call('get', `/api/admin/permission/${b.users[1]!.id}`, as('aAdmin'))
      expect(permission.status).toBe(404)
      expect(permission.body).toEqual({ message: ADMIN_MESSAGES.userNotFound, code: 'NOT_FOUND', status: 404 })
    })

    it('cannot send onboarding e-mails for B', async () => {
      const email = uniqueEmail('poach')
      const response = await call('post', '/api/admin/email/onboarding', as('aAdmin'), {
        email,
        company_activation_key: b.company.activation_key,
        role: 'admin',
        is_trial: false,
      })
      expect(response.status).toBe(403)
      expect(response.body).toEqual({ message: ONBOARDING_MESSAGES.notYourCompany, code: 'FORBIDDEN', status: 403 })
      expect(await ctx.db.prisma.onboardingInvitation.count({ where: { email } })).toBe(0)
      expect(await ctx.db.prisma.messageOutbox.count({ where: { recipient: email } })).toBe(0)
    })
  })

  describe('team', () => {
    it("lists the active seats of the caller's company", async () => {
      const { company, users } = await createTenant(ctx.db, { roles: ['admin', 'user', 'member'] })
      await ctx.db.prisma.user.update({ where: { id: users[2]!.id }, data: { is_active: false } })
      const response = await call('get', '/api/admin/active-seats', {
        authorization: `Bearer ${await loginTokenFor(users[0]!, company.company_name)}`,
      })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        users: users
          .slice(0, 2)
          .sort((x, y) => x.id - y.id)
          .map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: u.created_at.toISOString() })),
      })
    })

    it('reports product usage per product group: limited and unlimited', async () => {
      const response = await call('get', '/api/admin/product-usage', as('aAdmin'))
      expect(response.status).toBe(200)
      const products = response.body.products as Record<string, unknown>[]
      expect(products.map((p) => p.product_group)).toEqual(['ATLAS', 'NOVA'])
      expect(products[0]).toMatchObject({ product_group: 'ATLAS', remaining_count: 100, is_infinite: false, limit: 100, used_count: 0 })
      expect(products[1]).toMatchObject({ product_group: 'NOVA', remaining_count: null, is_infinite: true, limit: null })
      expect(typeof products[0]!.id).toBe('number')
      // citrus may look at another company
      const other = await call('get', `/api/admin/product-usage?company_id=${b.company.id}`, as('aCitrus'))
      expect(other.status).toBe(200)
      expect(other.body.products).toEqual([
        expect.objectContaining({ product_group: 'CARE_SELECT', remaining_count: 5, is_infinite: false }),
      ])
    })

    it('returns the activation key of the company', async () => {
      const response = await call('get', '/api/admin/activation-key', as('aAdmin'))
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ activation_key: a.company.activation_key })
    })

    it("returns a user's role and product groups", async () => {
      const response = await call('get', `/api/admin/permission/${a.users[1]!.id}`, as('aAdmin'))
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        user_id: a.users[1]!.id,
        email: a.users[1]!.email,
        role: 'user',
        is_active: true,
        company_id: a.company.id,
        company_name: a.company.company_name,
        product_groups: ['ATLAS', 'NOVA'],
      })
      const citrus = await call('get', `/api/admin/permission/${b.users[1]!.id}`, as('aCitrus'))
      expect(citrus.status).toBe(200)
      expect(citrus.body.product_groups).toEqual(['CARE_SELECT'])
      const missing = await call('get', '/api/admin/permission/999999999', as('aCitrus'))
      expect(missing.status).toBe(404)
    })
  })

  describe('onboarding e-mail', () => {
    const send = (who: string, body: Record<string, unknown>) => call('post', '/api/admin/email/onboarding', as(who), body)
    const valid = () => ({ email: uniqueEmail('invitee'), company_activation_key: a.company.activation_key, role: 'user', is_trial: false })

    it('answers the messages of spec 1 §5', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, ONBOARDING_MESSAGES.allFieldsRequired],
        [{ ...valid(), email: '' }, MESSAGES.allFieldsRequired],
        [{ ...valid(), company_activation_key: '' }, MESSAGES.allFieldsRequired],
        [{ ...valid(), role: '' }, MESSAGES.allFieldsRequired],
        [{ ...valid(), is_trial: undefined }, MESSAGES.allFieldsRequired],
        [{ ...valid(), email: 'not-an-email' }, 'Please enter a valid email address.'],
        [{ ...valid(), email: 'a@b' }, 'Please enter a valid email address.'],
        [{ ...valid(), company_activation_key: 'short' }, 'Invalid activation key format.'],
        [{ ...valid(), company_activation_key: `${'a'.repeat(42)}!` }, 'Invalid activation key format.'],
        [{ ...valid(), email: 'bad', company_activation_key: 'short' }, 'Please enter a valid email address.'],
        [{ ...valid(), role: 'owner' }, ONBOARDING_MESSAGES.roleInvalid],
      ]
      for (const [body, message] of cases) {
        const response = await send('aAdmin', body)
        expect(response.status, JSON.stringify(body)).toBe(400)
        expect(response.body.message, JSON.stringify(body)).toBe(message)
        expect(response.body.code).toBe('VALIDATION_ERROR')
      }
    })

    it('lets an admin invite user or admin (any case), not citrus', async () => {
      for (const role of ['user', 'USER', 'admin', 'Admin']) {
        const response = await send('aAdmin', { ...valid(), role })
        expect(response.status, role).toBe(200)
        expect(response.body.message_id).toMatch(/^[0-9a-f-]{36}$/)
      }
      const citrus = await send('aAdmin', { ...valid(), role: 'CITRUS' })
      expect(citrus.status).toBe(403)
      expect(citrus.body).toEqual({ message: ONBOARDING_MESSAGES.roleNotAllowed, code: 'FORBIDDEN', status: 403 })
    })

    it('lets citrus invite citrus into any company; an unknown key is refused', async () => {
      const response = await send('aCitrus', { ...valid(), company_activation_key: b.company.activation_key, role: 'CITRUS' })
      expect(response.status).toBe(200)
      const unknown = await send('aCitrus', { ...valid(), company_activation_key: newActivationKey() })
      expect(unknown.status).toBe(400)
      expect(unknown.body.message).toBe(ONBOARDING_MESSAGES.unknownKey)
    })

    it('refuses an address that already has an account', async () => {
      const response = await send('aAdmin', { ...valid(), email: a.users[1]!.email.toUpperCase() })
      expect(response.status).toBe(409)
      expect(response.body.message).toBe(USER_MESSAGES.emailTaken)
    })

    it('honours the chosen role end to end: invite as admin, sign up with the link, the new user is admin', async () => {
      const email = uniqueEmail('newadmin')
      const response = await send('aAdmin', {
        email: email.toUpperCase(),
        company_activation_key: a.company.activation_key,
        role: 'ADMIN',
        is_trial: true,
      })
      expect(response.status).toBe(200)
      const message = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: response.body.message_id as string } })
      expect(message).toMatchObject({ channel: 'email', recipient: email, status: 'held' })
      expect(message.subject).toContain(a.company.company_name)
      const link = /https:\/\/citrus\.example\.com\/sign-up\?activation_key=\S+/.exec(message.body)?.[0]
      expect(link).toBeDefined()
      const key = new URL(link!).searchParams.get('activation_key')
      expect(key).toBe(a.company.activation_key)
      expect(message.body).toContain('as an admin')
      expect(message.body).toContain('trial')

      // a second e-mail to the same address replaces the pending role rather than adding a row
      await send('aAdmin', { email, company_activation_key: a.company.activation_key, role: 'user', is_trial: false }).expect(200)
      const latest = await send('aAdmin', {
        email,
        company_activation_key: a.company.activation_key,
        role: 'admin',
        is_trial: true,
      }).expect(200)
      expect(await ctx.db.prisma.onboardingInvitation.count({ where: { email, company_id: a.company.id, accepted_at: null } })).toBe(1)
      // the role applies only with the token of the latest link (decision 0012)
      const latestBody = (await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: latest.body.message_id as string } })).body
      const invitation_token = new URL(/https:\/\/citrus\.example\.com\/sign-up\?\S+/.exec(latestBody)![0]).searchParams.get('invitation')
      expect(invitation_token).toMatch(/^[A-Za-z0-9_-]{43}$/)

      const signup = await request(ctx.app.server)
        .post('/api/users/user-signup')
        .send({ email, password: TEST_PASSWORD, activation_key: key, invitation_token })
      expect(signup.status, JSON.stringify(signup.body)).toBe(200)
      const user = await ctx.db.prisma.user.findUniqueOrThrow({ where: { email } })
      expect(user).toMatchObject({ role: 'admin', company_id: a.company.id })
      const login = await request(ctx.app.server).post('/api/users/login').send({ email, password: TEST_PASSWORD })
      expect(login.status).toBe(200)
      const seats = await call('get', '/api/admin/active-seats', { authorization: `Bearer ${login.body.token as string}` })
      expect(seats.status).toBe(200)
    })

    it('writes an audit entry with the role and the message id', async () => {
      const email = uniqueEmail('audited')
      const response = await send('aAdmin', { email, company_activation_key: a.company.activation_key, role: 'user', is_trial: false })
      expect(response.status).toBe(200)
      const entry = await ctx.db.prisma.auditLog.findFirstOrThrow({
        where: { action: 'onboarding_email.send', company_id: a.company.id },
        orderBy: { id: 'desc' },
      })
      expect(entry).toMatchObject({
        source: 'api',
        actor_user_id: a.users[0]!.id,
        actor_email: a.users[0]!.email,
        target_type: 'onboarding_invitation',
      })
      expect(entry.details).toEqual({ email, role: 'user', is_trial: false, message_id: response.body.message_id })
    })
  })

  it('writes audit entries for API key create and revoke', async () => {
    const created = await call('post', '/api/admin/api-token', as('bAdmin'), { name: 'audit me' })
    await call('delete', '/api/admin/api-token', as('bAdmin'), { id: created.body.id as string }).expect(200)
    const entries = await ctx.db.prisma.auditLog.findMany({
      where: { target_type: 'api_token', target_id: created.body.id as string },
      orderBy: { id: 'asc' },
    })
    expect(entries.map((e) => e.action)).toEqual(['api_key.create', 'api_key.revoke'])
    for (const entry of entries) {
      expect(entry).toMatchObject({ source: 'api', actor_user_id: b.users[0]!.id, company_id: b.company.id })
      expect(JSON.stringify(entry.details)).not.toContain(created.body.token as string)
    }
  })
})
