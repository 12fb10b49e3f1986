import { createServer, type Server } from 'node:http'
import { FEEDBACK_MESSAGES } from '@citrus/contracts'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, createTestApp, eventually, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { servicesOf } from '../../services/index.ts'
import { feedbackText } from '../../services/feedback/service.ts'

describe('POST /api/feedback', () => {
  let webhook: Server
  const received: { text: string }[] = []
  let failuresLeft = 0
  let tenant: Awaited<ReturnType<typeof createTenant>>
  let auth: Record<string, string>

  beforeAll(async () => {
    webhook = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        if (failuresLeft > 0) {
          failuresLeft--
          res.statusCode = 503
          res.end('down')
          return
        }
        received.push(JSON.parse(body) as { text: string })
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', () => resolve()))
  })
  afterAll(async () => {
    await new Promise((resolve) => webhook.close(resolve))
  })
  const ctx = useTestApp(() => {
    const address = webhook.address()
    const port = typeof address === 'object' && address ? address.port : 0
    return { FEEDBACK_WEBHOOK_URL: `http://127.0.0.1:${port}/hook` }
  })
  beforeAll(async () => {
    tenant = await createTenant(ctx.db, { roles: ['member'] })
    auth = { authorization: `Bearer ${await loginTokenFor(tenant.users[0]!, tenant.company.company_name)}` }
  })

  it('stores the feedback with the user and forwards one text to the chat webhook', async () => {
    const response = await request(ctx.app.server)
      .post('/api/feedback')
      .set(auth)
      .send({ rating: '3', issues: ['slow performance', 'other'], feedback: 'Maps load slowly' })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ id: expect.any(Number), message: FEEDBACK_MESSAGES.success, message_id: expect.any(String) })
    const stored = await ctx.db.prisma.feedbackSubmission.findUniqueOrThrow({ where: { id: response.body.id as number } })
    expect(stored).toMatchObject({
      user_id: tenant.users[0]!.id,
      company_id: tenant.company.id,
      email: tenant.users[0]!.email,
      rating: 3,
      issues: ['slow performance', 'other'],
      feedback: 'Maps load slowly',
    })

    await servicesOf(ctx.app).outbox.flush()
    const text = feedbackText({
      email: tenant.users[0]!.email,
      rating: 3,
      issues: ['slow performance', 'other'],
      feedback: 'Maps load slowly',
    })
    expect(text).toBe(
      `New feedback from ${tenant.users[0]!.email}\nRating: 3/5\nIssues: slow performance, other\nAdditional feedback: Maps load slowly`,
    )
    await eventually(() => expect(received).toContainEqual({ text }))
  })

  it('loses nothing when the webhook is down: the outbox retries', async () => {
    failuresLeft = 1
    const response = await request(ctx.app.server).post('/api/feedback').set(auth).send({ rating: 5, issues: [], feedback: 'retry me' })
    expect(response.status).toBe(200)
    const id = response.body.message_id as string
    await servicesOf(ctx.app).outbox.flush()
    const pending = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id } })
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, last_error: 'webhook answered 503' })
    // make the retry due now instead of in 30 s
    await ctx.db.prisma.messageOutbox.update({ where: { id }, data: { next_attempt_at: new Date() } })
    await servicesOf(ctx.app).outbox.flush()
    expect(await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'sent', attempts: 2 })
    expect(received.some((body) => body.text.includes('Additional feedback: retry me'))).toBe(true)
  })

  it('validates the rating and the fields', async () => {
    for (const rating of [0, 6, 2.5, 'x']) {
      const response = await request(ctx.app.server).post('/api/feedback').set(auth).send({ rating, issues: [], feedback: '' })
      expect(response.status, String(rating)).toBe(400)
      expect(response.body.errors).toEqual([{ path: 'body.rating', message: FEEDBACK_MESSAGES.ratingRange }])
    }
    const issues = await request(ctx.app.server).post('/api/feedback').set(auth).send({ rating: 4, issues: 'other' })
    expect(issues.status).toBe(400)
  })

  it('only stores the feedback when no webhook is configured', async () => {
    const plain = await createTestApp({}, { OUTBOX_POLL_INTERVAL_MS: '0' })
    try {
      await plain.ready()
      const response = await request(plain.server).post('/api/feedback').set(auth).send({ rating: 4 })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ id: expect.any(Number), message: FEEDBACK_MESSAGES.success, message_id: null })
      expect(await ctx.db.prisma.feedbackSubmission.findUniqueOrThrow({ where: { id: response.body.id as number } })).toMatchObject({
        issues: [],
        feedback: '',
        rating: 4,
      })
    } finally {
      await plain.close()
    }
  })
})
