/**
 * Atlas benchmark (issue 13): p50/p95 of GET /api/atlas/generic (national STATE granularity with up to 10
 * codes and demographic filters; COUNTY granularity), one vector tile, drill-down pages, at a concurrency,
 * through the real app in process (app.inject: routing, auth, metering, validation, serialisation), and the
 * raw SQL of the same count for the API / SQL ratio (the SQL the in-process index replaces, docs/decisions/0043). Against DATABASE_URL (PostgreSQL), else a scratch
 * embedded database with the ci dataset. The cache is bypassed on every call so each one hits the database.
 *
 *   npm run bench -- atlas [--requests 200] [--concurrency 8] [--read-only]
 */
import { randomUUID } from 'node:crypto'
import { buildApp } from '../apps/server/src/app.ts'
import { signLoginToken } from '../apps/server/src/auth/tokens.ts'
import { hashPassword } from '../apps/server/src/auth/password.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import pg from 'pg'
import { currentClaimIndex } from '../apps/server/src/routes/atlas/claim-index.ts'
import { entityPage, stateRows, type DrilldownQuery } from '../apps/server/src/routes/atlas/drilldown.ts'
import {
  countByRegionSql,
  featureProperties,
  genericResponseJson,
  genericResult,
  type GenericResult,
} from '../apps/server/src/routes/atlas/generic.ts'
import { currentPatientIndex } from '../apps/server/src/routes/atlas/patient-index.ts'
import { dataVersion } from '../apps/server/src/routes/atlas/regions.ts'
import { nearTile, tileWithPostgis } from '../apps/server/src/routes/atlas/tiles.ts'
import { filtersOf, resolveScope } from '../apps/server/src/routes/atlas/query.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { newActivationKey } from '../apps/server/src/seed/demo-accounts.ts'

const TEN_CODES = 'E11,I10,E66,J45,J44,M17,M06,N18,F32,I25'

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN
  const i = (sorted.length - 1) * q
  const lo = Math.floor(i)
  return sorted[lo]! + (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!) * (i - lo)
}

async function measure(requests: number, concurrency: number, task: (i: number) => Promise<void>) {
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < requests; i = next++) {
        const t = performance.now()
        await task(i)
        latencies.push(performance.now() - t)
      }
    }),
  )
  const wall = performance.now() - started
  latencies.sort((a, b) => a - b)
  return { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), rps: (requests * 1000) / wall }
}

export async function benchAtlas(requests: number, concurrency: number) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const embedded = env.DATABASE_URL ? null : await startEmbeddedPostgres({})
  const databaseUrl = env.DATABASE_URL ?? embedded!.url
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 10 })
  if (embedded) await ensureTestDataset(db.pool, databaseUrl)
  const company = await db.prisma.company.create({
    data: {
      company_name: `Atlas bench ${randomUUID().slice(0, 6)}`,
      industry: 'Healthcare',
      renewal_cycle_days: 30,
      activation_key: newActivationKey(),
      plan_tier: 'ENTERPRISE',
      policies: { create: [{ product_group: 'ATLAS', limit: null }] },
    },
  })
  const user = await db.prisma.user.create({
    data: {
      email: `atlas-bench-${randomUUID().slice(0, 8)}@bench.citrus`,
      role: 'user',
      company_id: company.id,
      password_hash: await hashPassword(`Bench#${randomUUID()}`),
    },
  })
  const jwtSecret = randomUUID() + randomUUID()
  const token = await signLoginToken(jwtSecret, {
    id: user.id,
    email: user.email,
    company_id: company.id,
    company_name: company.company_name,
    role: 'user',
    phone_number: null,
  })
  const app = await buildApp(
    { env, databaseUrl, databaseMode: embedded ? 'embedded' : 'postgres', jwtSecret, migrationsDir: MIGRATIONS_DIR, webDistDir: null },
    { logger: false },
  )
  await app.ready()
  const headers = { authorization: `Bearer ${token}` }
  // the in-process indexes of the data version (docs/decisions/0043): built once, before the timings
  const buildStarted = performance.now()
  const claimIndex = await currentClaimIndex(app.db.pool, await dataVersion(app.db.pool), true)
  const heapMb = (process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers) / 2 ** 20
  console.log(
    `Atlas indexes built in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s: patient index ${(claimIndex!.people.bytes / 2 ** 20).toFixed(1)} MiB (${claimIndex!.people.patients.length.toLocaleString('en-US')} postings), drill-down index ${(claimIndex!.bytes / 2 ** 20).toFixed(1)} MiB (${claimIndex!.claims.length.toLocaleString('en-US')} rows); process heap + buffers ${heapMb.toFixed(0)} MiB`,
  )
  const { rows } = await db.pool.query<{ patients: string }>('SELECT count(*)::text AS patients FROM patients')
  console.log(
    `Atlas against ${embedded ? 'embedded PGlite (scratch, ci dataset)' : 'PostgreSQL (DATABASE_URL)'}: ${Number(rows[0]!.patients).toLocaleString('en-US')} patients; ${requests} requests at concurrency ${concurrency}`,
  )

  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url, headers })
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`)
  }
  const demographics = ['gender=F&min_age=18&max_age=70', 'gender=M&min_age=40', 'max_age=64', '']
  const cases: [string, string, (i: number) => Promise<void>][] = [
    [
      'generic STATE, 10 codes + demographics',
      '150',
      (i) =>
        get(
          `/api/atlas/generic?icd10_cm_union_csv=${TEN_CODES}&search_within_region=US&search_within_region_type=COUNTRY&_bypass_cache=true&${demographics[i % 4]}`,
        ),
    ],
    [
      'generic COUNTY, 3 codes',
      '300',
      (i) =>
        get(
          `/api/atlas/generic?icd10_cm_union_csv=E11,I10,M17&tile_granularity=COUNTY&search_within_region=US&_bypass_cache=true&${demographics[i % 4]}`,
        ),
    ],
    [
      'vector tile z5 COUNTY (cached result)',
      '50',
      (i) => get(`/api/atlas/tiles/5/${7 + (i % 3)}/12.mvt?icd10_cm_union_csv=E11,I10,M17&tile_granularity=COUNTY&search_within_region=US`),
    ],
    [
      'drill-down STATE page',
      '100',
      async (i) => {
        const response = await app.inject({
          method: 'POST',
          url: '/api/atlas/drilldown',
          headers,
          payload: { drilldown_type: 'STATE', icd10_cm_union_csv: 'E11,I10', page: i % 2, page_size: 25 },
        })
        if (response.statusCode !== 200) throw new Error(`drilldown ${response.statusCode}`)
      },
    ],
    [
      'drill-down FACILITY page (TX)',
      '100',
      async (i) => {
        const response = await app.inject({
          method: 'POST',
          url: '/api/atlas/drilldown',
          headers,
          payload: {
            drilldown_type: 'FACILITY',
            icd10_cm_union_csv: 'E11,I10',
            geo_filter_input: { code: 'region', filter_value: { region_level: 'STATE', search_within_region: 'TX' } },
            page: i % 3,
            page_size: 25,
          },
        })
        if (response.statusCode !== 200) throw new Error(`drilldown ${response.statusCode}`)
      },
    ],
  ]
  for (const [, , task] of cases) await measure(concurrency * 2, concurrency, task) // warm-up
  for (const [name, target, task] of cases) {
    const r = await measure(requests, concurrency, task)
    console.log(
      `  ${name.padEnd(40)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p95 ${r.p95.toFixed(1).padStart(7)} ms (target ≤ ${target})  ${r.rps.toFixed(0).padStart(5)} req/s`,
    )
  }
  // API time against the raw SQL of the same count (the counting query alone, same filters)
  const filters = filtersOf({ codes: TEN_CODES, gender: 'F', min_age: 18, max_age: 70 })
  const scope = { type: 'COUNTRY' as const, value: 'US', state: null, zips: [], name: 'United States' }
  const sql = await measure(requests, concurrency, async () => void (await countByRegionSql(db.pool, filters, scope, 'STATE')))
  const api = await measure(requests, concurrency, () =>
    get(`/api/atlas/generic?icd10_cm_union_csv=${TEN_CODES}&search_within_region=US&_bypass_cache=true&gender=F&min_age=18&max_age=70`),
  )
  console.log(
    `  raw SQL p50 ${sql.p50.toFixed(1)} ms, API p50 ${api.p50.toFixed(1)} ms: API / SQL = ${(api.p50 / sql.p50).toFixed(2)} (target ≤ 1.2)`,
  )
  await app.close()
  await db.close()
  await embedded?.stop()
}

/**
 * `--read-only`: the same cases below the HTTP layer (no company, user or credit rows are written, no
 * migrations run; every session is read-only), for a database that is not ours to write, such as a shared
 * full-scale one: the indexes' build time and size, the generic result and its JSON, a tile through
 * ST_AsMVT, drill-down pages, and the raw SQL count.
 */
export async function benchAtlasReadOnly(requests: number, concurrency: number) {
  const url = loadEnv({ LOG_LEVEL: 'silent' }).DATABASE_URL
  if (!url) throw new Error('--read-only needs DATABASE_URL (a PostgreSQL database)')
  const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c default_transaction_read_only=on' })
  const { rows } = await pool.query<{ patients: string; claims: string }>(
    `SELECT (SELECT count(*) FROM patients)::text AS patients, (SELECT reltuples::bigint FROM pg_class WHERE relname = 'claims')::text AS claims`,
  )
  console.log(
    `Atlas (read-only, below HTTP) against PostgreSQL: ${Number(rows[0]!.patients).toLocaleString('en-US')} patients, ~${Number(rows[0]!.claims).toLocaleString('en-US')} claims; ${requests} calls at concurrency ${concurrency}`,
  )
  const version = await dataVersion(pool)
  let started = performance.now()
  const people = await currentPatientIndex(pool, version, true)
  console.log(`  patient index: ${((performance.now() - started) / 1000).toFixed(1)} s, ${(people!.bytes / 2 ** 20).toFixed(1)} MiB`)
  started = performance.now()
  const claims = await currentClaimIndex(pool, version, true)
  const memory = process.memoryUsage()
  console.log(
    `  drill-down index: ${((performance.now() - started) / 1000).toFixed(1)} s, ${(claims!.bytes / 2 ** 20).toFixed(1)} MiB (${claims!.claims.length.toLocaleString('en-US')} rows); process RSS ${(memory.rss / 2 ** 20).toFixed(0)} MiB`,
  )
  const country = await resolveScope(pool, 'US', 'COUNTRY')
  const texas = await resolveScope(pool, 'TX', 'STATE')
  const demographics = [{ gender: 'F' as const, min_age: 18, max_age: 70 }, { gender: 'M' as const, min_age: 40 }, { max_age: 64 }, {}]
  const response = (result: GenericResult) => genericResponseJson(result, { tier: 'ENTERPRISE', census: false, points: [] })
  const drill = (type: 'STATE' | 'FACILITY', i: number): DrilldownQuery => ({
    type,
    filters: filtersOf({ codes: 'E11,I10' }),
    scope: type === 'STATE' ? country : texas,
    facilityId: null,
    healthSystemId: null,
    state: null,
    sort: { code: 'patient_count', direction: 'DESC' },
    page: i % 3,
    pageSize: 25,
  })
  const cases: [string, string, (i: number) => Promise<unknown>][] = [
    [
      'generic STATE, 10 codes + demographics',
      '150',
      async (i) =>
        response(
          await genericResult(pool, {
            filters: filtersOf({ codes: TEN_CODES, ...demographics[i % 4] }),
            scope: country,
            granularity: 'STATE',
            bypass: true,
          }),
        ),
    ],
    [
      'generic COUNTY, 3 codes',
      '300',
      async (i) =>
        response(
          await genericResult(pool, {
            filters: filtersOf({ codes: 'E11,I10,M17', ...demographics[i % 4] }),
            scope: country,
            granularity: 'COUNTY',
            bypass: true,
          }),
        ),
    ],
    [
      'tile z5 COUNTY (ST_AsMVT, cached result)',
      '50',
      async (i) => {
        const result = await genericResult(pool, {
          filters: filtersOf({ codes: 'E11,I10,M17' }),
          scope: country,
          granularity: 'COUNTY',
          bypass: false,
        })
        const tile = { z: 5, x: 7 + (i % 3), y: 12 }
        const near = nearTile(tile, result.regions, (r) => r.region.geometry)
        const features = featureProperties(result, { tier: 'ENTERPRISE', census: false }, near).map((properties, k) => ({
          id: properties.id,
          geometry: near[k]!.region.geometry,
          properties: { id: properties.id, label: properties.label, value: properties.value, fill: properties.fill },
        }))
        return tileWithPostgis(pool, 'COUNTY', tile, features, [])
      },
    ],
    ['drill-down STATE rows', '100', async (i) => stateRows(pool, drill('STATE', i))],
    ['drill-down FACILITY page (TX)', '100', async (i) => entityPage(pool, drill('FACILITY', i))],
  ]
  for (const [, , task] of cases) await measure(concurrency * 2, concurrency, async (i) => void (await task(i)))
  for (const [name, target, task] of cases) {
    const r = await measure(requests, concurrency, async (i) => void (await task(i)))
    console.log(
      `  ${name.padEnd(42)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p95 ${r.p95.toFixed(1).padStart(7)} ms (target ≤ ${target})  ${r.rps.toFixed(0).padStart(5)} calls/s`,
    )
  }
  const filters = filtersOf({ codes: TEN_CODES, gender: 'F', min_age: 18, max_age: 70 })
  const sqlRequests = Math.min(requests, 40)
  const sql = await measure(sqlRequests, concurrency, async () => void (await countByRegionSql(pool, filters, country, 'STATE')))
  const api = await measure(sqlRequests, concurrency, async () => {
    response(await genericResult(pool, { filters, scope: country, granularity: 'STATE', bypass: true }))
  })
  console.log(
    `  raw SQL p50 ${sql.p50.toFixed(1)} ms, generic STATE (below HTTP) p50 ${api.p50.toFixed(1)} ms: ratio ${(api.p50 / sql.p50).toFixed(2)} (target ≤ 1.2)`,
  )
  await pool.end()
}
