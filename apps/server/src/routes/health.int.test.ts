import { afterAll, describe, expect, it } from 'vitest'
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
