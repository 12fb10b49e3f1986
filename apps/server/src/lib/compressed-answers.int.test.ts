import { gunzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../test/helpers.ts'
import { COMPRESSED_MIN_BYTES, acceptsGzip, compressedCacheStats } from './compressed-answers.ts'
import { cacheLookups } from './engine-stats.ts'

/**
 * The gzip bytes of large data-versioned answers kept per process (lib/compressed-answers.ts, docs/decisions/0077):
 * another company's same Atlas question is answered from the kept bytes, which gunzip to the identity answer.
 */
describe('compressed answers kept per data version', () => {
  const ctx = useTestApp({}, { dataset: true })
  let tokenA: string
  let tokenB: string
  // the national COUNTY map: every county of the catalog, far above the threshold
  const url = '/api/atlas/generic?tile_granularity=COUNTY&search_within_region=US&icd10_cm_union_csv=I10'

  const get = (token: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } })
  const stats = () => compressedCacheStats(ctx.app.db.pool)

  beforeAll(async () => {
    const a = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'ATLAS' }] })
    const b = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'ATLAS' }] })
    tokenA = await loginTokenFor(a.users[0]!, a.company.company_name)
    tokenB = await loginTokenFor(b.users[0]!, b.company.company_name)
  })

  it('negotiates gzip as @fastify/compress would', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true)
    expect(acceptsGzip('deflate, gzip;q=0.5')).toBe(false)
    expect(acceptsGzip('gzip;q=0')).toBe(false)
    expect(acceptsGzip('identity')).toBe(false)
    expect(acceptsGzip('*')).toBe(true)
    expect(acceptsGzip(undefined)).toBe(false)
  })

  it("answers the second company's same question from the kept gzip bytes, equal to the identity answer", async () => {
    const plain = await get(tokenA)
    expect(plain.statusCode, plain.payload).toBe(200)
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSED_MIN_BYTES)
    expect(stats().entries).toBe(0)

    const first = await get(tokenA, { 'accept-encoding': 'gzip' })
    expect(first.statusCode).toBe(200)
    expect(first.headers['content-encoding']).toBe('gzip')
    const afterFirst = stats()
    expect(afterFirst.entries).toBe(1)
    expect(afterFirst.bytes).toBe(first.rawPayload.length)

    const second = await get(tokenB, { 'accept-encoding': 'gzip, deflate' })
    expect(second.statusCode).toBe(200)
    expect(second.headers['content-encoding']).toBe('gzip')
    expect(String(second.headers.vary)).toMatch(/accept-encoding/i)
    expect(String(second.headers.vary)).toMatch(/authorization/i)
    // the other company's tag is its own (0077); the bytes are the kept ones
    expect(second.headers.etag).not.toBe(first.headers.etag)
    expect(stats().hits).toBe(afterFirst.hits + 1)
    expect(cacheLookups(ctx.app.db.pool).find(([name]) => name === 'compressed_answers')?.[1].hits).toBe(stats().hits)
    expect(Buffer.compare(second.rawPayload, first.rawPayload)).toBe(0)
    expect(Buffer.compare(gunzipSync(second.rawPayload), plain.rawPayload)).toBe(0)

    // identity still goes out uncompressed, the same bytes
    const again = await get(tokenB)
    expect(again.headers['content-encoding']).toBeUndefined()
    expect(Buffer.compare(again.rawPayload, plain.rawPayload)).toBe(0)
  })

  it('does not keep a _bypass_cache answer', async () => {
    const before = stats()
    const fresh = await ctx.app.inject({
      method: 'GET',
      url: `${url}&_bypass_cache=true`,
      headers: { authorization: `Bearer ${tokenB}`, 'accept-encoding': 'gzip' },
    })
    expect(fresh.statusCode).toBe(200)
    expect(stats()).toMatchObject({ hits: before.hits, misses: before.misses, entries: before.entries })
  })

  // last: other suites see a newer data version too, as after any import
  it('misses once a new data version is loaded, and keeps the new bytes', async () => {
    const before = stats()
    await ctx.db.pool.query(
      `INSERT INTO data_loads (kind, scale, status, started_at, finished_at) VALUES ('import', 'compressed-cache-test', 'done', now(), now())`,
    )
    const after = await get(tokenB, { 'accept-encoding': 'gzip' })
    expect(after.statusCode).toBe(200)
    expect(after.headers['content-encoding']).toBe('gzip')
    const now = stats()
    expect(now.misses).toBe(before.misses + 1)
    expect(now.hits).toBe(before.hits)
    expect(now.entries).toBe(1)
    const plain = await get(tokenA)
    expect(Buffer.compare(gunzipSync(after.rawPayload), plain.rawPayload)).toBe(0)
  })
})
