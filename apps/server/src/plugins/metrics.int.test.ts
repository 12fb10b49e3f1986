import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTenant, createTestApp, loginTokenFor, useTestApp, type TestApp } from '../../../../test/helpers.ts'

const TOKEN = 'metrics-token-for-the-tests-0123456789'

interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** The samples of a Prometheus text exposition (version 0.0.4); throws on a line that is not one. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (type) {
      types.set(type[1]!, type[2]!)
      continue
    }
    if (line.startsWith('# HELP ')) continue
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!sample) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!
    const value = sample[3] === '+Inf' ? Infinity : Number(sample[3])
    if (Number.isNaN(value)) throw new Error(`not a number: ${line}`)
    samples.push({ name: sample[1]!, labels, value })
  }
  return { samples, types }
}

describe('GET /metrics', () => {
  const ctx = useTestApp({ METRICS_TOKEN: TOKEN }, { dataset: true })
  let token: string
  let unset: TestApp

  beforeAll(async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['member'], products: [{ product_group: 'SEARCH', limit: null }] })
    token = await loginTokenFor(users[0]!, company.company_name)
    unset = await createTestApp()
    await unset.ready()
  })
  afterAll(async () => {
    await unset?.close()
  })

  const scrape = (authorization?: string) =>
    ctx.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })

  it('is 404 without METRICS_TOKEN, 401 without the token or with another', async () => {
    const missing = await unset.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 })
    const none = await scrape()
    expect(none.statusCode).toBe(401)
    expect(none.json()).toMatchObject({ code: 'UNAUTHORIZED', status: 401 })
    expect((await scrape(`Bearer ${TOKEN}x`)).statusCode).toBe(401)
    expect((await scrape(TOKEN)).statusCode).toBe(401)
  })

  it('exposes route latency, cache hit rates with 304s, engines, outbox depth and the pool, parsable', async () => {
    // a tagged answer, then its 304, so that both outcomes are counted
    const url = '/api/typeahead/omni?query=card'
    const first = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
    expect(first.statusCode).toBe(200)
    const repeat = await ctx.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, 'if-none-match': first.headers.etag as string },
    })
    expect(repeat.statusCode).toBe(304)
    // an outbox row of this test (held: never sent by a worker), counted against an independent count
    await ctx.db.pool.query(
      `INSERT INTO message_outbox (id, channel, recipient, body, status) VALUES (gen_random_uuid(), 'email', 'metrics@test.citrus', 'x', 'held')`,
    )

    const response = await scrape(`Bearer ${TOKEN}`)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const { samples, types } = parseExposition(response.payload)
    const find = (name: string, labels: Record<string, string> = {}) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

    expect(types.get('citrus_http_request_duration_seconds')).toBe('histogram')
    const routeCount = find('citrus_http_request_duration_seconds_count', { route: '/api/typeahead/omni', method: 'GET' })
    expect(Object.fromEntries(routeCount.map((s) => [s.labels.status_code, s.value]))).toMatchObject({ '200': 1, '304': 1 })
    const buckets = find('citrus_http_request_duration_seconds_bucket', { route: '/api/typeahead/omni', status_code: '304' })
    expect(buckets.find((s) => s.labels.le === '+Inf')?.value).toBe(1)

    expect(types.get('citrus_cache_lookups_total')).toBe('counter')
    expect(find('citrus_cache_lookups_total', { cache: 'http_etag', outcome: 'hit' })[0]?.value).toBe(ctx.app.httpCacheCounts.notModified)
    expect(ctx.app.httpCacheCounts.notModified).toBeGreaterThanOrEqual(1)
    expect(find('citrus_cache_lookups_total', { cache: 'http_etag', outcome: 'miss' })[0]?.value).toBeGreaterThanOrEqual(1)
    expect(find('citrus_cache_lookups_total', { cache: 'price_check', outcome: 'hit' })).toHaveLength(1)
    expect(find('citrus_cache_lookups_total', { cache: 'care_select_scoring', outcome: 'miss' })).toHaveLength(1)

    for (const engine of ['atlas_patient_index', 'atlas_claim_index', 'care_select_candidates', 'care_select_scoring_cache', 'nova_data']) {
      expect(find('citrus_engine_memory_bytes', { engine }), engine).toHaveLength(1)
    }
    expect(types.get('citrus_engine_builds_total')).toBe('counter')
    expect(types.get('citrus_engine_last_build_seconds')).toBe('gauge')
    expect(find('citrus_engine_builds_queued')).toHaveLength(1)

    const { rows } = await ctx.db.pool.query<{ status: string; n: number }>(
      `SELECT status::text, count(*)::int AS n FROM message_outbox WHERE status IN ('pending', 'held', 'failed') GROUP BY 1`,
    )
    const held = rows.find((r) => r.status === 'held')?.n ?? 0
    expect(held).toBeGreaterThanOrEqual(1)
    // other suites may add messages between the two reads: the scrape saw at least this one and at most the recount
    const scraped = find('citrus_outbox_messages', { status: 'held' })[0]?.value ?? -1
    expect(scraped).toBeGreaterThanOrEqual(1)
    expect(scraped).toBeLessThanOrEqual(held)
    expect(find('citrus_outbox_messages', { status: 'pending' })).toHaveLength(1)
    expect(find('citrus_outbox_oldest_pending_seconds')).toHaveLength(1)

    const max = find('citrus_db_pool_max_connections', { pool: 'primary' })[0]?.value
    expect(max).toBe(ctx.app.db.pool.options.max)
    const total = find('citrus_db_pool_connections', { pool: 'primary', state: 'total' })[0]?.value ?? -1
    expect(total).toBeGreaterThanOrEqual(1)
    expect(total).toBeLessThanOrEqual(max!)
    expect(find('citrus_db_pool_connections', { pool: 'primary', state: 'waiting' })).toHaveLength(1)
    expect(find('citrus_process_memory_bytes', { kind: 'rss' })[0]?.value).toBeGreaterThan(0)
  })

  it("counts the Atlas answer caches' look-ups: a first count misses, the same again hits, a bypass is no look-up", async () => {
    const { genericResult } = await import('../services/atlas/generic.ts')
    const { filtersOf, resolveScope } = await import('../services/atlas/query.ts')
    const lookups = async () => {
      const { samples } = parseExposition((await scrape(`Bearer ${TOKEN}`)).body)
      const of = (cache: string, outcome: string) =>
        samples.find((s) => s.name === 'citrus_cache_lookups_total' && s.labels.cache === cache && s.labels.outcome === outcome)?.value ??
        -1
      return { hits: of('atlas_generic', 'hit'), misses: of('atlas_generic', 'miss'), drill: of('atlas_drilldown', 'miss') }
    }
    const pool = ctx.db.pool
    // a query no other test of this file asks: a fresh key of the cache
    const input = { filters: filtersOf({ codes: 'E11', gender: 'F', min_age: 41 }), scope: await resolveScope(pool, 'US', 'COUNTRY') }
    const before = await lookups()
    expect(before.drill).toBeGreaterThanOrEqual(0)
    await genericResult(pool, { ...input, granularity: 'STATE', bypass: false })
    await genericResult(pool, { ...input, granularity: 'STATE', bypass: false })
    await genericResult(pool, { ...input, granularity: 'STATE', bypass: true })
    const after = await lookups()
    expect(after.misses - before.misses).toBe(1)
    expect(after.hits - before.hits).toBe(1)
  })

  it('reports every pool of the process: the primary, the background where it has its own, each replica, the FHIR searches', async () => {
    // a replica that is never reached: its pool exists (and is counted) before any read is sent to it; the test
    // database by its URL, as a server with DATABASE_URL opens it (a replica needs one)
    const replicated = await createTestApp(
      {},
      { METRICS_TOKEN: TOKEN, DATABASE_URL: inject('databaseUrl'), DATABASE_REPLICA_URL: 'postgres://postgres@127.0.0.1:1/citrus' },
    )
    try {
      await replicated.ready()
      const response = await replicated.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
      expect(response.statusCode).toBe(200)
      const { samples } = parseExposition(response.body)
      const pools = (name: string) => new Set(samples.filter((s) => s.name === name).map((s) => s.labels.pool))
      const expected = [
        'primary',
        ...(replicated.db.background !== replicated.db.pool ? ['background'] : []),
        'replica-0',
        // the FHIR searches' pool with a statement timeout (fhir/index.ts), on PostgreSQL
        ...(replicated.config.databaseMode === 'postgres' ? ['fhir'] : []),
      ]
      expect([...pools('citrus_db_pool_max_connections')].sort()).toEqual([...expected].sort())
      expect([...pools('citrus_db_pool_connections')].sort()).toEqual([...expected].sort())
      const replicaMax = samples.find((s) => s.name === 'citrus_db_pool_max_connections' && s.labels.pool === 'replica-0')
      expect(replicaMax?.value).toBe(replicated.db.replicas[0]!.options.max)
    } finally {
      await replicated.close()
    }
  })

  it('counts the build time of an engine once it was built', async () => {
    const { currentPatientIndex } = await import('../engines/atlas/patient-index.ts')
    const { dataVersion } = await import('../lib/versioned-cache.ts')
    const index = await currentPatientIndex(ctx.app.db.pool, await dataVersion(ctx.app.db.pool), true)
    expect(index).not.toBeNull()
    const { samples } = parseExposition((await scrape(`Bearer ${TOKEN}`)).payload)
    const of = (name: string) => samples.find((s) => s.name === name && s.labels.engine === 'atlas_patient_index')?.value
    expect(of('citrus_engine_builds_total')).toBeGreaterThanOrEqual(1)
    expect(of('citrus_engine_last_build_seconds')).toBeGreaterThan(0)
    expect(of('citrus_engine_memory_bytes')).toBe(index!.bytes)
  })
})
