import pg from 'pg'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createTestApp, useTestApp } from '../../../../test/helpers.ts'
import { freePort } from '../../../../test/server-process.ts'

describe('GET /healthz checks the database', () => {
  const ctx = useTestApp()
  const apps: { close(): Promise<unknown> }[] = []
  afterAll(async () => {
    for (const app of apps) await app.close()
  })

  it('answers 200 when the database answers', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/healthz' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok', version: expect.any(String) })
  })

  it('answers 503 in the error envelope when the database does not', async () => {
    const port = await freePort() // nothing listens there
    const app = await createTestApp({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/gone` }, { OUTBOX_POLL_INTERVAL_MS: '0' })
    apps.push(app)
    await app.ready()
    const response = await app.inject({ method: 'GET', url: '/healthz' })
    expect(response.statusCode).toBe(503)
    expect(response.json()).toEqual({ message: 'The database is not answering', code: 'SERVICE_UNAVAILABLE', status: 503 })
  })
})

describe('GET /readyz answers in bounded time', () => {
  const ctx = useTestApp()

  it('answers 503 within about 2 s while another client holds the database (a lock; the embedded single session)', async () => {
    const holder = new pg.Client({ connectionString: inject('databaseUrl') })
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query('LOCK TABLE _prisma_migrations IN ACCESS EXCLUSIVE MODE')
      const started = Date.now()
      const response = await ctx.app.inject({ method: 'GET', url: '/readyz' })
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(response.statusCode).toBe(503)
      expect(response.json()).toMatchObject({ status: 'not_ready', database: 'down' })
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined)
      await holder.end()
    }
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)
  })
})
