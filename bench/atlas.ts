/**
 * Atlas benchmark (issue 13, docs/decisions/0052): p50/p95 of GET /api/atlas/generic (national, STATE and
 * COUNTY granularity, 10 codes and demographic filters, cache bypassed), vector tiles, drill-down pages, at
 * concurrency 1 and at the given concurrency, and the API against the raw SQL of the same count.
 *
 *   npm run bench -- atlas [--requests 200] [--concurrency 8] [--read-only]
 *
 * Default: over HTTP, the requests sent by bench/http-load.ts (wrk, or a worker thread) to the app listening on
 * 127.0.0.1, against DATABASE_URL (PostgreSQL; no migration is run there, only a bench company and user are
 * created, with the ATLAS credit rows metering writes, and removed at the end), else a scratch embedded
 * database with the test dataset. `--read-only`: the same cases below the HTTP layer in read-only sessions
 * (nothing written at all).
 */
import { randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import pg from 'pg'
import { buildApp } from '../apps/server/src/app.ts'
import { signLoginToken } from '../apps/server/src/auth/tokens.ts'
import { hashPassword } from '../apps/server/src/auth/password.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { currentClaimIndex } from '../apps/server/src/engines/atlas/claim-index.ts'
import { buildPatientIndex, countWithIndex, currentPatientIndex, patientFilter } from '../apps/server/src/engines/atlas/patient-index.ts'
import {
  codeConditionSql,
  patientConditions,
  SqlParams,
  type AtlasFilters,
  type AtlasScope,
} from '../apps/server/src/engines/atlas/rows.ts'
import { entityPage, stateRows, type DrilldownQuery } from '../apps/server/src/services/atlas/drilldown.ts'
import { tileRegionProperties, genericResponseJson, genericResult, type GenericResult } from '../apps/server/src/services/atlas/generic.ts'
import { dataVersion } from '../apps/server/src/services/atlas/regions.ts'
import { regionTile } from '../apps/server/src/services/atlas/tiles.ts'
import { filtersOf, resolveScope } from '../apps/server/src/services/atlas/query.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { createBenchCompany, createBenchUser } from './bench-server.ts'
import { quantileOf, runHttpLoad, type BenchRequest, ms } from './http-load.ts'

const TEN_CODES = 'E11,I10,E66,J45,J44,M17,M06,N18,F32,I25'
const DEMOGRAPHICS = ['gender=F&min_age=18&max_age=70', 'gender=M&min_age=40', 'max_age=64', '']
const loadavg = async () =>
  (await import('node:fs/promises')).readFile('/proc/loadavg', 'utf8').then(
    (s) => s.split(' ').slice(0, 3).join(' '),
    () => 'n/a',
  )

/** Distinct tiles z4-z7 over the contiguous United States, in a fixed shuffled order. */
function usTiles(count: number): { z: number; x: number; y: number }[] {
  const tiles: { z: number; x: number; y: number }[] = []
  for (let z = 4; z <= 7; z++) {
    const n = 2 ** z
    const x0 = Math.floor(((-125 + 180) / 360) * n)
    const x1 = Math.floor(((-67 + 180) / 360) * n)
    const yOf = (lat: number) =>
      Math.floor(((1 - Math.log(Math.tan((lat * Math.PI) / 180) + 1 / Math.cos((lat * Math.PI) / 180)) / Math.PI) / 2) * n)
    for (let x = x0; x <= x1; x++) for (let y = yOf(49); y <= yOf(25); y++) tiles.push({ z, x, y })
  }
  let seed = 13
  for (let i = tiles.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const j = seed % (i + 1)
    ;[tiles[i], tiles[j]] = [tiles[j]!, tiles[i]!]
  }
  return tiles.slice(0, count)
}

function levelsOf(concurrency: number): number[] {
  return concurrency === 1 ? [1] : [1, concurrency]
}

export async function benchAtlas(requests: number, concurrency: number) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const embedded = env.DATABASE_URL ? null : await startEmbeddedPostgres({})
  const databaseUrl = env.DATABASE_URL ?? embedded!.url
  // a scratch database gets the schema; a given one is used as it is (no migration runs against it)
  if (embedded) await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 4 })
  if (embedded) await ensureTestDataset(db.pool, databaseUrl)
  const company = await createBenchCompany(db, 'Atlas bench', ['ATLAS'], { planTier: 'ENTERPRISE' })
  const user = await createBenchUser(db, company.id, 'user', {
    prefix: 'atlas-bench',
    passwordHash: await hashPassword(`Bench#${randomUUID()}`),
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
    { logger: false, warmConnections: true },
  )
  try {
    await app.listen({ host: '127.0.0.1', port: 0 })
    const address = app.server.address()
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    const headers = { authorization: `Bearer ${token}` }
    const pool = app.db.pool
    // the in-process indexes of the data version (docs/decisions/0043, 0052): built once, before the timings
    const version = await dataVersion(pool)
    let started = performance.now()
    const people = (await currentPatientIndex(pool, version, true))!
    const patientSeconds = (performance.now() - started) / 1000
    started = performance.now()
    const claims = (await currentClaimIndex(pool, version, true))!
    const memory = process.memoryUsage()
    const { rows } = await pool.query<{ patients: string; claims: string }>(
      `SELECT (SELECT count(*) FROM patients)::text AS patients, (SELECT reltuples::bigint FROM pg_class WHERE relname = 'claims')::text AS claims`,
    )
    console.log(
      `Atlas over HTTP against ${embedded ? 'embedded PGlite (scratch, test dataset)' : 'PostgreSQL (DATABASE_URL)'}: ${Number(rows[0]!.patients).toLocaleString('en-US')} patients, ~${Number(rows[0]!.claims).toLocaleString('en-US')} claims; ${requests} requests per case; load average ${await loadavg()}`,
    )
    console.log(
      `  patient index ${patientSeconds.toFixed(1)} s, ${(people.bytes / 2 ** 20).toFixed(1)} MiB (${people.bitsets.length} code bitsets, ${people.patients.length.toLocaleString('en-US')} postings); drill-down index ${((performance.now() - started) / 1000).toFixed(1)} s, ${(claims.bytes / 2 ** 20).toFixed(1)} MiB (${claims.claims.length.toLocaleString('en-US')} rows); RSS ${(memory.rss / 2 ** 20).toFixed(0)} MiB`,
    )
    const get = (path: string): BenchRequest => ({ path, headers })
    const post = (body: unknown): BenchRequest => ({
      method: 'POST',
      path: '/api/atlas/drilldown',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const generic = (granularity: 'STATE' | 'COUNTY', i: number) =>
      get(
        `/api/atlas/generic?icd10_cm_union_csv=${TEN_CODES}&tile_granularity=${granularity}&search_within_region=US&search_within_region_type=COUNTRY&_bypass_cache=true&${DEMOGRAPHICS[i % 4]}`,
      )
    const tiles = usTiles(requests)
    // COUNTY, 10 codes, women, a lowest age that differs between any two requests in flight, cache bypassed
    const distinctQuery = (path: string, i: number) =>
      `/api/atlas/${path}?icd10_cm_union_csv=${TEN_CODES}&search_within_region=US&search_within_region_type=COUNTRY&tile_granularity=COUNTY&gender=F&min_age=${i % 60}&max_age=90&_bypass_cache=true`
    const tileQuery = `icd10_cm_union_csv=${TEN_CODES}&tile_granularity=COUNTY&search_within_region=US&gender=F&min_age=18&max_age=70`
    const drill = (type: 'STATE' | 'FACILITY', i: number, bypass: boolean) =>
      post({
        drilldown_type: type,
        icd10_cm_union_csv: 'E11,I10',
        ...(type === 'FACILITY'
          ? { geo_filter_input: { code: 'region', filter_value: { region_level: 'STATE', search_within_region: 'TX' } } }
          : {}),
        page: i % 3,
        page_size: 25,
        ...(bypass ? { _bypass_cache: true } : {}),
      })
    const cases: [string, string, (i: number) => BenchRequest][] = [
      ['baseline GET /api/atlas/ (auth, metering)', '-', () => get('/api/atlas/')],
      ['generic STATE, 10 codes + demographics', '150', (i) => generic('STATE', i)],
      ['generic COUNTY, 10 codes + demographics', '300', (i) => generic('COUNTY', i)],
      // a query of its own per request (the lowest age varies): no count can be shared (docs/decisions/0066)
      ['generic COUNTY, a new query each request', '300', (i) => get(distinctQuery('generic', i))],
      [
        'tile z4-z7 COUNTY (result cached)',
        '50',
        (i) =>
          get(
            `/api/atlas/tiles/${tiles[i % tiles.length]!.z}/${tiles[i % tiles.length]!.x}/${tiles[i % tiles.length]!.y}.mvt?${tileQuery}`,
          ),
      ],
      [
        'tile z4-z7 COUNTY (_bypass_cache)',
        '50',
        (i) =>
          get(
            `/api/atlas/tiles/${tiles[i % tiles.length]!.z}/${tiles[i % tiles.length]!.x}/${tiles[i % tiles.length]!.y}.mvt?${tileQuery}&_bypass_cache=true`,
          ),
      ],
      [
        'tile z4-z7 COUNTY (a new query each request)',
        '50',
        (i) =>
          get(`${distinctQuery(`tiles/${tiles[i % tiles.length]!.z}/${tiles[i % tiles.length]!.x}/${tiles[i % tiles.length]!.y}.mvt`, i)}`),
      ],
      ['drill-down STATE page (paging)', '100', (i) => drill('STATE', i, false)],
      ['drill-down STATE page (_bypass_cache)', '100', (i) => drill('STATE', i, true)],
      ['drill-down FACILITY page TX (paging)', '100', (i) => drill('FACILITY', i, false)],
      ['drill-down FACILITY page TX (_bypass_cache)', '100', (i) => drill('FACILITY', i, true)],
    ]
    // warm-up: connections, the catalogs and the tiles' geometry, the cached result of the tile query
    await runHttpLoad(base, [get(`/api/atlas/generic?${tileQuery}`), get(`/api/atlas/tiles/3/1/3.mvt?${tileQuery}`)], 1)
    for (const [, , request] of cases) await runHttpLoad(base, [request(0), request(1)], 1)
    // the national COUNTY body: its size and CPU per call (compressed per request by @fastify/compress: 0077)
    {
      const county = await genericResult(pool, {
        filters: filtersOf({ codes: TEN_CODES, gender: 'F', min_age: 18, max_age: 70 }),
        scope: await resolveScope(pool, 'US', 'COUNTRY'),
        granularity: 'COUNTY',
        bypass: false,
      })
      const options = { tier: 'ENTERPRISE' as const, census: false, points: [] }
      const timed = (write: () => Buffer) => {
        let body = write()
        const t = performance.now()
        for (let i = 0; i < 10; i++) body = write()
        return { bytes: body.length, ms: (performance.now() - t) / 10 }
      }
      const plain = timed(() => genericResponseJson(county, options))
      const gzip = timed(() => gzipSync(genericResponseJson(county, options)))
      console.log(
        `  COUNTY body (${county.regions.length.toLocaleString('en-US')} regions): identity ${(plain.bytes / 2 ** 20).toFixed(2)} MiB written in ${ms(plain.ms)} ms; written and gzipped (zlib level 6) ${(gzip.bytes / 2 ** 20).toFixed(2)} MiB in ${ms(gzip.ms)} ms`,
      )
    }
    for (const level of levelsOf(concurrency)) {
      console.log(`  concurrency ${level} (load average ${await loadavg()})`)
      for (const [name, target, request] of cases) {
        // CPU of this process per request (the server's threads, and with the node generator its worker thread; the
        // baseline case is the floor), not the database's nor wrk's
        const cpuBefore = process.cpuUsage()
        const { latencies, throughput } = await runHttpLoad(
          base,
          Array.from({ length: requests }, (_, i) => request(i + 2)),
          level,
        )
        const cpu = process.cpuUsage(cpuBefore)
        console.log(
          `    ${name.padEnd(44)} p50 ${ms(quantileOf(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms (target ≤ ${target})  ${throughput.toFixed(0).padStart(5)} req/s  cpu ${ms((cpu.user + cpu.system) / 1000 / requests).padStart(5)} ms/req`,
        )
      }
    }
    // the API against the raw SQL of the same count (the counting query alone, same filters), one at a time
    const filters = filtersOf({ codes: TEN_CODES, gender: 'F', min_age: 18, max_age: 70 })
    const country = await resolveScope(pool, 'US', 'COUNTRY')
    const sqlRuns = Math.min(requests, 10)
    const sqlTimes: number[] = []
    for (let i = 0; i < sqlRuns; i++) {
      const t = performance.now()
      await rawStateCount(pool, filters, country)
      sqlTimes.push(performance.now() - t)
    }
    sqlTimes.sort((a, b) => a - b)
    const api = await runHttpLoad(
      base,
      Array.from({ length: sqlRuns }, () => generic('STATE', 0)),
      1,
    )
    const sqlP50 = quantileOf(sqlTimes, 0.5)
    const apiP50 = quantileOf(api.latencies, 0.5)
    console.log(
      `  raw SQL of the STATE count p50 ${ms(sqlP50)} ms; GET /api/atlas/generic (same query, HTTP) p50 ${ms(apiP50)} ms: API / SQL = ${(apiP50 / sqlP50).toFixed(2)} (target ≤ 1.2); load average ${await loadavg()}`,
    )
  } finally {
    await app.close()
    await db.pool.query('DELETE FROM users WHERE id = $1', [user.id]).catch(() => undefined)
    await db.pool.query('DELETE FROM companies WHERE id = $1', [company.id]).catch(() => undefined)
    await db.close()
    await embedded?.stop()
  }
}

/**
 * `--read-only`: the same cases below the HTTP layer (no company, user or credit rows are written, no
 * migrations run; every session is read-only), for a database that is not ours to write, such as a shared
 * full-scale one: the indexes' build time and size, the generic result and its JSON, a tile, drill-down
 * pages, and the raw SQL count.
 */
export async function benchAtlasReadOnly(requests: number, concurrency: number) {
  const url = loadEnv({ LOG_LEVEL: 'silent' }).DATABASE_URL
  if (!url) throw new Error('--read-only needs DATABASE_URL (a PostgreSQL database)')
  const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c default_transaction_read_only=on' })
  const { rows } = await pool.query<{ patients: string; claims: string }>(
    `SELECT (SELECT count(*) FROM patients)::text AS patients, (SELECT reltuples::bigint FROM pg_class WHERE relname = 'claims')::text AS claims`,
  )
  console.log(
    `Atlas (read-only, below HTTP) against PostgreSQL: ${Number(rows[0]!.patients).toLocaleString('en-US')} patients, ~${Number(rows[0]!.claims).toLocaleString('en-US')} claims; ${requests} calls per case; load average ${await loadavg()}`,
  )
  const version = await dataVersion(pool)
  let started = performance.now()
  const people = (await currentPatientIndex(pool, version, true))!
  console.log(
    `  patient index: ${((performance.now() - started) / 1000).toFixed(1)} s, ${(people.bytes / 2 ** 20).toFixed(1)} MiB (${people.bitsets.length} code bitsets, ${people.patients.length.toLocaleString('en-US')} postings)`,
  )
  started = performance.now()
  const claims = (await currentClaimIndex(pool, version, true))!
  const memory = process.memoryUsage()
  console.log(
    `  drill-down index: ${((performance.now() - started) / 1000).toFixed(1)} s, ${(claims.bytes / 2 ** 20).toFixed(1)} MiB (${claims.claims.length.toLocaleString('en-US')} rows); process RSS ${(memory.rss / 2 ** 20).toFixed(0)} MiB`,
  )
  const country = await resolveScope(pool, 'US', 'COUNTRY')
  const texas = await resolveScope(pool, 'TX', 'STATE')
  const demographics = [{ gender: 'F' as const, min_age: 18, max_age: 70 }, { gender: 'M' as const, min_age: 40 }, { max_age: 64 }, {}]
  const response = (result: GenericResult) => genericResponseJson(result, { tier: 'ENTERPRISE', census: false, points: [] })
  const drill = (type: 'STATE' | 'FACILITY', i: number, bypass: boolean): DrilldownQuery => ({
    type,
    filters: filtersOf({ codes: 'E11,I10' }),
    scope: type === 'STATE' ? country : texas,
    facilityId: null,
    healthSystemId: null,
    state: null,
    sort: { code: 'patient_count', direction: 'DESC' },
    page: i % 3,
    pageSize: 25,
    bypass,
  })
  const tiles = usTiles(requests)
  const generic = (granularity: 'STATE' | 'COUNTY', i: number, bypass = true) =>
    genericResult(pool, { filters: filtersOf({ codes: TEN_CODES, ...demographics[i % 4] }), scope: country, granularity, bypass })
  const tile = async (i: number, bypass: boolean) => {
    const result = await generic('COUNTY', 0, bypass)
    const byId = new Map(result.regions.map((r) => [r.region.id, r]))
    const t = tiles[i % tiles.length]!
    return regionTile(
      'COUNTY',
      result.catalog,
      t,
      (id) => {
        const r = byId.get(id)
        return r ? tileRegionProperties(result, r, { tier: 'ENTERPRISE', census: false }) : null
      },
      [],
    )
  }
  const cases: [string, string, (i: number) => Promise<unknown>][] = [
    ['generic STATE, 10 codes + demographics', '150', async (i) => response(await generic('STATE', i))],
    ['generic COUNTY, 10 codes + demographics', '300', async (i) => response(await generic('COUNTY', i))],
    ['tile z4-z7 COUNTY (result cached)', '50', (i) => tile(i, false)],
    ['tile z4-z7 COUNTY (result recounted)', '50', (i) => tile(i, true)],
    ['drill-down STATE rows (paging)', '100', (i) => stateRows(pool, drill('STATE', i, false))],
    ['drill-down STATE rows (recounted)', '100', (i) => stateRows(pool, drill('STATE', i, true))],
    ['drill-down FACILITY page TX (paging)', '100', (i) => entityPage(pool, drill('FACILITY', i, false))],
    ['drill-down FACILITY page TX (recounted)', '100', (i) => entityPage(pool, drill('FACILITY', i, true))],
  ]
  const measure = async (count: number, level: number, task: (i: number) => Promise<unknown>) => {
    const latencies: number[] = []
    let next = 0
    await Promise.all(
      Array.from({ length: level }, async () => {
        for (let i = next++; i < count; i = next++) {
          const t = performance.now()
          await task(i)
          latencies.push(performance.now() - t)
        }
      }),
    )
    return latencies.sort((a, b) => a - b)
  }
  for (const [, , task] of cases) await measure(2, 1, task)
  for (const level of levelsOf(concurrency)) {
    console.log(`  concurrency ${level} (load average ${await loadavg()})`)
    for (const [name, target, task] of cases) {
      const latencies = await measure(requests, level, task)
      console.log(
        `    ${name.padEnd(44)} p50 ${ms(quantileOf(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms (target ≤ ${target})`,
      )
    }
  }
  const filters = filtersOf({ codes: TEN_CODES, gender: 'F', min_age: 18, max_age: 70 })
  const runs = Math.min(requests, 10)
  const sql = await measure(runs, 1, () => rawStateCount(pool, filters, country))
  const api = await measure(runs, 1, async () =>
    response(await genericResult(pool, { filters, scope: country, granularity: 'STATE', bypass: true })),
  )
  console.log(
    `  raw SQL p50 ${ms(quantileOf(sql, 0.5))} ms, generic STATE (below HTTP) p50 ${ms(quantileOf(api, 0.5))} ms: ratio ${(quantileOf(api, 0.5) / quantileOf(sql, 0.5)).toFixed(2)} (target ≤ 1.2)`,
  )
  // the same count from the patient engine's rows: the index, and while it builds the query's patients read from the
  // database (docs/decisions/0080), counted by the same function
  const fromIndex = await measure(runs, 1, async () => {
    const filter = (await patientFilter(pool, people, filters, country))!
    countWithIndex(people, filters, filter, 'STATE')
  })
  const fromRows = await measure(runs, 1, async () => {
    const rows = await buildPatientIndex(pool, version, { only: { filters, scope: country } })
    const filter = await patientFilter(pool, rows, filters, country)
    if (filter) countWithIndex(rows, filters, filter, 'STATE')
  })
  console.log(
    `  STATE count from the index p50 ${ms(quantileOf(fromIndex, 0.5))} ms, from the database rows (index building) p50 ${ms(quantileOf(fromRows, 0.5))} ms: ratio ${(quantileOf(fromRows, 0.5) / quantileOf(fromIndex, 0.5)).toFixed(1)}`,
  )
  await pool.end()
}

/**
 * The raw SQL of the STATE count (distinct patients and payers per state over mv_patient_diagnoses), the baseline
 * the API is measured against; Atlas itself counts the patient engine's rows (docs/decisions/0080).
 */
async function rawStateCount(pool: pg.Pool, filters: AtlasFilters, scope: AtlasScope): Promise<number> {
  const params = new SqlParams()
  const where = ['d.state IS NOT NULL', ...patientConditions('d', filters, scope, params)]
  const codes = codeConditionSql('d.icd10_code', filters, params)
  if (codes) where.unshift(codes)
  const payers = ['commercial', 'medicare', 'medicaid', 'other']
    .map((payer) => `count(DISTINCT d.patient_id) FILTER (WHERE d.payer_type = '${payer}')::int AS "${payer}"`)
    .join(', ')
  const { rows } = await pool.query(
    `SELECT d.state AS id, count(DISTINCT d.patient_id)::int AS patients, ${payers}
     FROM mv_patient_diagnoses d WHERE ${where.join(' AND ')} GROUP BY d.state`,
    params.values,
  )
  return rows.length
}
