import { ACCESS_MESSAGES, MESSAGES, SHARE_MESSAGES, USER_MESSAGES, VERIFICATION_MAX_ATTEMPTS } from '@citrus/contracts'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, uniqueEmail, useTestApp } from '../../../../../test/helpers.ts'

/** Verification codes and member sign-up of shareable links (docs/decisions/0023), ending in ranking data. */
describe('member access to a shared link', () => {
  const ctx = useTestApp({ PUBLIC_URL: 'https://citrus.example.com' }, { dataset: true })
  let staff = ''
  let member = ''
  let search: Record<string, string> = {}
  let activationKey = ''

  beforeAll(async () => {
    const tenant = await createTenant(ctx.db, { roles: ['user', 'member'], products: [{ product_group: 'CARE_SELECT' }] })
    staff = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    member = await loginTokenFor(tenant.users[1]!, tenant.company.company_name)
    activationKey = tenant.company.activation_key
    const best = await ctx.db.pool.query<{ zip: string; code: string }>(
      `SELECT p.zip_code AS zip, p.primary_taxonomy_code AS code FROM providers p JOIN mv_provider_panel pp ON pp.npi = p.npi
       GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    search = { zip_code: best.rows[0]!.zip, omni_code: best.rows[0]!.code, radius_in_m: '300000' }
  })

  async function link(contact: { email?: string; phone?: string }, extra: Record<string, unknown> = {}) {
    const response = await request(ctx.app.server)
      .post('/api/shareable-url')
      .set({ authorization: `Bearer ${staff}` })
      .send({
        url_type: 'private',
        client_routes: ['/member-recommendations'],
        api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
        incoming_url: '/member-recommendations',
        initial_query_params: search,
        invite_email: contact.email ?? null,
        invite_phone: contact.phone ?? null,
        requires_email_verification: contact.email !== undefined,
        requires_phone_verification: contact.phone !== undefined,
        role: 'member',
        ...extra,
      })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return new URL(response.body.url).searchParams.get('token') as string
  }
  const rankings = (token: string) =>
    request(ctx.app.server)
      .get('/api/care-select/rankings')
      .query({ ...search, token })
  const sendCode = (token: string, body: Record<string, unknown>) =>
    request(ctx.app.server).post('/api/users/verification-code').query({ token }).send(body)
  const confirm = (token: string, body: Record<string, unknown>) =>
    request(ctx.app.server).post('/api/users/verification-code/confirm').query({ token }).send(body)
  /** the code in the message the outbox holds (no provider is configured in this suite) */
  async function codeOf(messageId: string): Promise<string> {
    const message = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: messageId } })
    return /\b(\d{6})\b/.exec(message.body)![1]!
  }
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

  it('gives no ranking data before the e-mail is verified, and the ranking data after', async () => {
    const token = await link({ email: 'Member.One@Example.com' })
    const before = await rankings(token)
    expect(before.status).toBe(403)
    expect(before.body.message).toBe(SHARE_MESSAGES.verificationRequired)

    const mismatch = await sendCode(token, { channel: 'email', email: 'someone.else@example.com' })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.message).toBe(ACCESS_MESSAGES.emailMismatch)

    const sent = await sendCode(token, { channel: 'email', email: 'member.one@EXAMPLE.com' })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const message = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: sent.body.message_id } })
    expect(message).toMatchObject({ channel: 'email', recipient: 'member.one@example.com' })
    const code = await codeOf(sent.body.message_id)
    expect(new Date(sent.body.expires_at).getTime() - Date.now()).toBeGreaterThan(9 * 60_000)
    expect(new Date(sent.body.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000)

    const bad = await confirm(token, { verification_id: sent.body.verification_id, code: wrong(code) })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe(ACCESS_MESSAGES.verificationFailed)

    const good = await confirm(token, { verification_id: sent.body.verification_id, code })
    expect(good.status, JSON.stringify(good.body)).toBe(200)
    expect(good.body).toMatchObject({ verified_channels: ['email'], complete: true })
    const after = await rankings(good.body.token)
    expect(after.status, JSON.stringify(after.body)).toBe(200)
    expect(after.body.hcp_rankings.length).toBeGreaterThan(0)
    // the unverified token still gets nothing; a verification id of another link does not count
    expect((await rankings(token)).status).toBe(403)
    const other = await link({ email: 'member.two@example.com' })
    const { decodeJwt } = await import('jose')
    const claims = decodeJwt(good.body.token) as { vf: string[] }
    expect(claims.vf).toEqual([sent.body.verification_id])
    expect((await rankings(other)).status).toBe(403)
  })

  it('allows 5 attempts per code, expires codes after 10 minutes, and a resend voids the previous code', async () => {
    const token = await link({ phone: '(206) 555-0177' })
    const first = await sendCode(token, { channel: 'phone', phone_number: '2065550177' })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect((await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: first.body.message_id } })).recipient).toBe('+12065550177')
    const firstCode = await codeOf(first.body.message_id)
    const mismatch = await sendCode(token, { channel: 'phone', phone_number: '2065550100' })
    expect(mismatch.body.message).toBe(ACCESS_MESSAGES.phoneMismatch)

    // resend: the first code stops working
    const second = await sendCode(token, { channel: 'phone', phone_number: '206-555-0177' })
    const secondCode = await codeOf(second.body.message_id)
    expect((await confirm(token, { verification_id: first.body.verification_id, code: firstCode })).status).toBe(400)

    for (let i = 0; i < VERIFICATION_MAX_ATTEMPTS; i++) {
      const response = await confirm(token, { verification_id: second.body.verification_id, code: wrong(secondCode) })
      expect(response.status).toBe(400)
    }
    const locked = await confirm(token, { verification_id: second.body.verification_id, code: secondCode })
    expect(locked.status).toBe(400)
    expect(locked.body.message).toBe(ACCESS_MESSAGES.codeLocked)

    const third = await sendCode(token, { channel: 'phone', phone_number: '2065550177' })
    const thirdCode = await codeOf(third.body.message_id)
    await ctx.db.prisma.shareVerification.update({
      where: { id: third.body.verification_id },
      data: { expires_at: new Date(Date.now() - 1000) },
    })
    const expired = await confirm(token, { verification_id: third.body.verification_id, code: thirdCode })
    expect(expired.body.message).toBe(ACCESS_MESSAGES.codeExpired)

    const fourth = await sendCode(token, { channel: 'phone', phone_number: '2065550177' })
    const ok = await confirm(token, { verification_id: fourth.body.verification_id, code: await codeOf(fourth.body.message_id) })
    expect(ok.status).toBe(200)
    expect((await rankings(ok.body.token)).status).toBe(200)
    // at most 5 codes per 10 minutes
    const fifth = await sendCode(token, { channel: 'phone', phone_number: '2065550177' })
    expect(fifth.status).toBe(200)
    const sixth = await sendCode(token, { channel: 'phone', phone_number: '2065550177' })
    expect(sixth.status).toBe(429)
    expect(sixth.body.message).toBe(ACCESS_MESSAGES.tooManyCodes)
  })

  it('creates a member account after verification; the member then sees the recommendations signed in', async () => {
    const email = uniqueEmail('member')
    const token = await link({ email })
    const early = await request(ctx.app.server).post('/api/users/member-signup').query({ token }).send({ email, password: 'Str0ng#Pass' })
    expect(early.status).toBe(403)
    expect(early.body.message).toBe(ACCESS_MESSAGES.verificationNeeded)

    const sent = await sendCode(token, { channel: 'email', email })
    const verified = await confirm(token, { verification_id: sent.body.verification_id, code: await codeOf(sent.body.message_id) })
    const signup = (body: Record<string, unknown>, t = verified.body.token as string) =>
      request(ctx.app.server).post('/api/users/member-signup').query({ token: t }).send(body)
    const otherEmail = await signup({
      email: 'x@example.com',
      password: 'Str0ng#Pass',
      first_name: null,
      last_name: null,
      phone_number: null,
    })
    expect(otherEmail.body.message).toBe(ACCESS_MESSAGES.emailMismatch)
    const weak = await signup({ email, password: 'abc' })
    expect(weak.status).toBe(400)
    const created = await signup({ email, password: 'Str0ng#Pass', first_name: 'Mia', last_name: 'Member', phone_number: '(206) 555-0199' })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(Object.keys(created.body).sort()).toEqual(['jwt_token', 'user_id'])
    const user = await ctx.db.prisma.user.findUniqueOrThrow({ where: { id: created.body.user_id } })
    expect(user).toMatchObject({ email, role: 'member', phone_number: '+12065550199' })
    const asMember = await request(ctx.app.server)
      .get('/api/care-select/rankings')
      .query(search)
      .set({ authorization: `Bearer ${created.body.jwt_token}` })
    expect(asMember.status).toBe(200)
    const again = await signup({ email, password: 'Str0ng#Pass' })
    expect(again.status).toBe(409)
    expect(again.body.message).toBe(USER_MESSAGES.emailTaken)
  })

  /** A link token with its e-mail verified, for the member sign-up. */
  async function verifiedEmailToken(email: string): Promise<string> {
    const token = await link({ email })
    const sent = await sendCode(token, { channel: 'email', email })
    const verified = await confirm(token, { verification_id: sent.body.verification_id, code: await codeOf(sent.body.message_id) })
    expect(verified.status, JSON.stringify(verified.body)).toBe(200)
    return verified.body.token as string
  }
  const memberSignup = (token: string, body: Record<string, unknown>) =>
    request(ctx.app.server).post('/api/users/member-signup').query({ token }).send(body)

  it("applies the access modal's new-password rule (spec 3 §5), not the shell's sign-up rule", async () => {
    const email = uniqueEmail('rule')
    const token = await verifiedEmailToken(email)
    const weak = await memberSignup(token, { email, password: 'abcdef' })
    expect(weak.status).toBe(400)
    expect(weak.body.message).toBe('Password must be at least 6 characters with a number, uppercase, or special character')
    expect(weak.body.errors).toEqual([
      { path: 'body.password', message: 'Password must be at least 6 characters with a number, uppercase, or special character' },
    ])
    const short = await memberSignup(token, { email, password: 'Abc1' })
    expect(short.status).toBe(400)
    expect(short.body.message).toBe('Password must be at least 6 characters with a number, uppercase, or special character')
    // 7 characters, an uppercase letter and a digit: the modal accepts it, so does the server
    const created = await memberSignup(token, { email, password: 'Abcdef1' })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const login = await request(ctx.app.server).post('/api/users/login').send({ email, password: 'Abcdef1' })
    expect(login.status, JSON.stringify(login.body)).toBe(200)
  })

  it("keeps the shell's sign-up rule (8+ characters, all criteria) for /users/user-signup", async () => {
    const response = await request(ctx.app.server)
      .post('/api/users/user-signup')
      .send({ email: uniqueEmail('shell'), password: 'Abcdef1', activation_key: activationKey })
    expect(response.status).toBe(400)
    expect(response.body.message).toBe(MESSAGES.passwordWeak)
  })

  it('requires the invited phone on the sign-up of a phone invite (spec 3 §6): a missing phone is refused like a wrong one', async () => {
    const token = await link({ phone: '(206) 555-0142' }, { url_type: 'invite', requires_phone_verification: false })
    const email = uniqueEmail('invitee')
    for (const phone_number of [undefined, null, '', '(206) 555-0100']) {
      const refused = await memberSignup(token, { email, password: 'Str0ng#Pass', ...(phone_number === undefined ? {} : { phone_number }) })
      expect(refused.status, String(phone_number)).toBe(400)
      expect(refused.body.message).toBe(ACCESS_MESSAGES.phoneMismatch)
      expect(refused.body.errors).toEqual([{ path: 'body.phone_number', message: ACCESS_MESSAGES.phoneMismatch }])
    }
    expect(await ctx.db.prisma.user.findUnique({ where: { email } })).toBeNull()
    const created = await memberSignup(token, { email, password: 'Str0ng#Pass', phone_number: '206-555-0142' })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const user = await ctx.db.prisma.user.findUniqueOrThrow({ where: { id: created.body.user_id } })
    expect(user).toMatchObject({ email, role: 'member', phone_number: '+12065550142' })
  })

  it('takes the verified phone of a phone link as the invited one: the sign-up need not give it again', async () => {
    const token = await link({ phone: '(206) 555-0143' })
    const sent = await sendCode(token, { channel: 'phone', phone_number: '(206) 555-0143' })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const verified = await confirm(token, { verification_id: sent.body.verification_id, code: await codeOf(sent.body.message_id) })
    expect(verified.status, JSON.stringify(verified.body)).toBe(200)
    const email = uniqueEmail('phone-member')
    const created = await memberSignup(verified.body.token as string, { email, password: 'Str0ng#Pass', phone_number: null })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const user = await ctx.db.prisma.user.findUniqueOrThrow({ where: { id: created.body.user_id } })
    expect(user).toMatchObject({ email, role: 'member', phone_number: '+12065550143' })
  })

  describe('issue 32: only a member-access link leads to a sign-up; verification proves the invited contact; a code is used once', () => {
    const account = { password: 'Str0ng#Pass', first_name: null, last_name: null, phone_number: null }
    /** A sign-up through the link is refused as not allowed, and no account is made. */
    async function expectSignupNotAllowed(token: string, label: string) {
      const email = uniqueEmail(label)
      const refused = await memberSignup(token, { email, ...account })
      expect(refused.status, label).toBe(403)
      expect(refused.body.message).toBe(ACCESS_MESSAGES.signupNotAllowed)
      expect(await ctx.db.prisma.user.findUnique({ where: { email } })).toBeNull()
    }

    it("refuses a sign-up through a provider cost page's public share link (any member can make one)", async () => {
      const provider = await ctx.db.pool.query<{ npi: string }>('SELECT npi FROM providers ORDER BY id LIMIT 1')
      const shared = await request(ctx.app.server)
        .post(`/api/cost-transparency/provider/${provider.rows[0]!.npi}/share`)
        .set({ authorization: `Bearer ${member}` })
      expect(shared.status, JSON.stringify(shared.body)).toBe(200)
      const token = new URL(shared.body.url as string).searchParams.get('token')!
      await expectSignupNotAllowed(token, 'squatter')
    })

    it('refuses a sign-up through links not made for member access: another page, or no invite and no verification', async () => {
      const otherPage = await link(
        { email: 'someone@example.com' },
        { client_routes: ['/price-check'], incoming_url: '/price-check', requires_email_verification: false },
      )
      const bare = await link({}, { url_type: 'private' })
      const publicOne = await link({ email: 'pub@example.com' }, { url_type: 'public', requires_email_verification: false })
      for (const token of [otherPage, bare, publicOne]) await expectSignupNotAllowed(token, 'not-member-link')
    })

    it('takes only the invited e-mail on an e-mail invite', async () => {
      const invited = uniqueEmail('invitee')
      const token = await link({ email: invited }, { url_type: 'invite', requires_email_verification: false })
      const other = uniqueEmail('holder')
      const refused = await memberSignup(token, { email: other, ...account })
      expect(refused.status).toBe(400)
      expect(refused.body.message).toBe(ACCESS_MESSAGES.emailMismatch)
      expect(await ctx.db.prisma.user.findUnique({ where: { email: other } })).toBeNull()
      expect((await memberSignup(token, { email: invited, ...account })).status).toBe(200)
    })

    it('refuses a link that requires a verification but names no invited contact, naming the field', async () => {
      const create = (body: Record<string, unknown>) =>
        request(ctx.app.server)
          .post('/api/shareable-url')
          .set({ authorization: `Bearer ${staff}` })
          .send({ url_type: 'private', client_routes: ['/member-recommendations'], role: 'member', ...body })
      const before = await ctx.db.prisma.shareableLink.count()
      const email = await create({ requires_email_verification: true, invite_email: null, invite_phone: '2065550111' })
      expect(email.status).toBe(400)
      expect(email.body.message).toBe(SHARE_MESSAGES.emailVerificationNeedsInvite)
      expect(email.body.errors).toEqual([{ path: 'body.invite_email', message: SHARE_MESSAGES.emailVerificationNeedsInvite }])
      const phone = await create({ requires_phone_verification: true, invite_email: 'a@example.com' })
      expect(phone.status).toBe(400)
      expect(phone.body.message).toBe(SHARE_MESSAGES.phoneVerificationNeedsInvite)
      expect(phone.body.errors).toEqual([{ path: 'body.invite_phone', message: SHARE_MESSAGES.phoneVerificationNeedsInvite }])
      expect(await ctx.db.prisma.shareableLink.count()).toBe(before)
    })

    it('gives nothing to the holder of an older link that requires a verification and names no contact', async () => {
      // made before creation refused it: the row as such a request left it
      const token = await link({ email: 'placeholder@example.com' })
      const { decodeJwt } = await import('jose')
      const id = (decodeJwt(token) as { id: string }).id
      await ctx.db.prisma.shareableLink.update({ where: { id }, data: { invite_email: null } })
      const messages = await ctx.db.prisma.messageOutbox.count()
      const own = await sendCode(token, { channel: 'email', email: 'holder@example.com' })
      expect(own.status).toBe(400)
      expect(own.body.message).toBe(ACCESS_MESSAGES.emailChannelNotUsed)
      expect(await ctx.db.prisma.messageOutbox.count()).toBe(messages)
      expect((await rankings(token)).status).toBe(403)
      await expectSignupNotAllowed(token, 'holder')
    })

    it('sends no SMS from an e-mail link and no e-mail from a phone link, to any contact', async () => {
      const emailLink = await link({ email: 'only.mail@example.com' })
      const phoneLink = await link({ phone: '(206) 555-0188' })
      const messages = await ctx.db.prisma.messageOutbox.count()
      for (const phone_number of ['2065550188', '2065550100']) {
        const sms = await sendCode(emailLink, { channel: 'phone', phone_number })
        expect(sms.status).toBe(400)
        expect(sms.body.message).toBe(ACCESS_MESSAGES.phoneChannelNotUsed)
        expect(sms.body.errors).toEqual([{ path: 'body.channel', message: ACCESS_MESSAGES.phoneChannelNotUsed }])
      }
      for (const email of ['only.mail@example.com', 'other@example.com']) {
        const mail = await sendCode(phoneLink, { channel: 'email', email })
        expect(mail.status).toBe(400)
        expect(mail.body.message).toBe(ACCESS_MESSAGES.emailChannelNotUsed)
      }
      expect(await ctx.db.prisma.messageOutbox.count()).toBe(messages)
      // the link's own channel still works
      expect((await sendCode(emailLink, { channel: 'email', email: 'only.mail@example.com' })).status).toBe(200)
    })

    it('uses a code once: confirming it again fails and mints no token, whatever code is given', async () => {
      const token = await link({ email: 'once@example.com' })
      const sent = await sendCode(token, { channel: 'email', email: 'once@example.com' })
      const code = await codeOf(sent.body.message_id)
      const first = await confirm(token, { verification_id: sent.body.verification_id, code })
      expect(first.status).toBe(200)
      for (const [t, c] of [
        [token, code],
        [token, wrong(code)],
        [first.body.token as string, code],
      ] as const) {
        const again = await confirm(t, { verification_id: sent.body.verification_id, code: c })
        expect(again.status).toBe(400)
        expect(again.body.message).toBe(ACCESS_MESSAGES.codeUsed)
        expect(again.body).not.toHaveProperty('token')
      }
    })

    it('lets one of several concurrent confirmations of the right code through (state in the database)', async () => {
      const token = await link({ email: 'race@example.com' })
      const sent = await sendCode(token, { channel: 'email', email: 'race@example.com' })
      const code = await codeOf(sent.body.message_id)
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => confirm(token, { verification_id: sent.body.verification_id, code })),
      )
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400])
      for (const refused of answers.filter((a) => a.status === 400)) expect(refused.body.message).toBe(ACCESS_MESSAGES.codeUsed)
    })
  })

  it('needs a token', async () => {
    const missing = await request(ctx.app.server).post('/api/users/member-signup').send({ email: 'a@b.co', password: 'x' })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toBe(ACCESS_MESSAGES.missingToken)
    const invalid = await sendCode('not-a-token', { channel: 'email', email: 'a@b.co' })
    expect(invalid.status).toBe(401)
    expect(invalid.body.message).toBe(ACCESS_MESSAGES.invalidToken)
  })
})
