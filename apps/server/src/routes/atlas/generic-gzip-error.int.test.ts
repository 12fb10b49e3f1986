import request from 'supertest'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import type * as generic from './generic.ts'

// the gzip writer fails: the route must not have labelled the response gzip before the body exists
vi.mock('./generic.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof generic>()),
  genericResponseGzip: () => {
    throw new Error('gzip writer failed')
  },
}))

describe('GET /atlas/generic when the gzip writer throws (docs/decisions/0057)', () => {
  const ctx = useTestApp()
  let token: string

  beforeAll(async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'ATLAS' }] })
    token = await loginTokenFor(users[0]!, company.company_name)
  })

  it('sends the error envelope as plain JSON, not labelled Content-Encoding: gzip', async () => {
    const response = await request(ctx.app.server)
      .get('/api/atlas/generic')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept-Encoding', 'gzip')
    expect(response.status).toBe(500)
    expect(response.headers['content-encoding']).toBeUndefined()
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.body).toEqual(expect.objectContaining({ message: expect.any(String) }))
    // the identity writer is untouched
    const plain = await request(ctx.app.server)
      .get('/api/atlas/generic')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept-Encoding', 'identity')
    expect(plain.status, plain.text.slice(0, 300)).toBe(200)
    expect(plain.headers['content-encoding']).toBeUndefined()
  })
})
