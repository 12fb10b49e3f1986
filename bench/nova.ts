/**
 * Nova benchmark (issue 14): p50/p95 over HTTP of POST /api/nova/v1/atlas/tiles, insights/accounts and
 * insights/facility/{npi} at each concurrency, against DATABASE_URL (the loaded scale), else a scratch embedded
 * database with the test dataset. The server listens on 127.0.0.1 and the requests come from the load generator
 * (bench/http-load.ts: wrk, or a worker thread), so the server's event loop is its own. Targets on the 2-core
 * reference machine at full scale on PostgreSQL: tiles and accounts p95 <= 100 ms at concurrency 8, the facility
 * insight <= 50 ms.
 * Two baselines show the floor of the shared request pipeline (auth, metering): GET /api/insurers/ (signed in,
 * not metered) and GET /api/nova/v1/metadata/ (signed in, NOVA guard, metered, answered from memory).
 * Writes only its own bench company and user (removed at the end), so it may run against a shared database.
 *
 *   npm run bench -- nova [--requests 200] [--concurrency 1,8]
 */
import { loadEnv } from '../apps/server/src/config.ts'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { startBenchServer, createBenchCompany, createBenchUser, benchLoginToken } from './bench-server.ts'
import { quantileOf, runHttpLoad, type BenchRequest, ms } from './http-load.ts'

const n = (x: number) => Math.round(x).toLocaleString('en-US')
const loadAverage = async () => {
  try {
    const { readFile } = await import('node:fs/promises')
    return (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')
  } catch {
    return 'n/a'
  }
}

export async function benchNova(requests: number, levels: number[]) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const embedded = env.DATABASE_URL ? null : await startEmbeddedPostgres({})
  const databaseUrl = env.DATABASE_URL ?? embedded!.url
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 4 })
  if (embedded) await ensureTestDataset(db.pool, databaseUrl)
  const company = await createBenchCompany(db, 'Nova bench', ['NOVA'], { industry: 'Pharma' })
  const user = await createBenchUser(db, company.id, 'citrus', { prefix: 'nova' })
  const { rows: counts } = await db.pool.query<{ cases: string; facilities: string }>(
    `SELECT (SELECT count(*) FROM snakebite_cases)::text AS cases, (SELECT count(DISTINCT facility_id) FROM snakebite_cases)::text AS facilities`,
  )
  const { rows: top } = await db.pool.query<{ npi: string }>(
    `SELECT f.npi FROM facilities f JOIN snakebite_cases s ON s.facility_id = f.id WHERE f.npi IS NOT NULL GROUP BY f.npi ORDER BY count(*) DESC LIMIT 20`,
  )
  const { rows: states } = await db.pool.query<{ state: string }>(
    `SELECT state FROM snakebite_cases GROUP BY state ORDER BY count(*) DESC LIMIT 5`,
  )

  const { app, base } = await startBenchServer(env, databaseUrl, embedded ? 'embedded' : 'postgres')
  try {
    const token = benchLoginToken(app, user, company)
    const headers = { authorization: `Bearer ${token}` }
    const post = (path: string, body: unknown): BenchRequest => ({
      method: 'POST',
      path: `/api/nova/v1${path}`,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const scope = (i: number) =>
      i % 3 === 2 && states.length > 0
        ? { filter_value: { region_level: 'STATE', search_within_region: states[i % states.length]!.state } }
        : { filter_value: { region_level: 'COUNTRY', search_within_region: 'US' } }
    const mapTypes = ['serb_crofab_opportunity_score', 'snake_envenomination_count', 'serb_crofab_drug_patient_share']
    const sorts = ['snake_envenominations', 'crofab_units_used', 'crofab_usage_buying_gap', 'crofab_patient_share']
    const workload: Record<string, (i: number) => BenchRequest> = {
      'baseline GET /insurers/': () => ({ path: '/api/insurers/', headers }),
      'GET nova metadata': () => ({ path: '/api/nova/v1/metadata/', headers }),
      'atlas/tiles': (i) =>
        post('/atlas/tiles', {
          geo_filter_input: { filter_value: { ...scope(i).filter_value, granularity: i % 2 ? 'SALES_TERRITORY' : 'STATE' } },
          map_selection: { filter_value: mapTypes[i % mapTypes.length] },
          nova_use_case: 'serb_crofab',
          point_selection: i % 4 === 0 ? 'ALL' : 'NONE',
        }),
      'insights/accounts': (i) =>
        post('/insights/accounts', {
          geo_filter_input: scope(i),
          account_query_type: i % 2 ? 'FACILITY' : 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY',
          sort_input: { code: sorts[i % sorts.length], sort_direction: i % 5 === 0 ? 'ASC' : 'DESC' },
          page: i % 3,
          ...(i % 7 === 3 ? { filter_inputs: [{ code: 'min_snake_envenominations', filter_value: 10 }] } : {}),
        }),
      'insights/facility': (i) => post(`/insights/facility/${top[i % top.length]!.npi}`, {}),
    }
    console.log(
      `Nova against ${embedded ? 'embedded PGlite (scratch, test dataset)' : 'PostgreSQL (DATABASE_URL)'}: ${n(Number(counts[0]!.cases))} envenomations at ${n(Number(counts[0]!.facilities))} facilities; ${requests} requests per call and concurrency`,
    )
    // the first call builds the data of the version (docs/decisions/0054): timed on its own
    const first = performance.now()
    await runHttpLoad(base, [workload['insights/accounts']!(0)], 1)
    console.log(`  first call (builds the data of the version): ${ms(performance.now() - first)} ms`)
    // warm-up: outlines, connections, plans, each distinct request once
    const warm = performance.now()
    for (const make of Object.values(workload))
      await runHttpLoad(
        base,
        Array.from({ length: 60 }, (_, i) => make(i)),
        1,
      )
    console.log(
      `  warm-up (outlines, every distinct request once): ${ms(performance.now() - warm)} ms; load average ${await loadAverage()}`,
    )
    for (const [name, make] of Object.entries(workload)) {
      for (const c of levels) {
        const list = Array.from({ length: requests }, (_, i) => make(i))
        const { latencies, throughput } = await runHttpLoad(base, list, c)
        console.log(
          `  ${name.padEnd(24)} concurrency ${String(c).padStart(2)}: p50 ${ms(quantileOf(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms  ${n(throughput).padStart(6)} req/s  (load average ${await loadAverage()})`,
        )
      }
    }
  } finally {
    await app.close()
    await db.prisma.user.delete({ where: { id: user.id } }).catch(() => undefined)
    await db.prisma.company.delete({ where: { id: company.id } }).catch(() => undefined)
    await db.close()
    await embedded?.stop()
  }
}
