import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type pg from 'pg'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { AUTH_MESSAGES } from '@citrus/contracts'
import { boundedPoolsOf } from '../db/database.js'
import { queuedBuilds } from '../lib/build-queue.js'
import { engineBudgetStats, engineMemoryBudget } from '../lib/engine-budget.js'
import { cacheLookups, engineBuildStats, engineMemory } from '../lib/engine-stats.js'
import { notFound, unauthorized } from '../lib/errors.js'

/**
 * GET /metrics in the Prometheus text format (docs/operations.md "Metrics", docs/decisions/0077): per-route
 * latency, engine memory and build times, cache hit rates (304s included), outbox depth and the database pools (the primary's, the background's, each replica's).
 * Behind METRICS_TOKEN (`Authorization: Bearer <token>`, 401 otherwise); without METRICS_TOKEN it answers 404 as an
 * unknown route does. One registry per app (tests build several apps in one process); the figures are this process's.
 */

/** Latency buckets in seconds: 1 ms (a 304) to 10 s (a first build answered from SQL). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '')
  const wanted = Buffer.from(token)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry()
  const pool = app.db.pool

  const latency = new Histogram({
    name: 'citrus_http_request_duration_seconds',
    help: 'Time from request to response, by route pattern, method and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    latency.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000)
  })

  new Counter({
    name: 'citrus_cache_lookups_total',
    help: 'Look-ups of answer caches by outcome; cache="http_etag": hit = 304 Not Modified, miss = a tagged answer sent in full',
    labelNames: ['cache', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset()
      const counts = app.httpCacheCounts
      this.inc({ cache: 'http_etag', outcome: 'hit' }, counts.notModified)
      this.inc({ cache: 'http_etag', outcome: 'miss' }, counts.sent)
      for (const [cache, lookups] of cacheLookups(pool)) {
        this.inc({ cache, outcome: 'hit' }, lookups.hits)
        this.inc({ cache, outcome: 'miss' }, lookups.misses)
      }
    },
  })

  new Gauge({
    name: 'citrus_engine_memory_bytes',
    help: 'Bytes held by the in-memory engines of this process (typed arrays; the Care Select index strings estimated)',
    labelNames: ['engine'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const [engine, bytes] of engineMemory(pool)) this.set({ engine }, bytes)
    },
  })
  new Counter({
    name: 'citrus_engine_builds_total',
    help: 'Engine builds finished (outcome="ok") or failed in this process',
    labelNames: ['engine', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const [engine, s] of engineBuildStats()) {
        this.inc({ engine, outcome: 'ok' }, s.builds)
        this.inc({ engine, outcome: 'failed' }, s.failures)
      }
    },
  })
  new Gauge({
    name: 'citrus_engine_last_build_seconds',
    help: 'Duration of the last finished build of each engine',
    labelNames: ['engine'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const [engine, s] of engineBuildStats()) if (s.builds > 0) this.set({ engine }, s.lastSeconds)
    },
  })
  new Counter({
    name: 'citrus_engine_build_seconds_total',
    help: 'Time spent in finished builds of each engine',
    labelNames: ['engine'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const [engine, s] of engineBuildStats()) this.inc({ engine }, s.totalSeconds)
    },
  })

  new Gauge({
    name: 'citrus_engine_memory_budget_bytes',
    help: 'ENGINE_MEMORY_BUDGET_MB in bytes (absent without a budget), and the bytes held under it (state="held")',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.reset()
      const budget = engineMemoryBudget()
      if (Number.isFinite(budget)) this.set({ state: 'budget' }, budget)
      this.set({ state: 'held' }, engineBudgetStats().heldBytes)
    },
  })
  new Gauge({
    name: 'citrus_engine_builds_queued',
    help: 'Whole-index builds waiting for the one running (one at a time per process; requests read from the database meanwhile)',
    registers: [registry],
    collect() {
      this.set(queuedBuilds())
    },
  })
  new Counter({
    name: 'citrus_engine_evictions_total',
    help: 'Indexes dropped to fit ENGINE_MEMORY_BUDGET_MB, least recently used first',
    labelNames: ['engine'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const [engine, n] of engineBudgetStats().evictions) this.inc({ engine }, n)
    },
  })

  new Gauge({
    name: 'citrus_outbox_messages',
    help: 'Messages in the outbox not sent, by status (pending: waiting to be sent or retried)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const { rows } = await pool.query<{ status: string; n: number }>(
        `SELECT s AS status, (SELECT count(*)::int FROM message_outbox WHERE status::text = s) AS n FROM unnest(ARRAY['pending', 'held', 'failed']) AS s`,
      )
      this.reset()
      for (const row of rows) this.set({ status: row.status }, row.n)
    },
  })
  new Gauge({
    name: 'citrus_outbox_oldest_pending_seconds',
    help: 'Age of the oldest pending outbox message (0 when none)',
    registers: [registry],
    async collect() {
      const { rows } = await pool.query<{ age: number | null }>(
        `SELECT extract(epoch FROM now() - min(created_at))::float8 AS age FROM message_outbox WHERE status = 'pending'`,
      )
      this.set(rows[0]?.age ?? 0)
    },
  })

  // every pool of the process: the primary's, the background work's where it has its own (the embedded database),
  // each read replica's (DATABASE_REPLICA_URL, in the order given) and those with a statement timeout (the FHIR searches')
  const pools = (): [string, pg.Pool][] => [
    ['primary', pool],
    ...(app.db.background !== pool ? [['background', app.db.background] as [string, pg.Pool]] : []),
    ...app.db.replicas.map((replica, i): [string, pg.Pool] => [`replica-${i}`, replica]),
    ...boundedPoolsOf(pool),
  ]
  new Gauge({
    name: 'citrus_db_pool_connections',
    help: 'Connections of each database pool (primary, background, replica-N, fhir): total open, idle, and requests waiting for one',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      for (const [name, each] of pools()) {
        this.set({ pool: name, state: 'total' }, each.totalCount)
        this.set({ pool: name, state: 'idle' }, each.idleCount)
        this.set({ pool: name, state: 'waiting' }, each.waitingCount)
      }
    },
  })
  new Gauge({
    name: 'citrus_db_pool_max_connections',
    help: 'The bound of each database pool (connections per process)',
    labelNames: ['pool'] as const,
    registers: [registry],
    collect() {
      for (const [name, each] of pools()) this.set({ pool: name }, each.options.max ?? 0)
    },
  })

  new Gauge({
    name: 'citrus_process_memory_bytes',
    help: 'Memory of this process (resident set, V8 heap used, outside the heap: array buffers)',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const m = process.memoryUsage()
      this.set({ kind: 'rss' }, m.rss)
      this.set({ kind: 'heap_used' }, m.heapUsed)
      this.set({ kind: 'array_buffers' }, m.arrayBuffers)
    },
  })

  const token = app.config.env.METRICS_TOKEN
  // registered either way: without a token the path answers the JSON 404 of an unknown route, not the web client
  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
    if (!token) throw notFound(`Route GET /metrics not found`)
    if (!tokenMatches(request.headers.authorization, token)) throw unauthorized(AUTH_MESSAGES.authRequired)
    const text = await registry.metrics()
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(text)
  })
  return registry
}
