/**
 * Price Check benchmark (issue 12): p50/p95 over HTTP of GET /api/cost-transparency/procedure uncached
 * (_bypass_cache=true) and cached, and of GET /api/cost-transparency/provider/{npi}, at a concurrency.
 * Database: DATABASE_URL (the loaded scale), else a scratch embedded database with the test dataset.
 */
import { loadavg } from 'node:os'
import pg from 'pg'
import { loadEnv } from '../apps/server/src/config.ts'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { startBenchServer, createBenchCompany, createBenchUser, benchLoginToken } from './bench-server.ts'
import { loadGenerator, runHttpLoad, quantileOf, ms } from './http-load.ts'

/**
 * Statements sent by this process (the server's pools and Prisma all go through pg.Client#query): per request,
 * with the coalesced reads (principal, data version) shared by the requests of a batch.
 */
let statements = 0
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown
;(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  statements++
  return clientQuery.apply(this, args)
}

export async function benchCostTransparency(requests: number, concurrency: number) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const embedded = env.DATABASE_URL ? null : await startEmbeddedPostgres({})
  const databaseUrl = env.DATABASE_URL ?? embedded!.url
  const mode = embedded ? 'embedded PGlite (scratch, in memory, test dataset)' : 'PostgreSQL (DATABASE_URL)'
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 4 })
  if (embedded) await ensureTestDataset(db.pool, databaseUrl)
  const company = await createBenchCompany(db, 'Bench', [])
  const user = await createBenchUser(db, company.id, 'member')
  // a second bench company that holds an unlimited SEARCH policy: its calls are metered (one credit row write each)
  const metered = await createBenchCompany(db, 'Bench metered', ['SEARCH'])
  const meteredUser = await createBenchUser(db, metered.id, 'member')
  // searches people make: a facility's ZIP, one of its priced codes, and (every other one) one of its payers; the
  // same sample every run (REPEATABLE), so that runs of two versions price the same searches
  const { rows: searches } = await db.pool.query<{ zip: string; code: string; payer: string }>(
    `SELECT DISTINCT ON (f.id) f.zip_code AS zip, fp.procedure_code AS code, fp.payer_name AS payer
     FROM facilities f TABLESAMPLE SYSTEM (5) REPEATABLE (7) JOIN facility_prices fp ON fp.facility_id = f.id AND fp.payer_name <> ''
     ORDER BY f.id, fp.procedure_code LIMIT 200`,
  )
  // the cost pages: the same sampled clinicians every run (REPEATABLE), like the searches; the first run after a load
  // reads their claims from disk, later runs find them in memory
  const { rows: npis } = await db.pool.query<{ npi: string }>(
    `SELECT DISTINCT rendering_npi AS npi FROM claims TABLESAMPLE SYSTEM (1) REPEATABLE (7) LIMIT 200`,
  )
  const counts = await db.pool.query<{ prices: string; facilities: string }>(
    `SELECT (SELECT count(*) FROM facility_prices)::text AS prices, (SELECT count(*) FROM facilities)::text AS facilities`,
  )
  await db.close()
  if (searches.length === 0) throw new Error('no priced facilities: load a dataset first (npm run cli -- data seed)')

  const { app, base } = await startBenchServer(env, databaseUrl, embedded ? 'embedded' : 'postgres')
  const token = benchLoginToken(app, user, company)
  const meteredToken = benchLoginToken(app, meteredUser, metered)
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
  }
  const procedure = (i: number, bypass: boolean) => {
    const s = searches[i % searches.length]!
    const payer = i % 2 === 0 ? `&payment_perspective=${encodeURIComponent(s.payer)}` : ''
    return `/api/cost-transparency/procedure?zip_code=${s.zip}&procedure_codes_csv=${s.code}${payer}${bypass ? '&_bypass_cache=true' : ''}`
  }
  async function run(name: string, path: (i: number) => string, bearer = token) {
    // the requests are sent by wrk or a worker thread (bench/http-load.ts): the server's event loop is its own
    const list = Array.from({ length: requests }, (_, i) => ({ path: path(i), headers: { authorization: `Bearer ${bearer}` } }))
    // an untimed round of the same requests first: the server's code is optimised by then, as in a server that has
    // been running (the first burst after start is timed on its own above)
    await runHttpLoad(base, list, concurrency)
    const cpu = process.cpuUsage()
    const sent = statements
    const { latencies, throughput } = await runHttpLoad(base, list, concurrency)
    const perRequest = (statements - sent) / requests
    // CPU of this process per request (the server, and with the node generator its thread; not PostgreSQL's, not
    // wrk's): unlike the latencies, it hardly depends on what else the machine runs
    const used = process.cpuUsage(cpu)
    const cpuMs = (used.user + used.system) / 1000 / requests
    console.log(
      `  ${name.padEnd(30)} concurrency ${concurrency}: p50 ${ms(quantileOf(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms  ${Math.round(throughput)} req/s  CPU ${cpuMs.toFixed(2)} ms/req  ${perRequest.toFixed(2)} statements/req  (load ${loadavg()[0]!.toFixed(2)})`,
    )
  }
  try {
    console.log(
      `Price Check against ${mode}: ${Number(counts.rows[0]!.facilities).toLocaleString('en-US')} facilities, ${Number(counts.rows[0]!.prices).toLocaleString('en-US')} price rows; ${requests} requests each, after an untimed round of the same; load generator ${loadGenerator()}`,
    )
    // the first burst after the server started: `concurrency` uncached searches at once, each on a connection
    // the pool opened at start (docs/decisions/0064)
    const burst = await runHttpLoad(
      base,
      Array.from({ length: concurrency }, (_, i) => ({ path: procedure(i + 1, true), headers: { authorization: `Bearer ${token}` } })),
      concurrency,
    )
    console.log(
      `  first burst after start         ${concurrency} uncached searches at once: slowest ${ms(burst.latencies.at(-1)!)} ms, median ${ms(quantileOf(burst.latencies, 0.5))} ms`,
    )
    // warm-up: plans, pool connections, and the cache for the cached run
    for (let i = 0; i < Math.max(searches.length, requests); i++) await get(procedure(i, false))
    // the floor every signed-in call pays here (credential check, one small query): GET /insurers/
    await run('baseline GET /insurers/', () => '/api/insurers/')
    await run('procedure (uncached)', (i) => procedure(i, true))
    await run('procedure (cached)', (i) => procedure(i, false))
    await run('procedure (cached, metered)', (i) => procedure(i, false), meteredToken)
    if (npis.length > 0) {
      for (let i = 0; i < Math.min(npis.length, 20); i++) await get(`/api/cost-transparency/provider/${npis[i]!.npi}`)
      await run('provider cost page', (i) => `/api/cost-transparency/provider/${npis[i % npis.length]!.npi}`)
    }
  } finally {
    await app.close()
    await embedded?.stop()
  }
}
