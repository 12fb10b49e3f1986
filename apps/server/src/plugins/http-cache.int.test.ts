import { gunzipSync } from 'node:zlib'
import { procedureCostResponseSchema } from '@citrus/contracts'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../test/helpers.ts'
import { cacheLookups } from '../lib/engine-stats.ts'

/**
 * ETags of data-versioned answers, 304 before the work, and compression by @fastify/compress
 * (plugins/http-cache.ts, docs/decisions/0077).
 */
describe('HTTP caching of data-versioned answers', () => {
  const ctx = useTestApp({}, { dataset: true })
  let search: string
  let tokenA: string
  let tokenA2: string
  let memberA: string
  let tokenB: string
  let companyA: number

  const get = (url: string, token: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } })
  const searchUsed = async (companyId: number) =>
    (await ctx.db.prisma.creditUsage.findMany({ where: { company_id: companyId, product_group: 'SEARCH' } })).reduce(
      (n, u) => n + u.used,
      0,
    )

  beforeAll(async () => {
    const a = await createTenant(ctx.db, {
      roles: ['admin', 'user', 'member'],
      products: [{ product_group: 'ATLAS' }, { product_group: 'SEARCH', limit: null }],
    })
    companyA = a.company.id
    tokenA = await loginTokenFor(a.users[0]!, a.company.company_name)
    tokenA2 = await loginTokenFor(a.users[1]!, a.company.company_name)
    memberA = await loginTokenFor(a.users[2]!, a.company.company_name)
    const b = await createTenant(ctx.db, { roles: ['admin'], products: [{ product_group: 'ATLAS' }] })
    tokenB = await loginTokenFor(b.users[0]!, b.company.company_name)
    const { rows } = await ctx.db.pool.query<{ zip: string; code: string }>(
      // other test files import hospital price files into the same database: MS-DRG and revenue codes are not
      // Price Check procedures, so take a CPT/HCPCS code the synthetic dataset priced
      `SELECT f.zip_code AS zip, fp.procedure_code AS code FROM facilities f JOIN facility_prices fp ON fp.facility_id = f.id
       WHERE fp.code_type IN ('CPT', 'HCPCS') AND fp.procedure_code ~ '^([0-9]{4}[0-9A-Z]|[A-Z][0-9]{4})$'
       ORDER BY f.id, fp.procedure_code LIMIT 1`,
    )
    search = `/api/cost-transparency/procedure?zip_code=${rows[0]!.zip}&procedure_codes_csv=${rows[0]!.code}&radius_in_m=80000`
  })

  it('tags an answer (weak ETag, Cache-Control private) and answers a repeat with 304 without pricing again', async () => {
    const first = await get(search, memberA)
    expect(first.statusCode, first.payload).toBe(200)
    procedureCostResponseSchema.parse(first.json())
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/)
    expect(first.headers['cache-control']).toBe('private, no-cache')
    expect(String(first.headers.vary)).toMatch(/authorization/i)

    const priceLookups = () => cacheLookups(ctx.app.db.pool).find(([name]) => name === 'price_check')?.[1]
    const stats = { ...priceLookups() }
    expect(stats.misses).toBeGreaterThanOrEqual(1)
    const usedBefore = await searchUsed(companyA)
    const repeat = await get(search, memberA, { 'if-none-match': etag })
    expect(repeat.statusCode).toBe(304)
    expect(repeat.payload).toBe('')
    expect(repeat.headers.etag).toBe(etag)
    expect(repeat.headers['cache-control']).toBe('private, no-cache')
    // not recomputed: the answer cache was not even looked up
    expect(priceLookups()).toEqual(stats)
    // a 304 is an answered search: its credit is taken as for a 200
    expect(await searchUsed(companyA)).toBe(usedBefore + 1)

    // the same request spelled otherwise (order of the query) is the same request
    const [path, query] = search.split('?') as [string, string]
    const reordered = `${path}?${query.split('&').reverse().join('&')}`
    expect((await get(reordered, memberA, { 'if-none-match': etag })).statusCode).toBe(304)
    // one tag among several, and *, match too (RFC 9110 §13.1.2)
    expect((await get(search, memberA, { 'if-none-match': `"other", ${etag}` })).statusCode).toBe(304)
    // another request, or _bypass_cache, is answered in full
    const other = await get(search.replace('radius_in_m=80000', 'radius_in_m=40000'), memberA, { 'if-none-match': etag })
    expect(other.statusCode).toBe(200)
    expect(other.headers.etag).not.toBe(etag)
    const bypass = await get(`${search}&_bypass_cache=true`, memberA, { 'if-none-match': etag })
    expect(bypass.statusCode).toBe(200)
    expect(bypass.headers.etag).toBeUndefined()
  })

  it('answers a repeated Care Connect search 304 without scoring it, a credit each time; no credit left: 402, not 304', async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT', limit: 2 }] })
    const token = await loginTokenFor(users[0]!, company.company_name)
    const { rows } = await ctx.db.pool.query<{ code: string; zip: string }>(
      `SELECT primary_taxonomy_code AS code, zip_code AS zip FROM providers GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    const url = `/api/care-select/rankings?zip_code=${rows[0]!.zip}&omni_code=${rows[0]!.code}`
    const first = await get(url, token)
    expect(first.statusCode, first.payload.slice(0, 300)).toBe(200)
    expect(first.headers['x-credits-remaining']).toBe('1')
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^W\//)
    const scoring = () => cacheLookups(ctx.app.db.pool).find(([name]) => name === 'care_select_scoring')?.[1]
    const before = { ...scoring() }
    const repeat = await get(url, token, { 'if-none-match': etag })
    expect(repeat.statusCode).toBe(304)
    expect(repeat.headers['x-credits-remaining']).toBe('0')
    expect(scoring()).toEqual(before)
    const refused = await get(url, token, { 'if-none-match': etag })
    expect(refused.statusCode).toBe(402)
    expect(refused.headers.etag).toBeUndefined()
  })

  it("never lets one company's or role's tag validate another's answer", async () => {
    const url = '/api/typeahead/omni?query=card'
    const a = await get(url, tokenA)
    expect(a.statusCode, a.payload).toBe(200)
    const tagA = a.headers.etag as string
    expect((await get(url, tokenA, { 'if-none-match': tagA })).statusCode).toBe(304)
    // same company, another role
    const role = await get(url, tokenA2, { 'if-none-match': tagA })
    expect(role.statusCode).toBe(200)
    expect(role.headers.etag).not.toBe(tagA)
    expect(role.json()).toEqual(a.json())
    // another company
    const b = await get(url, tokenB, { 'if-none-match': tagA })
    expect(b.statusCode).toBe(200)
    expect(b.headers.etag).not.toBe(tagA)
    expect(b.headers.etag).not.toBe(role.headers.etag)
  })

  it('labels only full answers: an error carries no tag', async () => {
    const bad = await get('/api/cost-transparency/procedure?zip_code=1234&procedure_codes_csv=99213', memberA)
    expect(bad.statusCode).toBe(400)
    expect(bad.headers.etag).toBeUndefined()
  })

  it("includes the company's plan tier in Atlas tags: a new tier gets a full answer", async () => {
    const url = '/api/atlas/'
    const first = await get(url, tokenA)
    expect(first.statusCode, first.payload).toBe(200)
    const etag = first.headers.etag as string
    expect((await get(url, tokenA, { 'if-none-match': etag })).statusCode).toBe(304)
    const tier = first.json<{ plan_tier: string }>().plan_tier
    const next = tier === 'ENTERPRISE' ? 'BASE' : 'ENTERPRISE'
    await ctx.db.pool.query(`UPDATE companies SET plan_tier = $2 WHERE id = $1`, [companyA, next])
    const changed = await get(url, tokenA, { 'if-none-match': etag })
    expect(changed.statusCode).toBe(200)
    expect(changed.json<{ plan_tier: string }>().plan_tier).toBe(next)
    expect(changed.headers.etag).not.toBe(etag)
  })

  it('negotiates gzip through @fastify/compress: the same JSON inflated', async () => {
    const url = '/api/atlas/generic?tile_granularity=STATE&search_within_region=US'
    const plain = await get(url, tokenA, { 'accept-encoding': 'identity' })
    const gzip = await get(url, tokenA, { 'accept-encoding': 'gzip, deflate, br' })
    expect(plain.statusCode, plain.payload.slice(0, 300)).toBe(200)
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(String(gzip.headers.vary)).toMatch(/accept-encoding/i)
    expect(gzip.rawPayload.length).toBeLessThan(plain.rawPayload.length)
    expect(gunzipSync(gzip.rawPayload).toString('utf8')).toBe(plain.payload)
    // both encodings are the same answer: one tag
    expect(gzip.headers.etag).toBe(plain.headers.etag)
  })

  // last: a new data version changes every tag (other suites see a newer version too, as after any import)
  it('answers in full with a new tag once a data load finishes', async () => {
    const first = await get(search, memberA)
    const etag = first.headers.etag as string
    expect((await get(search, memberA, { 'if-none-match': etag })).statusCode).toBe(304)
    await ctx.db.pool.query(
      `INSERT INTO data_loads (kind, scale, status, started_at, finished_at) VALUES ('import', 'http-cache-test', 'done', now(), now())`,
    )
    const after = await get(search, memberA, { 'if-none-match': etag })
    expect(after.statusCode).toBe(200)
    expect(after.headers.etag).not.toBe(etag)
    expect(after.json()).toMatchObject({ cached: false })
  })
})
