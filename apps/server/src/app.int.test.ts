import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createTestApp } from '../../../test/helpers.ts'

describe('application foundation', () => {
  let app: FastifyInstance
  let distDir: string

  beforeAll(async () => {
    distDir = mkdtempSync(path.join(tmpdir(), 'citrus-dist-'))
    writeFileSync(path.join(distDir, 'index.html'), '<!doctype html><title>Citrus</title><div id="root"></div>')
    writeFileSync(path.join(distDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    app = await createTestApp({ webDistDir: distDir }, { BODY_LIMIT_BYTES: '2048' })
    // Routes that exist only to exercise the error handling every real route shares.
    app.post(
      '/api/__probe',
      { schema: { body: z.object({ email: z.email(), age: z.number().int().min(0) }), response: { 200: z.object({ ok: z.boolean() }) } } },
      async () => ({ ok: true }),
    )
    app.get('/api/__boom', async () => {
      throw new Error('connection string postgres://secret@db leaked')
    })
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
  })

  it('answers /healthz and /readyz', async () => {
    const health = await request(app.server).get('/healthz')
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: 'ok', version: '2.3.0' })
    const ready = await request(app.server).get('/readyz')
    expect(ready.status).toBe(200)
    expect(ready.body).toMatchObject({ status: 'ready', database: 'up', pending_migrations: [] })
  })

  it('returns a JSON 404 envelope for an unknown API path, never the SPA', async () => {
    const response = await request(app.server).get('/api/does-not-exist').set('accept', 'text/html')
    expect(response.status).toBe(404)
    expect(response.headers['content-type']).toContain('application/json')
    expect(response.body).toEqual({ message: 'Route GET /api/does-not-exist not found', code: 'NOT_FOUND', status: 404 })
  })

  it('serves the client shell for client routes (SPA fallback)', async () => {
    for (const route of ['/', '/sign-in', '/atlas/generic/results', '/company/3/users']) {
      const response = await request(app.server).get(route)
      expect(response.status, route).toBe(200)
      expect(response.headers['content-type']).toContain('text/html')
      expect(response.text).toContain('<div id="root">')
    }
    const asset = await request(app.server).get('/favicon.svg')
    expect(asset.status).toBe(200)
    const missingAsset = await request(app.server).get('/assets/missing-123.js')
    expect(missingAsset.status).toBe(404)
  })

  it('rejects invalid input with 400 and per-field errors', async () => {
    const response = await request(app.server).post('/api/__probe').send({ email: 'nope', age: -1 })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('VALIDATION_ERROR')
    expect(response.body.status).toBe(400)
    const paths = (response.body.errors as { path: string }[]).map((e) => e.path).sort()
    expect(paths).toEqual(['body.age', 'body.email'])
  })

  it('rejects malformed JSON with 400', async () => {
    const response = await request(app.server).post('/api/__probe').set('content-type', 'application/json').send('{"email":')
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ message: 'Request body is not valid JSON', code: 'BAD_REQUEST', status: 400 })
  })

  it('rejects an oversized body with 413', async () => {
    const response = await request(app.server)
      .post('/api/__probe')
      .send({ email: 'a@b.co', age: 1, pad: 'x'.repeat(4096) })
    expect(response.status).toBe(413)
    expect(response.body).toEqual({ message: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE', status: 413 })
  })

  it('hides internals of a 500', async () => {
    const response = await request(app.server).get('/api/__boom')
    expect(response.status).toBe(500)
    expect(response.body).toEqual({ message: 'Internal Server Error', code: 'INTERNAL_ERROR', status: 500 })
    expect(JSON.stringify(response.body)).not.toContain('secret')
  })

  it('sends security headers and a request id', async () => {
    const response = await request(app.server).get('/healthz').set('x-request-id', 'trace-123')
    expect(response.headers['x-request-id']).toBe('trace-123')
    expect(response.headers['content-security-policy']).toContain("default-src 'self'")
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    expect(response.headers['strict-transport-security']).toBeDefined()
  })

  it('serves OpenAPI JSON generated from the schemas and a browsable UI', async () => {
    const spec = await request(app.server).get('/api/openapi.json')
    expect(spec.status).toBe(200)
    expect(spec.body.openapi).toMatch(/^3\./)
    expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(['/api/version', '/healthz', '/readyz']))
    expect(spec.body.paths['/api/__probe'].post.requestBody).toBeDefined()
    const docs = await request(app.server).get('/docs/').redirects(1)
    expect(docs.status).toBe(200)
    expect(docs.text).toContain('swagger')
  })
})
