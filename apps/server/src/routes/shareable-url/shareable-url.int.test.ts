import { AUTH_MESSAGES, MESSAGES, SHARE_MESSAGES, SHARE_TOKEN_NEVER_EXPIRES_EXP } from '@citrus/contracts'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, useTestApp } from '../../../../../test/helpers.ts'
import { signShareToken } from '../../auth/tokens.ts'

/** A link as the share dialog makes it (spec 1 §6). */
const memberLink = {
  url: 'http://localhost:3000/care-connect-results?zip_code=98101',
  url_type: 'private',
  expiration_days: null,
  client_routes: ['/member-recommendations'],
  api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
  incoming_url: '/member-recommendations',
  initial_query_params: { zip_code: '98101', radius_in_m: 50000, omni_code: '207RE0101X' },
  authorized_user_ids: null,
  invite_email: null,
  invite_phone: '(206) 555-0123',
  requires_email_verification: false,
  requires_phone_verification: true,
  role: 'member',
  requires_account_creation: false,
}

describe('shareable links', () => {
  const ctx = useTestApp({ PUBLIC_URL: 'https://citrus.example.com/' })
  let a: Awaited<ReturnType<typeof createTenant>>
  let b: Awaited<ReturnType<typeof createTenant>>
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    a = await createTenant(ctx.db, { roles: ['admin', 'user', 'user', 'member', 'citrus'] })
    b = await createTenant(ctx.db, { roles: ['admin', 'citrus'] })
    const names = ['aAdmin', 'aUser', 'aUser2', 'aMember', 'aCitrus'] as const
    for (const [index, name] of names.entries()) tokens[name] = await loginTokenFor(a.users[index]!, a.company.company_name)
    tokens.bAdmin = await loginTokenFor(b.users[0]!, b.company.company_name)
    tokens.bCitrus = await loginTokenFor(b.users[1]!, b.company.company_name)
  })

  const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` })
  async function create(who: string, body: Record<string, unknown> = memberLink) {
    const response = await request(ctx.app.server).post('/api/shareable-url').set(as(who)).send(body)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return response.body as { id: string; url: string }
  }
  const tokenOf = (url: string) => new URL(url).searchParams.get('token') ?? ''
  const validate = (token: string, headers: Record<string, string> = {}) =>
    request(ctx.app.server).get('/api/shareable-url/validate-shareable-link').query({ token }).set(headers)

  it('creates a link: id and a URL on PUBLIC_URL with the query parameters and a signed token', async () => {
    const link = await create('aUser')
    expect(Object.keys(link).sort()).toEqual(['id', 'url'])
    const url = new URL(link.url)
    expect(url.origin + url.pathname).toBe('https://citrus.example.com/member-recommendations')
    expect(url.searchParams.get('zip_code')).toBe('98101')
    expect(url.searchParams.get('radius_in_m')).toBe('50000')
    const token = tokenOf(link.url)
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'share+jwt' })
    // spec 1 §3 claims plus the link id; never-expiring links carry the far-future exp
    expect(decodeJwt(token)).toEqual({ exp: SHARE_TOKEN_NEVER_EXPIRES_EXP, ut: 'private', r: 'member', ph: '+12065550123', id: link.id })
    const stored = await ctx.db.prisma.shareableLink.findUniqueOrThrow({ where: { id: link.id } })
    expect(stored).toMatchObject({
      company_id: a.company.id,
      created_by_user_id: a.users[1]!.id,
      expires_at: null,
      invite_phone: '+12065550123',
    })
  })

  it('takes the origin from PUBLIC_URL, never from a forged Host or X-Forwarded-Host header', async () => {
    const response = await request(ctx.app.server)
      .post('/api/shareable-url')
      .set(as('aUser'))
      .set('Host', 'evil.example.net')
      .set('X-Forwarded-Host', 'evil.example.net')
      .set('X-Forwarded-Proto', 'http')
      .send({
        ...memberLink,
        url: 'https://evil.example.net/care-connect-results?zip_code=98101',
        incoming_url: 'https://evil.example.net/member-recommendations',
      })
    expect(response.status).toBe(200)
    const url = new URL(response.body.url)
    expect(url.origin).toBe('https://citrus.example.com')
    expect(url.pathname).toBe('/member-recommendations')
    expect(response.body.url.startsWith('https://citrus.example.com/member-recommendations?')).toBe(true)
  })

  it('keeps the path and query of the page being shared', async () => {
    const bare = { ...memberLink, incoming_url: null, initial_query_params: null }
    // the shared page is itself inside the link's routes: path and query kept
    const shared = await create('aUser', {
      ...bare,
      url: 'http://localhost:5173/member-recommendations?zip_code=98101&insurance_names_csv=Aetna%2CCigna&filter_npis=1234567893',
    })
    const url = new URL(shared.url)
    expect(url.origin + url.pathname).toBe('https://citrus.example.com/member-recommendations')
    expect([...url.searchParams.keys()]).toEqual(['zip_code', 'insurance_names_csv', 'filter_npis', 'token'])
    expect(url.searchParams.get('insurance_names_csv')).toBe('Aetna,Cigna')
    expect(url.searchParams.get('filter_npis')).toBe('1234567893')

    // the staff page is outside the link's routes: the link opens incoming_url with the page's search
    const fromResults = await create('aUser', {
      ...bare,
      url: 'http://localhost:5173/care-connect-results?zip_code=98101&radius_in_m=50000',
      incoming_url: '/member-recommendations?omni_code=207RE0101X',
    })
    const results = new URL(fromResults.url)
    expect(results.pathname).toBe('/member-recommendations')
    expect(Object.fromEntries(results.searchParams)).toMatchObject({ zip_code: '98101', radius_in_m: '50000', omni_code: '207RE0101X' })

    // without incoming_url a page outside the routes falls back to the first client route, with its query
    const fallback = new URL((await create('aUser', { ...bare, url: 'http://localhost:5173/care-connect-results?zip_code=98101' })).url)
    expect(fallback.pathname).toBe('/member-recommendations')
    expect(fallback.searchParams.get('zip_code')).toBe('98101')

    // initial_query_params override the page's values; a token parameter of the page is replaced by the link's own
    const overridden = new URL(
      (
        await create('aUser', {
          ...bare,
          url: '/member-recommendations?zip_code=10001&token=stale',
          initial_query_params: { zip_code: '98101' },
        })
      ).url,
    )
    expect(overridden.searchParams.getAll('zip_code')).toEqual(['98101'])
    expect(overridden.searchParams.getAll('token')).toEqual([tokenOf(overridden.href)])
    expect(tokenOf(overridden.href)).not.toBe('stale')
  })

  it('never lets an opaque or foreign URL choose the host of the link', async () => {
    for (const incoming of [
      'x:@evil.example.net/member-recommendations',
      'javascript:alert(1)',
      '//evil.example.net/member-recommendations',
    ]) {
      const link = await create('aUser', { ...memberLink, incoming_url: incoming })
      const url = new URL(link.url)
      expect(url.origin, incoming).toBe('https://citrus.example.com')
      expect(url.username + url.password, incoming).toBe('')
    }
  })

  it('gives a link with expiration_days an exp that many days ahead', async () => {
    const link = await create('aUser', {
      ...memberLink,
      expiration_days: 7,
      invite_phone: null,
      invite_email: 'Pat@Example.com',
      requires_phone_verification: false,
      requires_email_verification: true,
    })
    const claims = decodeJwt(tokenOf(link.url))
    expect((claims.exp as number) - Date.now() / 1000).toBeGreaterThan(7 * 86400 - 60)
    expect((claims.exp as number) - Date.now() / 1000).toBeLessThanOrEqual(7 * 86400)
    expect(claims.em).toBe('pat@example.com')
    expect(claims.ph).toBeUndefined()
  })

  it('validates a link (spec 1 §3 fields)', async () => {
    const link = await create('aUser')
    const response = await validate(tokenOf(link.url))
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      url_type: 'private',
      role: 'member',
      requires_phone_verification: true,
      requires_email_verification: false,
      requires_account_creation: false,
      authorized_user_ids: null,
      is_expired: false,
      client_routes: ['/member-recommendations'],
    })
  })

  it('reports revoked and expired links as expired', async () => {
    const revoked = await create('aUser')
    await request(ctx.app.server).post(`/api/shareable-url/${revoked.id}/revoke`).set(as('aUser')).expect(200)
    expect((await validate(tokenOf(revoked.url))).body.is_expired).toBe(true)

    const lapsed = await create('aUser', { ...memberLink, expiration_days: 1 })
    await ctx.db.prisma.shareableLink.update({ where: { id: lapsed.id }, data: { expires_at: new Date(Date.now() - 1000) } })
    expect((await validate(tokenOf(lapsed.url))).body.is_expired).toBe(true)

    // a token whose own exp has passed
    const record = await ctx.db.prisma.shareableLink.findUniqueOrThrow({ where: { id: lapsed.id } })
    const expiredToken = await signShareToken(testConfig().jwtSecret, { ...record, expires_at: new Date(Date.now() - 60_000) })
    const response = await validate(expiredToken)
    expect(response.status).toBe(200)
    expect(response.body.is_expired).toBe(true)
  })

  it('refuses a token it did not sign, a login token, and a missing token', async () => {
    const link = await create('aUser')
    const forged = await signShareToken('some-other-secret-that-is-long-enough-!!', {
      id: link.id,
      url_type: 'private',
      role: 'member',
      invite_email: null,
      invite_phone: null,
      expires_at: null,
    })
    for (const token of [forged, tokens.aUser!, 'garbage']) {
      const response = await validate(token)
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ message: SHARE_MESSAGES.invalidToken, code: 'UNAUTHORIZED', status: 401 })
    }
    const missing = await request(ctx.app.server).get('/api/shareable-url/validate-shareable-link')
    expect(missing.status).toBe(400)
    expect(missing.body.errors).toEqual([{ path: 'querystring.token', message: 'No token provided' }])
  })

  it('restricts a link with authorized_user_ids to those signed-in users', async () => {
    const link = await create('aUser', {
      ...memberLink,
      authorized_user_ids: [a.users[1]!.id],
      requires_phone_verification: false,
      invite_phone: null,
    })
    const token = tokenOf(link.url)
    expect((await validate(token, as('aUser'))).body.authorized_user_ids).toEqual([a.users[1]!.id])
    const other = await validate(token, as('aUser2'))
    expect(other.status).toBe(403)
    expect(other.body).toEqual({ message: SHARE_MESSAGES.userNotAuthorized, code: 'FORBIDDEN', status: 403 })
    // a holder who is not signed in learns the link's requirements, but gets no data with it
    expect((await validate(token)).status).toBe(200)
    const guest = await request(ctx.app.server).get('/api/company/products').query({ token })
    expect(guest.status).toBe(401)
    expect(guest.body.message).toBe(SHARE_MESSAGES.signInRequired)
  })

  it('lets a link token call only endpoints that admit guests and that the link lists', async () => {
    const link = await create('aUser', {
      ...memberLink,
      requires_phone_verification: false,
      invite_phone: null,
      api_endpoints: ['GET /users/info', 'GET /company/products', 'POST /feedback'],
    })
    const token = tokenOf(link.url)
    for (const [method, path] of [
      ['get', '/api/users/info'],
      ['get', '/api/company/products'],
      ['post', '/api/feedback'],
      ['get', '/api/shareable-url'],
    ] as const) {
      const agent = request(ctx.app.server)
      const response = await agent[method](path)
        .query({ token })
        .send(method === 'post' ? { rating: 3, issues: [], feedback: '' } : undefined)
      expect(response.status, path).toBe(403)
      expect(response.body).toEqual({ message: SHARE_MESSAGES.endpointNotAllowed, code: 'FORBIDDEN', status: 403 })
    }
    // public endpoints do not care about the token
    expect((await request(ctx.app.server).get('/api/data-dictionary').query({ token })).status).toBe(200)
  })

  it('stops a revoked link token at once', async () => {
    const link = await create('aUser', { ...memberLink, requires_phone_verification: false, invite_phone: null })
    await request(ctx.app.server).post(`/api/shareable-url/${link.id}/revoke`).set(as('aUser')).expect(200)
    const response = await request(ctx.app.server)
      .get('/api/company/products')
      .query({ token: tokenOf(link.url) })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ message: SHARE_MESSAGES.invalidToken, code: 'UNAUTHORIZED', status: 401 })
  })

  it("lists the caller's own links, newest first, with a working URL", async () => {
    const first = await create('aUser2')
    const second = await create('aUser2', { ...memberLink, url_type: 'PUBLIC' })
    await request(ctx.app.server).post(`/api/shareable-url/${first.id}/revoke`).set(as('aUser2')).expect(200)
    const response = await request(ctx.app.server).get('/api/shareable-url').set(as('aUser2'))
    expect(response.status).toBe(200)
    expect(response.body.map((link: { id: string }) => link.id)).toEqual([second.id, first.id])
    expect(response.body[0]).toMatchObject({ url_type: 'public', is_expired: false, revoked_at: null, url: second.url })
    expect(response.body[1]).toMatchObject({ is_expired: true })
    expect(response.body[1].revoked_at).toEqual(expect.any(String))
    const others = await request(ctx.app.server).get('/api/shareable-url').set(as('aAdmin'))
    expect(others.body.some((link: { id: string }) => link.id === first.id)).toBe(false)
  })

  describe('revoking', () => {
    const revoke = (id: string, who: string) => request(ctx.app.server).post(`/api/shareable-url/${id}/revoke`).set(as(who))

    it('the creator may revoke; the answer repeats on a second call', async () => {
      const link = await create('aUser')
      const response = await revoke(link.id, 'aUser')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ id: link.id, revoked_at: expect.any(String), message: SHARE_MESSAGES.revoked })
      const again = await revoke(link.id, 'aUser')
      expect(again.body.revoked_at).toBe(response.body.revoked_at)
    })

    it("an admin of the creator's company and citrus staff may revoke", async () => {
      expect((await revoke((await create('aUser')).id, 'aAdmin')).status).toBe(200)
      expect((await revoke((await create('aUser')).id, 'bCitrus')).status).toBe(200)
    })

    it('another user of the same company may not', async () => {
      const response = await revoke((await create('aUser')).id, 'aUser2')
      expect(response.status).toBe(403)
      expect(response.body).toEqual({ message: SHARE_MESSAGES.revokeDenied, code: 'FORBIDDEN', status: 403 })
    })

    it("another company's admin cannot even see the link (404), and it stays valid", async () => {
      const link = await create('aUser')
      const response = await revoke(link.id, 'bAdmin')
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ message: SHARE_MESSAGES.notFound, code: 'NOT_FOUND', status: 404 })
      expect((await validate(tokenOf(link.url))).body.is_expired).toBe(false)
    })

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      expect((await revoke('00000000-0000-4000-8000-000000000000', 'aAdmin')).status).toBe(404)
      expect((await revoke('not-a-uuid', 'aAdmin')).status).toBe(400)
    })
  })

  it('validates the link fields', async () => {
    const response = await request(ctx.app.server)
      .post('/api/shareable-url')
      .set(as('aUser'))
      .send({
        ...memberLink,
        url_type: 'secret',
        api_endpoints: ['rankings please'],
        client_routes: ['member'],
        invite_phone: '123',
        invite_email: 'x',
      })
    expect(response.status).toBe(400)
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'body.url_type' }),
        { path: 'body.api_endpoints.0', message: SHARE_MESSAGES.apiEndpointInvalid },
        { path: 'body.client_routes.0', message: SHARE_MESSAGES.clientRouteInvalid },
        { path: 'body.invite_phone', message: MESSAGES.phoneInvalid },
        { path: 'body.invite_email', message: MESSAGES.emailInvalidDot },
      ]),
    )
  })

  it('members may not create or list links; anonymous callers get 401', async () => {
    const member = await request(ctx.app.server).post('/api/shareable-url').set(as('aMember')).send(memberLink)
    expect(member.status).toBe(403)
    expect(member.body.message).toBe(AUTH_MESSAGES.roleDenied('member'))
    expect((await request(ctx.app.server).get('/api/shareable-url').set(as('aMember'))).status).toBe(403)
    const anonymous = await request(ctx.app.server).post('/api/shareable-url').send(memberLink)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ message: AUTH_MESSAGES.authRequired, code: 'UNAUTHORIZED', status: 401 })
  })
})
