import { createRequire } from 'node:module'
import { createServer, type Server } from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { MEMBER_LINK_MESSAGES, REFERRAL_MESSAGES, type RankingsResponse } from '@citrus/contracts'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, startSmtpCapture, useTestApp } from '../../../../../test/helpers.ts'
import { servicesOf } from '../../services/index.ts'
import { scoredSearchCache } from '../../services/care-select/scored-cache.ts'

/** A local HTTP server that speaks Twilio's Messages API (POST .../Accounts/{sid}/Messages.json). */
async function startTwilioFake() {
  const received: { account: string; auth: string; to: string; from: string; body: string }[] = []
  const state = { down: false }
  let next = 0
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')))
    req.on('end', () => {
      const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(req.url ?? '')
      res.setHeader('content-type', 'application/json')
      if (req.method !== 'POST' || !match) {
        res.statusCode = 404
        res.end(JSON.stringify({ code: 20404, message: 'The requested resource was not found', status: 404 }))
        return
      }
      if (state.down) {
        res.statusCode = 503
        res.end(JSON.stringify({ code: 20503, message: 'Service unavailable', status: 503 }))
        return
      }
      const form = new URLSearchParams(raw)
      const message = {
        account: match[1]!,
        auth: req.headers.authorization ?? '',
        to: form.get('To') ?? '',
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
      }
      received.push(message)
      const sid = `SM${String(++next).padStart(32, '0')}`
      res.statusCode = 201
      res.end(
        JSON.stringify({
          sid,
          account_sid: message.account,
          to: message.to,
          from: message.from,
          body: message.body,
          status: 'queued',
          num_segments: '1',
          direction: 'outbound-api',
          api_version: '2010-04-01',
          date_created: new Date().toUTCString(),
          uri: `/2010-04-01/Accounts/${message.account}/Messages/${sid}.json`,
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as AddressInfo).port
  return {
    received,
    state,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function pdfText(buffer: Buffer): Promise<string> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs')
  const fonts = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep
  const doc = await getDocument({ data: new Uint8Array(buffer), standardFontDataUrl: fonts, isEvalSupported: false, verbosity: 0 }).promise
  const pages: string[] = []
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent()
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '))
  }
  await doc.destroy()
  return pages.join('\n').replace(/\s+/g, ' ')
}

describe('referral letter and member link', () => {
  let twilio: Awaited<ReturnType<typeof startTwilioFake>>
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>
  // the fakes start before the app, which reads their addresses from its environment
  beforeAll(async () => {
    twilio = await startTwilioFake()
    smtp = await startSmtpCapture()
  })
  afterAll(async () => {
    await twilio.close()
    await smtp.close()
  })
  const ctx = useTestApp(
    () => ({
      ...smtp.env,
      TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000001',
      TWILIO_AUTH_TOKEN: 'test-auth-token',
      TWILIO_FROM: '+15005550006',
      TWILIO_API_URL: twilio.url,
      PUBLIC_URL: 'https://citrus.example.com',
    }),
    { dataset: true },
  )
  let tenant: Awaited<ReturnType<typeof createTenant>>
  let token = ''
  let search: Record<string, string> = {}
  let ranked: RankingsResponse

  beforeAll(async () => {
    tenant = await createTenant(ctx.db, { roles: ['user', 'member'], products: [{ product_group: 'CARE_SELECT' }] })
    token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const best = await ctx.db.pool.query<{ zip: string; code: string }>(
      `SELECT p.zip_code AS zip, p.primary_taxonomy_code AS code FROM providers p JOIN mv_provider_panel pp ON pp.npi = p.npi
       WHERE p.facility_id IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    search = { zip_code: best.rows[0]!.zip, omni_code: best.rows[0]!.code, radius_in_m: '300000' }
    const response = await request(ctx.app.server).get('/api/care-select/rankings').query(search).set(auth())
    expect(response.status).toBe(200)
    ranked = response.body as RankingsResponse
    expect(ranked.hcp_rankings.length).toBeGreaterThanOrEqual(2)
  })
  const auth = () => ({ authorization: `Bearer ${token}` })

  it('makes a PDF with the patient, the referring user and company, and the selected providers with their scores', async () => {
    const [first, second] = ranked.hcp_rankings
    const facility = ranked.hco_rankings.find((h) => h.hco_npi !== null)
    const selected = [first!.hcp_entity.npi, second!.hcp_entity.npi, ...(facility ? [facility.hco_npi!] : [])]
    const response = await request(ctx.app.server)
      .post('/api/care-select/referral-letter')
      .set(auth())
      .send({
        patient_name: 'Jane Q. Patient',
        dob: '1970-04-12',
        destination_fax: '',
        condition: 'Type 2 diabetes, poorly controlled',
        selected_npis: selected,
        search,
      })
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => done(null, Buffer.concat(chunks)))
      })
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe('application/pdf')
    expect(response.headers['content-disposition']).toBe('attachment; filename="referral_letter.pdf"')
    const body = response.body as Buffer
    expect(body.subarray(0, 5).toString()).toBe('%PDF-')
    const text = await pdfText(body)
    expect(text).toContain('Jane Q. Patient')
    expect(text).toContain('1970-04-12')
    expect(text).toContain('Type 2 diabetes, poorly controlled')
    expect(text).toContain(tenant.users[0]!.email)
    expect(text).toContain(tenant.company.company_name)
    for (const r of [first!, second!]) {
      expect(text).toContain(r.hcp_entity.full_name)
      expect(text).toContain(`NPI ${r.hcp_entity.npi}`)
      expect(text).toContain(`Overall score ${Math.round(r.final_score * 100)} (grade ${r.final_grade})`)
      // the phone as every screen shows it, (xxx) xxx-xxxx (issue 33 item 10)
      const digits = r.hcp_entity.phone_number!.replace(/\D/g, '').slice(-10)
      expect(text).toContain(`Phone (${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`)
    }
    if (facility) expect(text).toContain(facility.hco_name)
  })

  it("takes the letter's scores from the cached scoring of its search (a credit still taken); _bypass_cache scores afresh", async () => {
    const cache = scoredSearchCache(ctx.app.db.pool)
    const usage = async () =>
      (await ctx.db.prisma.creditUsage.findMany({ where: { company_id: tenant.company.id, product_group: 'CARE_SELECT' } })).reduce(
        (sum, row) => sum + row.used,
        0,
      )
    const [first, second] = ranked.hcp_rankings
    const letter = (searchOf: Record<string, unknown>) =>
      request(ctx.app.server)
        .post('/api/care-select/referral-letter')
        .set(auth())
        .send({
          patient_name: 'Cache Patient',
          dob: '1980-02-03',
          selected_npis: [second!.hcp_entity.npi, first!.hcp_entity.npi],
          search: searchOf,
        })
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => done(null, Buffer.concat(chunks)))
        })
    // the clinician's search, then its letter: the letter re-runs the search from the cache
    expect((await request(ctx.app.server).get('/api/care-select/rankings').query(search).set(auth())).status).toBe(200)
    const [hits, scorings, credits] = [cache.hits, cache.scorings, await usage()]
    const cached = await letter(search)
    expect(cached.status).toBe(200)
    expect([cache.hits - hits, cache.scorings - scorings]).toEqual([1, 0])
    expect(await usage()).toBe(credits + 1)
    const fresh = await letter({ ...search, _bypass_cache: true })
    expect(fresh.status).toBe(200)
    expect([cache.hits - hits, cache.scorings - scorings]).toEqual([1, 1])
    expect(await usage()).toBe(credits + 2)
    // the same scores either way (the PDFs differ only in their creation time)
    const [cachedText, freshText] = [await pdfText(cached.body as Buffer), await pdfText(fresh.body as Buffer)]
    for (const r of [first!, second!]) {
      expect(cachedText).toContain(`Overall score ${Math.round(r.final_score * 100)} (grade ${r.final_grade})`)
    }
    expect(cachedText).toBe(freshText)
  })

  it('makes the letter of a search with codes and a carrier, as the results page sends it (issue 33 item 1)', async () => {
    const [first] = ranked.hcp_rankings
    const { rows } = await ctx.db.pool.query<{ cpt: string; icd: string; carrier: string }>(
      `SELECT (SELECT code FROM procedure_codes ORDER BY code LIMIT 1) AS cpt, (SELECT code FROM icd10_codes ORDER BY code LIMIT 1) AS icd,
              (SELECT name FROM insurers ORDER BY name LIMIT 1) AS carrier`,
    )
    const { cpt, icd, carrier } = rows[0]!
    const letter = (searchOf: Record<string, unknown>) =>
      request(ctx.app.server)
        .post('/api/care-select/referral-letter')
        .set(auth())
        .send({
          patient_name: 'Coded Patient',
          dob: '1975-05-06',
          destination_fax: '',
          condition: '',
          selected_npis: [first!.hcp_entity.npi],
          search: searchOf,
        })
    for (const searchOf of [
      { ...search, cpt_union_csv: cpt, icd10_cm_union_csv: icd, insurance_names_csv: carrier },
      { ...search, cpt_union_csv: '', icd10_cm_union_csv: '', insurance_names_csv: '' },
      // the results page's query: the radius a number, filter_npis when the URL narrowed
      { ...search, radius_in_m: 300000, insurance_names_csv: carrier, filter_npis: first!.hcp_entity.npi },
    ]) {
      const response = await letter(searchOf)
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      expect(response.headers['content-type']).toBe('application/pdf')
    }
    // a carrier that does not exist is still a 400 naming the field
    const bad = await letter({ ...search, insurance_names_csv: 'No Such Plan' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/No Such Plan/)
  })

  it('validates the letter as the dialog does', async () => {
    const post = (body: Record<string, unknown>) => request(ctx.app.server).post('/api/care-select/referral-letter').set(auth()).send(body)
    const noName = await post({ patient_name: ' ', dob: '1970-01-01', destination_fax: '', condition: '' })
    expect(noName.status).toBe(400)
    expect(noName.body.message).toBe(REFERRAL_MESSAGES.patientNameRequired)
    const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10)
    const noDob = await post({ patient_name: 'A', dob: future, destination_fax: '', condition: '' })
    expect(noDob.status).toBe(400)
    expect(noDob.body.message).toBe(REFERRAL_MESSAGES.dobRequired)
    const both = await post({ patient_name: '', dob: '' })
    expect(both.body.message).toBe(REFERRAL_MESSAGES.patientNameRequired)
    expect(both.body.errors.map((e: { message: string }) => e.message)).toEqual(
      expect.arrayContaining([REFERRAL_MESSAGES.patientNameRequired, REFERRAL_MESSAGES.dobRequired]),
    )
    const unknown = await post({ patient_name: 'A', dob: '1970-01-01', selected_npis: ['0000000000'] })
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toMatch(/0000000000/)
    // members do not write referral letters
    const member = await loginTokenFor(tenant.users[1]!, tenant.company.company_name)
    const refused = await request(ctx.app.server)
      .post('/api/care-select/referral-letter')
      .set({ authorization: `Bearer ${member}` })
      .send({ patient_name: 'A', dob: '1970-01-01' })
    expect(refused.status).toBe(403)
  })

  async function shareLink(contact: { phone?: string; email?: string }) {
    const response = await request(ctx.app.server)
      .post('/api/shareable-url')
      .set(auth())
      .send({
        url: `http://localhost/care-connect-results?zip_code=${search.zip_code}`,
        url_type: 'private',
        expiration_days: null,
        client_routes: ['/member-recommendations'],
        api_endpoints: ['GET /care-select/rankings', 'GET /shareable-url/validate-shareable-link'],
        incoming_url: '/member-recommendations',
        initial_query_params: { ...search, filter_npis: ranked.hcp_rankings[0]!.hcp_entity.npi },
        authorized_user_ids: null,
        invite_email: contact.email ?? null,
        invite_phone: contact.phone ?? null,
        requires_email_verification: contact.email !== undefined,
        requires_phone_verification: contact.phone !== undefined,
        role: 'member',
        requires_account_creation: false,
      })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return response.body as { id: string; url: string }
  }
  const send = (body: Record<string, unknown>) => request(ctx.app.server).post('/api/care-select/send-member-link').set(auth()).send(body)

  it('sends the link by SMS through the Twilio SDK, normalising the number; an outage keeps it queued until recovery', async () => {
    const link = await shareLink({ phone: '(206) 555-0142' })
    twilio.state.down = true
    const response = await send({ member_contact: '206-555-0142', contact_type: 'phone', share_id: link.id, shareable_url: link.url })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const id = response.body.message_id as string
    const outbox = servicesOf(ctx.app).outbox
    await outbox.flush()
    let row = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id } })
    expect(row).toMatchObject({ channel: 'sms', recipient: '+12065550142', status: 'pending', attempts: 1 })
    expect(row.last_error).toMatch(/Service unavailable|503/)
    expect(twilio.received).toHaveLength(0)

    twilio.state.down = false
    await ctx.db.prisma.messageOutbox.update({ where: { id }, data: { next_attempt_at: new Date() } })
    await outbox.flush()
    row = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id } })
    expect(row).toMatchObject({ status: 'sent', attempts: 2 })
    expect(twilio.received).toHaveLength(1)
    const sms = twilio.received[0]!
    expect(sms).toMatchObject({ account: 'AC00000000000000000000000000000001', to: '+12065550142', from: '+15005550006' })
    expect(sms.auth).toBe(`Basic ${Buffer.from('AC00000000000000000000000000000001:test-auth-token').toString('base64')}`)
    expect(sms.body).toContain(link.url)
    expect(sms.body).toContain(tenant.company.company_name)
  })

  it('sends the link by e-mail through SMTP', async () => {
    const link = await shareLink({ email: 'Member.Person@Example.com' })
    const response = await send({
      member_contact: 'Member.Person@Example.com',
      contact_type: 'email',
      share_id: link.id,
      shareable_url: link.url,
    })
    expect(response.status).toBe(200)
    await servicesOf(ctx.app).outbox.flush()
    const row = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: response.body.message_id } })
    expect(row).toMatchObject({ channel: 'email', recipient: 'member.person@example.com', status: 'sent' })
    const mail = smtp.messages.find((m) => m.to.includes('member.person@example.com'))!
    expect(mail.decoded).toContain(link.url.replace(/&/g, '&'))
  })

  it('validates the contact and the link', async () => {
    const link = await shareLink({ email: 'someone@example.com' })
    const base = { share_id: link.id, shareable_url: link.url }
    const badEmail = await send({ ...base, member_contact: 'not-an-email', contact_type: 'email' })
    expect(badEmail.status).toBe(400)
    expect(badEmail.body.errors[0].message).toBe('Please enter a valid email address.')
    const badPhone = await send({ ...base, member_contact: '555-0142', contact_type: 'phone' })
    expect(badPhone.body.errors[0].message).toBe('Invalid phone number format. Please enter a valid US phone number.')
    const emptyPhone = await send({ ...base, member_contact: '', contact_type: 'phone' })
    expect(emptyPhone.body.errors[0].message).toBe('Phone number is required')
    const other = await shareLink({ email: 'other@example.com' })
    const mismatch = await send({ share_id: link.id, shareable_url: other.url, member_contact: 'a@b.co', contact_type: 'email' })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.message).toBe(MEMBER_LINK_MESSAGES.urlMismatch)
    const unknown = await send({
      ...base,
      share_id: '00000000-0000-4000-8000-000000000000',
      member_contact: 'a@b.co',
      contact_type: 'email',
    })
    expect(unknown.status).toBe(404)
  })
})
