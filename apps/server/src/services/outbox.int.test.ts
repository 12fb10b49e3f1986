import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { describe, expect, it } from 'vitest'
import { createTenant, createTestApp, eventually, startSmtpCapture, testDatabase, useTestDatabase } from '../../../../test/helpers.ts'
import type { MessageOutbox } from '../generated/prisma/client.ts'
import { defaultBackoffMs, Outbox } from './outbox.ts'
import request from 'supertest'

const silentLog = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  trace() {},
  fatal() {},
  child() {
    return silentLog
  },
  level: 'silent',
} as unknown as FastifyBaseLogger

describe('Outbox', () => {
  const ctx = useTestDatabase()

  // The sms channel: no app in the test run has an SMS provider, so no other worker claims these rows.
  function outboxWith(deliver: (message: MessageOutbox) => Promise<void>, clock: { now: number }, maxAttempts = 3) {
    return new Outbox({
      prisma: ctx.db.prisma,
      log: silentLog,
      deliverers: { sms: deliver },
      logHeldBodies: false,
      maxAttempts,
      scope: `outbox-test-${randomUUID()}`,
      now: () => new Date(clock.now),
    })
  }
  const sms = (recipient = `+1206555${Math.floor(1000 + Math.random() * 8999)}`) => ({
    channel: 'sms' as const,
    recipient,
    body: `code ${randomUUID()}`,
  })

  it('retries with exponential backoff, then sends', async () => {
    const clock = { now: Date.now() }
    let calls = 0
    const outbox = outboxWith(async () => {
      calls++
      if (calls === 1) throw new Error('provider down')
    }, clock)
    const message = await outbox.enqueue(sms())
    expect(message.status).toBe('pending')

    expect(await outbox.flush()).toMatchObject({ retrying: 1 })
    let row = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: message.id } })
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: 'provider down' })
    expect(row.next_attempt_at.getTime()).toBe(clock.now + defaultBackoffMs(1))

    // not due yet: nothing happens
    clock.now += defaultBackoffMs(1) - 1000
    expect(await outbox.flush()).toMatchObject({ sent: 0, retrying: 0 })
    clock.now += 1000
    expect(await outbox.flush()).toMatchObject({ sent: 1 })
    row = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: message.id } })
    expect(row).toMatchObject({ status: 'sent', attempts: 2, last_error: null })
    expect(row.sent_at?.getTime()).toBe(clock.now)
  })

  it('gives up after the last attempt with status failed, keeping the message', async () => {
    const clock = { now: Date.now() }
    const outbox = outboxWith(
      async () => {
        throw new Error('rejected')
      },
      clock,
      3,
    )
    const message = await outbox.enqueue(sms())
    for (let attempt = 1; attempt <= 3; attempt++) {
      await outbox.flush()
      clock.now += defaultBackoffMs(attempt)
    }
    const row = await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: message.id } })
    expect(row).toMatchObject({ status: 'failed', attempts: 3, last_error: 'rejected', body: message.body })
    expect(defaultBackoffMs(1)).toBe(30_000)
    expect(defaultBackoffMs(2)).toBe(60_000)
    expect(defaultBackoffMs(20)).toBe(3_600_000)
  })

  it('holds messages of a channel without a provider, readable and never sent', async () => {
    const outbox = outboxWith(async () => undefined, { now: Date.now() })
    const message = await outbox.enqueue({ channel: 'email', recipient: 'held@test.citrus', subject: 'Hello', body: 'kept' })
    expect(message.status).toBe('held')
    await outbox.flush()
    expect(await ctx.db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: message.id } })).toMatchObject({
      status: 'held',
      attempts: 0,
      body: 'kept',
    })
  })

  it('never delivers a message twice when flushes overlap', async () => {
    const clock = { now: Date.now() }
    const seen: string[] = []
    const outbox = outboxWith(async (message) => {
      seen.push(message.id)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }, clock)
    const messages = await Promise.all([1, 2, 3].map(() => outbox.enqueue(sms())))
    await Promise.all([outbox.flush(), outbox.flush(), outbox.flush()])
    const ids = messages.map((message) => message.id)
    expect(seen.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort())
  })

  it('a message enqueued in a rolled-back transaction does not exist', async () => {
    const outbox = outboxWith(async () => undefined, { now: Date.now() })
    const recipient = `+1206555${Math.floor(1000 + Math.random() * 8999)}`
    await expect(
      ctx.db.prisma.$transaction(async (tx) => {
        await outbox.enqueue(sms(recipient), tx)
        throw new Error('rollback')
      }),
    ).rejects.toThrow('rollback')
    expect(await ctx.db.prisma.messageOutbox.count({ where: { recipient } })).toBe(0)
  })
})

describe('outbox worker in the app', () => {
  it('starts with the app (onReady), delivers without an explicit flush, and stops on close', async () => {
    const db = testDatabase()
    const smtp = await startSmtpCapture()
    const app = await createTestApp({}, { ...smtp.env, OUTBOX_POLL_INTERVAL_MS: '100' })
    try {
      await app.ready()
      const { users } = await createTenant(db, { roles: ['user'] })
      const response = await request(app.server).post('/api/users/password-reset-email').send({ email: users[0]!.email })
      expect(response.status).toBe(200)
      await eventually(() => {
        if (!smtp.messages.some((mail) => mail.to.includes(users[0]!.email))) throw new Error('not delivered yet')
      })
      await eventually(async () => {
        const row = await db.prisma.messageOutbox.findUniqueOrThrow({ where: { id: response.body.message_id as string } })
        expect(row.status).toBe('sent')
      })
    } finally {
      await app.close()
      await smtp.close()
      await db.close()
    }
  })
})
