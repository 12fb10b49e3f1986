/**
 * Data platform benchmarks (issue 5). Prints measurements, medians and ratios; never passes or fails.
 *
 *   npm run bench -- generate [--scale ci|demo|full] [--seed N] [--no-load]
 *       generator speed per entity; then (unless --no-load) loads the scale into the database and reports
 *       load time and database size per table
 *   npm run bench -- encode [--scale ci|demo|full] [--seed N] [--providers N] [--patients N] [--facilities N]
 *       the generator threads' work on this thread (docs/decisions/0059): a sample of providers, patients
 *       (claims, diagnoses, lines, fills) and facility price lists generated and encoded as COPY text, exactly
 *       as seed-worker.ts does; CPU time (user + sys) per entity and per table, the estimate for the whole
 *       scale, and the md5 of each table's COPY text (equal digests = byte-identical rows)
 *   npm run bench -- typeahead [--requests 200] [--concurrency 1,8]
 *       p50/p95 latency of every look-up at each concurrency against the loaded database: the function on a pool,
 *       then over HTTP through a server the run starts (what a user waits for), with the ratio of the two
 *   npm run bench -- nova [--requests 200] [--concurrency 1,8]
 *       p50/p95 of atlas/tiles, insights/accounts and the facility insight over HTTP (wrk, or a worker thread)
 *       (bench/nova.ts; DATABASE_URL, else a scratch embedded database with the test dataset)
 *   npm run bench -- cost-transparency [--requests 200] [--concurrency 8]
 *       p50/p95 over HTTP of Price Check (uncached with _bypass_cache, cached) and of the provider cost page
 *   npm run bench -- atlas [--requests 200] [--concurrency 8]
 *       Atlas generic (STATE, COUNTY), a vector tile and drill-down pages through the app; API / raw SQL ratio
 *   npm run bench -- load [--seconds 600] [--concurrency 16]
 *       a mixed load over HTTP (logins, look-ups, data dictionary, admin reads, bad requests) against a server
 *       the run starts on 127.0.0.1 (a scratch in-memory embedded database with the test dataset, or
 *       DATABASE_URL); throughput, p50/p95 per kind, errors (unexpected statuses) and /readyz at the end
 *   npm run bench -- first-start [--scale ci|demo] [--interval-ms 250]
 *       what sign-in waits for while the first `npm start` loads the demo dataset (bench/first-start.ts): the load on
 *       a scratch embedded database and a sign-in query every 250 ms; per step, the median and longest wait
 *   npm run bench -- first-start-http [--interval-ms 250]
 *       sign-in over HTTP during a real first `npm start` (bench/first-start-http.ts): a fresh DATA_DIR, the demo
 *       load, the engines' warm-ups, then 30 s settled; per phase the median, p95 and longest sign-in
 *   npm run bench -- screens
 *       each screen's main answer on `npm start` (bench/screens.ts): demo data, demo users, cold and median of 5
 *   npm run bench -- bombs [--rounds text.docx,drawn.pdf,...]
 *       upload bombs (bench/bombs.ts): six of each kind at once through the AI Hub while /healthz is polled every
 *       50 ms; /healthz median/p95/max, each upload's answer and time, the RSS rise
 *   npm run bench -- rankings [--requests 200] [--concurrency 1,8]
 *       Care Select (bench/rankings.ts): rankings over HTTP (wrk, or a worker thread) against the loaded database
 *       (DATABASE_URL, else the embedded one): a common specialty in the densest metro and in a rural ZIP, with
 *       and without codes and carrier; p50/p95 per scenario and concurrency, the ratio API / (SQL + scoring) of
 *       the same search on the server's pool at concurrency 1, and the referral letter's p50/p95
 *
 *   npm run bench -- scale-out [--requests 200] [--rounds 2] [--concurrency 8] [--parts processes,replica,etag]
 *       [--replica-url postgres://…:5433/db]
 *       issue 34 side by side (bench/scale-out.ts; DATABASE_URL, PostgreSQL only): Care Connect searches scored afresh
 *       per second with 1 and 2 independent server processes; the primary's and the replica's CPU per search with and
 *       without DATABASE_REPLICA_URL (A/B rounds, /proc of each cluster's processes) and the statements still on the
 *       primary; a repeated answer with If-None-Match (304) and without it at concurrency 8
 *
 *   npm run bench -- engine-memory [--interval-ms 250] [--seconds 600]
 *       a built server process's RSS through its warm-ups, a first search and a new data version (bench/engine-memory.ts)
 *   npm run bench -- fhir [--requests 200] [--concurrency 1,8] [--max-pages 100000]
 *       the FHIR directory (bench/fhir.ts): Location?near, PractitionerRole?specialty&location.near and 1,000-row pages
 *       over HTTP, p50/p95 beside the raw SQL; PractitionerRole paged by next links and exported as NDJSON, per second
 *
 * The HTTP benchmarks send their requests with wrk when it is installed (Debian: apt-get install -y wrk), else from a
 * worker thread; `--load-generator node|wrk` chooses (bench/http-load.ts, docs/decisions/0071).
 *
 * Database: DATABASE_URL, else the embedded database of a running `npm start` (DATA_DIR), else the embedded
 * database in DATA_DIR started for the run. `generate` on the embedded database uses a scratch in-memory
 * instance unless --data-dir-db is given, so a benchmark never replaces the data of your data folder.
 */
import { createHash, randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { SCALES, SyntheticDataset, type Scale } from '@citrus/data-kit'
import type pg from 'pg'
import { buildApp } from '../apps/server/src/app.ts'
import { hashPassword } from '../apps/server/src/auth/password.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { seedDataset } from '../apps/server/src/data/seed.ts'
import { facilityPricesText, patientTexts, providerText } from '../apps/server/src/data/seed-rows.ts'
import { createDatabase, type Database } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { searchIcd10, searchProcedureCodes, searchProcedures, searchSpecialties } from '../apps/server/src/services/typeahead/lookups.ts'
import { MIGRATIONS_DIR, runningEmbeddedUrl, startRuntime } from '../apps/server/src/runtime.ts'
import { createBenchCompany, createBenchUser, startBenchServer, benchLoginToken } from './bench-server.ts'
import { benchAtlas, benchAtlasReadOnly } from './atlas.ts'
import { benchCostTransparency } from './cost-transparency.ts'
import { benchNova } from './nova.ts'
import { benchEngineMemory } from './engine-memory.ts'
import { benchRankings } from './rankings.ts'
import { benchFhir } from './fhir.ts'
import { benchFirstStart } from './first-start.ts'
import { benchFirstStartHttp } from './first-start-http.ts'
import { benchBombs } from './bombs.ts'
import { benchScaleOut, SCALE_OUT_PARTS } from './scale-out.ts'
import { benchScreens } from './screens.ts'
import { loadGenerator, ms, quantileOf, runHttpLoad, setLoadGenerator } from './http-load.ts'

const fmt = new Intl.NumberFormat('en-US')
const n = (x: number) => fmt.format(Math.round(x))
const mib = (bytes: number) => `${(bytes / (1 << 20)).toFixed(1)} MiB`

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[i]!
}

/** The database to benchmark against, and how to let it go. */
interface BenchDatabase {
  db: Database
  /** the connection string, for a server the bench starts on the same database */
  url: string
  kind: 'embedded' | 'postgres'
  mode: string
  close(): Promise<void>
}

async function openDatabase(options: { scratch: boolean }): Promise<BenchDatabase> {
  const env = loadEnv()
  if (env.DATABASE_URL) {
    await applyMigrations(env.DATABASE_URL, MIGRATIONS_DIR)
    const db = createDatabase(env.DATABASE_URL, { maxConnections: 10 })
    return { db, url: env.DATABASE_URL, kind: 'postgres', mode: 'PostgreSQL (DATABASE_URL)', close: () => db.close() }
  }
  if (options.scratch) {
    const embedded = await startEmbeddedPostgres({})
    await applyMigrations(embedded.url, MIGRATIONS_DIR)
    const db = createDatabase(embedded.url, { maxConnections: 10 })
    const close = async () => (await db.close(), await embedded.stop())
    return { db, url: embedded.url, kind: 'embedded', mode: 'embedded PGlite (scratch, in memory)', close }
  }
  const running = runningEmbeddedUrl(env)
  if (running) {
    const db = createDatabase(running, { maxConnections: 10 })
    return { db, url: running, kind: 'embedded', mode: 'embedded PGlite (running server)', close: () => db.close() }
  }
  const runtime = await startRuntime(env)
  const url = runtime.config.databaseUrl
  const db = createDatabase(url, { maxConnections: 10 })
  return {
    db,
    url,
    kind: 'embedded',
    mode: `embedded PGlite (${env.DATA_DIR})`,
    close: async () => (await db.close(), await runtime.stop()),
  }
}

async function time<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now()
  const value = await fn()
  return [value, performance.now() - start]
}

async function benchGenerate(scaleName: Scale['name'], seed: number, load: boolean, scratch: boolean) {
  const scale = SCALES[scaleName]
  console.log(
    `Generator, scale ${scaleName} (seed ${seed}): ${n(scale.providers)} providers, ${n(scale.patients)} patients, ${scale.claim_years} claim years`,
  )
  const [ds, init] = await time(() => new SyntheticDataset({ seed, scale: scaleName }))
  const rows: [string, number, number][] = []
  const report = (label: string, k: number, took: number) => {
    rows.push([label, k, took])
    console.log(
      `  ${label.padEnd(34)} ${n(k).padStart(12)} rows  ${ms(took / 1000).padStart(7)} s  ${n((k * 1000) / Math.max(took, 1)).padStart(10)} rows/s`,
    )
  }
  report('setup (ZIPs, systems, facilities)', ds.facilities.length + ds.healthSystems.length, init)
  const count = async (label: string, it: AsyncIterable<unknown>) => {
    let k = 0
    const [, took] = await time(async () => {
      for await (const _ of it) k++
    })
    report(label, k, took)
  }
  await count('providers', ds.providers())
  let claims = 0
  let lines = 0
  const [, claimTime] = await time(async () => {
    for await (const p of ds.patients()) {
      for (const b of ds.claimsOfPatient(p)) {
        claims++
        lines += b.diagnoses.length + b.procedures.length
      }
      lines += ds.pharmacyOfPatient(p).length
    }
  })
  report('patients + claims (+ lines, fills)', scale.patients + claims + lines, claimTime)
  await count('snakebite cases', ds.snakebites())
  await count('facility price rows', ds.prices())
  const [purchases, pTime] = await time(() => ds.antivenomPurchases())
  report('antivenom purchases', purchases.length, pTime)
  const total = rows.reduce((a, [, k]) => a + k, 0)
  const totalMs = rows.reduce((a, [, , took]) => a + took, 0)
  console.log(
    `  ${'generation total'.padEnd(34)} ${n(total).padStart(12)} rows  ${ms(totalMs / 1000).padStart(7)} s  ${n((total * 1000) / totalMs).padStart(10)} rows/s`,
  )
  if (!load) return

  const target = await openDatabase({ scratch })
  try {
    console.log(`\nLoad into ${target.mode}`)
    const [summary, loadMs] = await time(() => seedDataset(target.db.pool, { scale: scaleName, seed, method: loadEnv().DATA_LOAD_METHOD }))
    const loaded = Object.values(summary.counts).reduce((a, b) => a + b, 0)
    console.log(
      `  loaded ${n(loaded)} rows in ${ms(loadMs / 1000)} s (${n((loaded * 1000) / loadMs)} rows/s end to end, ${summary.method})`,
    )
    console.log(`  generation share of the load: ${((totalMs / loadMs) * 100).toFixed(0)}%`)
    await printSizes(target.db.pool)
  } finally {
    await target.close()
  }
}

/** CPU time of this process (user + sys) in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * The generator threads' work (seed-worker.ts) on this thread for a sample of each kind: CPU per entity and
 * per table, the estimate for the whole scale, and the md5 of each table's COPY text. Hashing runs outside
 * the timed spans (text is hashed in ~256 KB batches, as the threads post it).
 */
async function benchEncode(scaleName: Scale['name'], seed: number, sample: { providers: number; patients: number; facilities: number }) {
  const scale = SCALES[scaleName]
  console.log(`Generator threads' work (generate + COPY text), scale ${scaleName} (seed ${seed}); CPU = user + sys of this process`)
  const setupStart = cpuMs()
  const ds = new SyntheticDataset({ seed, scale: scaleName })
  const setup = cpuMs() - setupStart
  const indexStart = cpuMs()
  ds.kindOfProvider(0)
  const providerIndex = cpuMs() - indexStart
  console.log(
    `  dataset setup ${ms(setup / 1000)} s CPU (every thread); provider index for claims ${ms(providerIndex / 1000)} s CPU (every claims thread)`,
  )
  const hashes = new Map<string, { hash: ReturnType<typeof createHash>; rows: number; bytes: number }>()
  const digest = (table: string, text: string, rows: number) => {
    let h = hashes.get(table)
    if (!h) hashes.set(table, (h = { hash: createHash('md5'), rows: 0, bytes: 0 }))
    h.hash.update(text)
    h.rows += rows
    h.bytes += Buffer.byteLength(text)
  }
  const BATCH = 1 << 18
  const runKind = (
    label: string,
    count: number,
    total: number,
    encode: (i: number, out: Map<string, { text: string; rows: number }>) => void,
  ) => {
    let cpu = 0
    const pending = new Map<string, { text: string; rows: number }>()
    const flush = () => {
      for (const [table, p] of pending) digest(table, p.text, p.rows)
      pending.clear()
    }
    let size = 0
    for (let i = 0; i < count;) {
      const started = cpuMs()
      for (; i < count && size < BATCH; i++) {
        encode(i, pending)
        size = 0
        for (const p of pending.values()) size += p.text.length
      }
      cpu += cpuMs() - started
      flush()
      size = 0
    }
    const per = (cpu * 1000) / Math.max(1, count)
    console.log(
      `  ${label.padEnd(26)} ${n(count).padStart(9)} of ${n(total).padStart(10)}  ${ms(cpu / 1000).padStart(7)} s CPU  ${per.toFixed(2).padStart(8)} µs each  → whole scale ${ms((per * total) / 1e6).padStart(7)} s CPU`,
    )
  }
  const add = (out: Map<string, { text: string; rows: number }>, table: string, text: string, rows: number) => {
    if (rows === 0) return
    const p = out.get(table)
    if (p) {
      p.text += text
      p.rows += rows
    } else out.set(table, { text, rows })
  }
  runKind('providers', Math.min(sample.providers, scale.providers), scale.providers, (i, out) =>
    add(out, 'providers', providerText(ds, i), 1),
  )
  const facilityIdByNpi = new Map(ds.facilities.map((f) => [f.npi, f.id]))
  runKind('patients (claims, spills)', Math.min(sample.patients, scale.patients), scale.patients, (i, out) => {
    const t = patientTexts(ds, i, facilityIdByNpi)
    add(out, 'claims', t.claims, t.claimRows)
    add(out, 'claim_diagnoses', t.diagnoses, t.diagnosisRows)
    add(out, 'claim_procedures', t.lines, t.lineRows)
    add(out, 'pharmacy_claims', t.fills, t.fillRows)
  })
  // facilities are ordered by type: an even spread over all of them
  const facilitySample = Math.min(sample.facilities, ds.facilities.length)
  runKind('facilities (price lists)', facilitySample, ds.facilities.length, (i, out) => {
    const t = facilityPricesText(ds, ds.facilities[Math.floor((i * ds.facilities.length) / facilitySample)]!)
    add(out, 'facility_prices', t.text, t.rows)
  })
  console.log('  COPY text of the sample:')
  for (const [table, h] of hashes)
    console.log(`    ${table.padEnd(18)} ${n(h.rows).padStart(10)} rows  ${mib(h.bytes).padStart(10)}  md5 ${h.hash.digest('hex')}`)
}

async function printSizes(pool: pg.Pool) {
  const { rows } = await pool.query<{ name: string; kind: string; rows: string; total: string; indexes: string }>(
    `SELECT c.relname AS name, c.relkind::text AS kind, c.reltuples::bigint::text AS rows,
            pg_total_relation_size(c.oid)::text AS total, pg_indexes_size(c.oid)::text AS indexes
     FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace AND ns.nspname = 'public'
     WHERE c.relkind IN ('r', 'm') AND pg_total_relation_size(c.oid) > 1048576
     ORDER BY pg_total_relation_size(c.oid) DESC`,
  )
  const { rows: db } = await pool.query<{ size: string }>('SELECT pg_database_size(current_database())::text AS size')
  console.log(`  database size ${mib(Number(db[0]!.size))}; largest relations (total, of which indexes):`)
  for (const r of rows.slice(0, 16))
    console.log(
      `    ${r.name.padEnd(32)} ${n(Number(r.rows)).padStart(12)} rows  ${mib(Number(r.total)).padStart(11)}  ${mib(Number(r.indexes)).padStart(11)}${r.kind === 'm' ? '  (materialised view)' : ''}`,
    )
}

/** Realistic typed text: codes, prefixes, words, typos. */
const WORKLOAD: Record<string, { run: (pool: pg.Pool, q: string) => Promise<unknown[]>; queries: string[] }> = {
  'icd10-fuzzy': {
    run: (pool, q) => searchIcd10(pool, q, 10),
    queries: [
      'E11.9',
      'e11',
      'diabtes',
      'type 2 diabetes',
      'hypertenshun',
      'I10',
      'asthma',
      'copd',
      'M17',
      'knee osteoarthritis',
      'T63.0',
      'rattlesnake',
      'depresion',
      'J45.909',
      'heart failure',
      'N18',
    ],
  },
  'cpt-fuzzy': {
    run: (pool, q) => searchProcedureCodes(pool, q, 10),
    queries: [
      '99213',
      '9921',
      'office visit',
      'knee replacment',
      '27447',
      'mri',
      'colonoscopy',
      'J0840',
      'antivenom',
      'G04',
      'blood test',
      'ekg',
    ],
  },
  'procedure-typeahead': {
    run: (pool, q) => searchProcedures(pool, q, 10),
    queries: [
      '2744',
      'knee',
      'colonoscpy',
      'mri brain',
      '45378',
      'hip replacement',
      'mammogram',
      'physical therapy',
      'ct scan',
      'cataract',
    ],
  },
  omni: {
    run: (pool, q) => searchSpecialties(pool, q, 10),
    queries: [
      '',
      'famly medicine',
      'cardio',
      '207RE0101X',
      'pediatrics',
      'orthopedic',
      'nurse practitioner',
      'psych',
      'dermatology',
      '207Q',
    ],
  },
}

/** Runs task(0 .. count-1) with `concurrency` of them in flight at a time. */
async function atConcurrency(concurrency: number, count: number, task: (i: number) => Promise<unknown>) {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await task(i)
    }),
  )
}

async function benchTypeahead(requests: number, levels: number[]) {
  const target = await openDatabase({ scratch: false })
  try {
    const { rows } = await target.db.pool.query<{ providers: string; codes: string }>(
      `SELECT (SELECT count(*) FROM providers)::text AS providers, (SELECT count(*) FROM icd10_codes)::text AS codes`,
    )
    console.log(
      `Typeahead against ${target.mode}: ${n(Number(rows[0]!.providers))} providers, ${n(Number(rows[0]!.codes))} ICD-10-CM codes; ${requests} requests per look-up and concurrency`,
    )
    // warm-up at the highest concurrency: caches, and the named statements on every pooled connection (each
    // plans once), as on a server that has been answering for a while
    const width = Math.max(...levels)
    for (const w of Object.values(WORKLOAD))
      await atConcurrency(width, w.queries.length * width * 2, (i) => w.run(target.db.pool, w.queries[i % w.queries.length]!))
    const medians: Record<string, Record<number, number>> = {}
    for (const [name, w] of Object.entries(WORKLOAD)) {
      medians[name] = {}
      for (const c of levels) {
        const latencies: number[] = []
        const started = performance.now()
        await atConcurrency(c, requests, async (i) => {
          const t = performance.now()
          await w.run(target.db.pool, w.queries[i % w.queries.length]!)
          latencies.push(performance.now() - t)
        })
        const wall = performance.now() - started
        latencies.sort((a, b) => a - b)
        const p50 = quantile(latencies, 0.5)
        medians[name]![c] = p50
        console.log(
          `  ${name.padEnd(20)} concurrency ${String(c).padStart(2)}: p50 ${ms(p50).padStart(6)} ms  p95 ${ms(quantile(latencies, 0.95)).padStart(6)} ms  ${n((requests * 1000) / wall).padStart(6)} req/s`,
        )
      }
    }
    if (levels.length > 1) {
      const [low, high] = [levels[0]!, levels[levels.length - 1]!]
      console.log(`\n  p50 ratio, concurrency ${high} / ${low} (1 = no slowdown under load):`)
      for (const [name, m] of Object.entries(medians)) console.log(`    ${name.padEnd(20)} ${(m[high]! / m[low]!).toFixed(2)}`)
    }
    await typeaheadOverHttp(target, requests, levels, medians)
  } finally {
    await target.close()
  }
}

/**
 * What a user waits for: the same look-ups over HTTP (GET /api/typeahead/<name>?query=…&limit=10 with a login token)
 * against a server the run starts on the same database, sent by wrk or a worker thread (bench/http-load.ts), after an
 * untimed round of the same requests; each beside the function's own p50 above (the request's cost: credential
 * check, data version, contract, JSON, HTTP; the look-ups are not rate limited).
 */
async function typeaheadOverHttp(
  target: BenchDatabase,
  requests: number,
  levels: number[],
  medians: Record<string, Record<number, number>>,
) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const company = await createBenchCompany(target.db, 'Bench typeahead', [])
  const user = await createBenchUser(target.db, company.id, 'user')
  const { app, base } = await startBenchServer(env, target.url, target.kind)
  try {
    const token = benchLoginToken(app, user, company)
    const headers = { authorization: `Bearer ${token}` }
    console.log(`\n  over HTTP (load generator ${loadGenerator()}), p50 / p95 and the API / function p50 ratio:`)
    for (const [name, w] of Object.entries(WORKLOAD)) {
      const list = Array.from({ length: requests }, (_, i) => ({
        path: `/api/typeahead/${name}?query=${encodeURIComponent(w.queries[i % w.queries.length]!)}&limit=10`,
        headers,
      }))
      for (const c of levels) {
        await runHttpLoad(base, list, c)
        const { latencies, throughput } = await runHttpLoad(base, list, c)
        const p50 = quantileOf(latencies, 0.5)
        console.log(
          `  ${name.padEnd(20)} concurrency ${String(c).padStart(2)}: p50 ${ms(p50).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms  ${n(throughput).padStart(6)} req/s  API / function ${(p50 / medians[name]![c]!).toFixed(2)}  (load ${loadavg()[0]!.toFixed(2)})`,
        )
      }
    }
  } finally {
    await app.close()
  }
}

/** One kind of request of the mixed load: what it sends and which statuses are right answers. */
interface LoadKind {
  name: string
  weight: number
  expect: number[]
  send(base: string): Promise<Response>
}

async function benchLoad(seconds: number, concurrency: number) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const embedded = env.DATABASE_URL ? null : await startEmbeddedPostgres({})
  const databaseUrl = env.DATABASE_URL ?? embedded!.url
  const mode = embedded ? 'embedded PGlite (scratch, in memory)' : 'PostgreSQL (DATABASE_URL)'
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 4 })
  await ensureTestDataset(db.pool, databaseUrl)
  const password = `Load#${randomUUID().slice(0, 8)}`
  const passwordHash = await hashPassword(password)
  const company = await createBenchCompany(db, 'Load', ['ATLAS', 'CARE_SELECT'])
  const accounts = await Promise.all(
    (['admin', 'user'] as const).map((role) => createBenchUser(db, company.id, role, { prefix: `load-${role}`, passwordHash })),
  )
  await db.close()
  const app = await buildApp(
    {
      env,
      databaseUrl,
      databaseMode: embedded ? 'embedded' : 'postgres',
      jwtSecret: randomUUID() + randomUUID(),
      migrationsDir: MIGRATIONS_DIR,
      webDistDir: null,
    },
    { logger: false, warmConnections: true },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const login = (email: string, pass: string) =>
    fetch(`${base}/api/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: pass }),
    })
  const tokenOf = async (email: string) => ((await (await login(email, password)).json()) as { token: string }).token
  const [adminToken, userToken] = await Promise.all(accounts.map((a) => tokenOf(a.email)))
  const get = (path: string, token: string | null) =>
    fetch(`${base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {})
  const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!
  const lookup = (name: string, path: string, queries: string[]): LoadKind => ({
    name,
    weight: 3,
    expect: [200],
    send: () => get(`/api${path}?query=${encodeURIComponent(pick(queries))}&limit=10`, userToken!),
  })
  const kinds: LoadKind[] = [
    { name: 'login', weight: 1, expect: [200], send: () => login(pick(accounts).email, password) },
    lookup('icd10-fuzzy', '/typeahead/icd10-fuzzy', WORKLOAD['icd10-fuzzy']!.queries),
    lookup('cpt-fuzzy', '/typeahead/cpt-fuzzy', WORKLOAD['cpt-fuzzy']!.queries),
    lookup('procedure-typeahead', '/typeahead/procedure-typeahead', WORKLOAD['procedure-typeahead']!.queries),
    lookup('omni', '/typeahead/omni', WORKLOAD.omni!.queries),
    { name: 'data dictionary', weight: 1, expect: [200], send: () => get('/api/data-dictionary', userToken!) },
    {
      name: 'admin reads',
      weight: 2,
      expect: [200],
      send: () => get(pick(['/api/admin/active-seats', '/api/admin/product-usage']), adminToken!),
    },
    // refused requests: a NUL byte in the e-mail (400, or 429 once the address has failed too often),
    // no token, a body that is not JSON
    {
      name: 'bad: NUL e-mail',
      weight: 1,
      expect: [400, 401, 429],
      send: () => login(`load-${randomUUID().slice(0, 8)}\u0000@bench.citrus`, password),
    },
    { name: 'bad: no token', weight: 1, expect: [401], send: () => get('/api/typeahead/icd10-fuzzy?query=knee', null) },
    {
      name: 'bad: broken JSON',
      weight: 1,
      expect: [400],
      send: () => fetch(`${base}/api/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":' }),
    },
  ]
  const wheel = kinds.flatMap((kind) => Array.from({ length: kind.weight }, () => kind))
  const latencies = new Map<string, number[]>(kinds.map((k) => [k.name, []]))
  const errors = new Map<string, number>()
  const deadline = performance.now() + seconds * 1000
  console.log(`Mixed load against ${mode} at concurrency ${concurrency} for ${seconds} s (${base})`)
  let done = 0
  const progress = setInterval(
    () => console.log(`  ... ${n(done)} requests, ${[...errors.values()].reduce((a, b) => a + b, 0)} errors`),
    30_000,
  )
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = worker; performance.now() < deadline; i += concurrency) {
        const kind = wheel[i % wheel.length]!
        const t = performance.now()
        let outcome: string | null
        try {
          const response = await kind.send(base)
          await response.arrayBuffer()
          outcome = kind.expect.includes(response.status) ? null : `${kind.name}: status ${response.status}`
        } catch (error) {
          outcome = `${kind.name}: ${error instanceof Error ? error.message : String(error)}`
        }
        latencies.get(kind.name)!.push(performance.now() - t)
        if (outcome) errors.set(outcome, (errors.get(outcome) ?? 0) + 1)
        done++
      }
    }),
  )
  clearInterval(progress)
  const wall = (performance.now() - started) / 1000
  console.log(`  ${n(done)} requests in ${wall.toFixed(0)} s: ${n(done / wall)} req/s`)
  for (const [name, list] of latencies) {
    list.sort((a, b) => a - b)
    console.log(
      `  ${name.padEnd(20)} ${n(list.length).padStart(8)}  p50 ${ms(quantile(list, 0.5)).padStart(6)} ms  p95 ${ms(quantile(list, 0.95)).padStart(6)} ms`,
    )
  }
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0)
  console.log(`  errors: ${errorCount}`)
  for (const [what, count] of errors) console.log(`    ${count} × ${what}`)
  const ready = await fetch(`${base}/readyz`)
  const health = await fetch(`${base}/healthz`)
  console.log(`  /readyz ${ready.status} ${JSON.stringify(await ready.json())}; /healthz ${health.status}`)
  await app.close()
  await embedded?.stop()
  if (errorCount > 0 || ready.status !== 200) process.exitCode = 1
}

async function main() {
  const [command, ...rest] = process.argv.slice(2)
  const { values } = parseArgs({
    args: rest,
    options: {
      scale: { type: 'string', default: 'demo' },
      seed: { type: 'string', default: '20251231' },
      'no-load': { type: 'boolean', default: false },
      'data-dir-db': { type: 'boolean', default: false },
      requests: { type: 'string', default: '200' },
      concurrency: { type: 'string' },
      seconds: { type: 'string', default: '600' },
      'read-only': { type: 'boolean', default: false },
      providers: { type: 'string', default: '100000' },
      patients: { type: 'string', default: '20000' },
      facilities: { type: 'string', default: '5000' },
      'load-generator': { type: 'string' },
      'max-pages': { type: 'string', default: '100000' },
      'interval-ms': { type: 'string', default: '250' },
      rounds: { type: 'string' },
      parts: { type: 'string' },
      'replica-url': { type: 'string' },
    },
    strict: true,
  })
  const generator = values['load-generator']
  if (generator !== undefined && generator !== 'wrk' && generator !== 'node') throw new Error('--load-generator takes wrk or node')
  setLoadGenerator(generator ?? null)
  if (command === 'generate') {
    const scale = values.scale as Scale['name']
    if (!(scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`)
    await benchGenerate(scale, Number(values.seed), !values['no-load'], !values['data-dir-db'])
  } else if (command === 'encode') {
    const scale = values.scale as Scale['name']
    if (!(scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`)
    const sample = { providers: Number(values.providers), patients: Number(values.patients), facilities: Number(values.facilities) }
    if (Object.values(sample).some((v) => !Number.isInteger(v) || v < 0))
      throw new Error('--providers, --patients and --facilities take whole numbers')
    await benchEncode(scale, Number(values.seed), sample)
  } else if (command === 'typeahead') {
    const levels = (values.concurrency ?? '1,8').split(',').map(Number)
    if (levels.some((l) => !Number.isInteger(l) || l < 1)) throw new Error('--concurrency takes whole numbers, e.g. 1,8')
    await benchTypeahead(Number(values.requests), levels)
  } else if (command === 'nova') {
    const levels = (values.concurrency ?? '1,8').split(',').map(Number)
    if (levels.some((l) => !Number.isInteger(l) || l < 1)) throw new Error('--concurrency takes whole numbers, e.g. 1,8')
    await benchNova(Number(values.requests), levels)
  } else if (command === 'cost-transparency') {
    const concurrency = Number(values.concurrency ?? '8')
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency takes a whole number, e.g. 8')
    await benchCostTransparency(Number(values.requests), concurrency)
  } else if (command === 'atlas') {
    if (values['read-only']) await benchAtlasReadOnly(Number(values.requests), Number(values.concurrency ?? '8'))
    else await benchAtlas(Number(values.requests), Number(values.concurrency ?? '8'))
  } else if (command === 'rankings') {
    const levels = (values.concurrency ?? '1,8').split(',').map(Number)
    if (levels.some((l) => !Number.isInteger(l) || l < 1)) throw new Error('--concurrency takes whole numbers, e.g. 1,8')
    await benchRankings(Number(values.requests), levels)
  } else if (command === 'screens') {
    await benchScreens({ repeats: 5 })
  } else if (command === 'first-start') {
    const scale = values.scale as Scale['name']
    if (scale !== 'ci' && scale !== 'demo') throw new Error('--scale must be ci or demo (what a first start loads)')
    await benchFirstStart({ scale, intervalMs: Number(values['interval-ms']) })
  } else if (command === 'first-start-http') {
    await benchFirstStartHttp({ intervalMs: Number(values['interval-ms']) })
  } else if (command === 'bombs') {
    await benchBombs({ rounds: values.rounds ? values.rounds.split(',') : null })
  } else if (command === 'scale-out') {
    const parts = new Set((values.parts ?? SCALE_OUT_PARTS.join(',')).split(','))
    const unknown = [...parts].filter((part) => !(SCALE_OUT_PARTS as readonly string[]).includes(part))
    if (unknown.length > 0) throw new Error(`--parts takes ${SCALE_OUT_PARTS.join(', ')} (not ${unknown.join(', ')})`)
    const [requests, rounds, concurrency] = [Number(values.requests), Number(values.rounds ?? '2'), Number(values.concurrency ?? '8')]
    if ([requests, rounds, concurrency].some((v) => !Number.isInteger(v) || v < 1))
      throw new Error('--requests, --rounds and --concurrency take whole numbers')
    const replicaUrl = values['replica-url'] ?? loadEnv().DATABASE_REPLICA_URL?.join(',') ?? null
    await benchScaleOut({ requests, rounds, concurrency, parts, replicaUrl })
  } else if (command === 'engine-memory') {
    await benchEngineMemory({ intervalMs: Number(values['interval-ms']), seconds: Number(values.seconds) })
  } else if (command === 'fhir') {
    const levels = (values.concurrency ?? '1,8').split(',').map(Number)
    if (levels.some((l) => !Number.isInteger(l) || l < 1)) throw new Error('--concurrency takes whole numbers, e.g. 1,8')
    await benchFhir(Number(values.requests), levels, { maxPages: Number(values['max-pages']) })
  } else if (command === 'load') {
    const concurrency = Number(values.concurrency ?? '16')
    const seconds = Number(values.seconds)
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency takes a whole number, e.g. 16')
    if (!(seconds > 0)) throw new Error('--seconds takes a positive number, e.g. 600')
    await benchLoad(seconds, concurrency)
  } else {
    console.log(
      'Usage: npm run bench -- generate [--scale ci|demo|full] [--seed N] [--no-load] | encode [--scale ci|demo|full] [--providers N] [--patients N] [--facilities N] | typeahead [--requests 200] [--concurrency 1,8] | cost-transparency [--requests 200] [--concurrency 8] | nova [--requests 200] [--concurrency 1,8] | rankings [--requests 200] [--concurrency 1,8] | atlas [--requests 200] [--concurrency 8] [--read-only] | load [--seconds 600] [--concurrency 16] | first-start [--scale ci|demo] [--interval-ms 250] | first-start-http [--interval-ms 250] | bombs [--rounds kind,...] | scale-out [--requests 200] [--rounds 2] [--concurrency 8] [--parts processes,replica,etag] [--replica-url URL]; HTTP benches: [--load-generator wrk|node]',
    )
    process.exitCode = command ? 2 : 0
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
