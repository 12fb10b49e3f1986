/**
 * Data platform benchmarks (issue 5). Prints measurements, medians and ratios; never passes or fails.
 *
 *   npm run bench -- generate [--scale ci|demo|full] [--seed N] [--no-load]
 *       generator speed per entity; then (unless --no-load) loads the scale into the database and reports
 *       load time and database size per table
 *   npm run bench -- typeahead [--requests 200] [--concurrency 1,8]
 *       p50/p95 latency of every look-up at each concurrency against the loaded database
 *   npm run bench -- nova [--requests 200] [--concurrency 1,8]
 *       p50/p95 of atlas/tiles, insights/accounts and the facility insight over HTTP from a worker thread
 *       (bench/nova.ts; DATABASE_URL, else a scratch embedded database with the test dataset)
 *   npm run bench -- cost-transparency [--requests 200] [--concurrency 8]
 *       p50/p95 over HTTP of Price Check (uncached with _bypass_cache, cached) and of the provider cost page
 *   npm run bench -- atlas [--requests 200] [--concurrency 8]
 *       Atlas generic (STATE, COUNTY), a vector tile and drill-down pages through the app; API / raw SQL ratio
 *   npm run bench -- load [--seconds 600] [--concurrency 16]
 *       a mixed load over HTTP (logins, look-ups, data dictionary, admin reads, bad requests) against a server
 *       the run starts on 127.0.0.1 (a scratch in-memory embedded database with the test dataset, or
 *       DATABASE_URL); throughput, p50/p95 per kind, errors (unexpected statuses) and /readyz at the end
 *   npm run bench -- rankings [--requests 200] [--concurrency 1,8]
 *       Care Select rankings over HTTP against the loaded database (DATABASE_URL, else the embedded one):
 *       a common specialty in the densest metro and in a rural ZIP, with and without codes and carrier;
 *       p50/p95 per scenario and concurrency, the ratio API / raw SQL of the same search on the same pool at
 *       concurrency 1, and the referral letter's p95
 *
 * Database: DATABASE_URL, else the embedded database of a running `npm start` (DATA_DIR), else the embedded
 * database in DATA_DIR started for the run. `generate` on the embedded database uses a scratch in-memory
 * instance unless --data-dir-db is given, so a benchmark never replaces the data of your data folder.
 */
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { SCALES, SyntheticDataset, type Scale } from '@citrus/data-kit'
import type pg from 'pg'
import { buildApp } from '../apps/server/src/app.ts'
import { hashPassword } from '../apps/server/src/auth/password.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { seedDataset } from '../apps/server/src/data/seed.ts'
import { createDatabase, type Database } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { searchIcd10, searchProcedureCodes, searchProcedures, searchSpecialties } from '../apps/server/src/routes/typeahead/lookups.ts'
import { MIGRATIONS_DIR, runningEmbeddedUrl, startRuntime } from '../apps/server/src/runtime.ts'
import { newActivationKey } from '../apps/server/src/seed/demo-accounts.ts'
import { rankProviders, resolveSearch } from '../apps/server/src/routes/care-select/rankings.ts'
import { rankingsQuerySchema } from '../packages/contracts/src/index.ts'
import { benchAtlas, benchAtlasReadOnly } from './atlas.ts'
import { benchCostTransparency } from './cost-transparency.ts'
import { benchNova } from './nova.ts'

const fmt = new Intl.NumberFormat('en-US')
const n = (x: number) => fmt.format(Math.round(x))
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0))
const mib = (bytes: number) => `${(bytes / (1 << 20)).toFixed(1)} MiB`

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[i]!
}

/** The database to benchmark against, and how to let it go. */
async function openDatabase(options: { scratch: boolean }): Promise<{ db: Database; mode: string; close(): Promise<void> }> {
  const env = loadEnv()
  if (env.DATABASE_URL) {
    await applyMigrations(env.DATABASE_URL, MIGRATIONS_DIR)
    const db = createDatabase(env.DATABASE_URL, { maxConnections: 10 })
    return { db, mode: 'PostgreSQL (DATABASE_URL)', close: () => db.close() }
  }
  if (options.scratch) {
    const embedded = await startEmbeddedPostgres({})
    await applyMigrations(embedded.url, MIGRATIONS_DIR)
    const db = createDatabase(embedded.url, { maxConnections: 10 })
    return { db, mode: 'embedded PGlite (scratch, in memory)', close: async () => (await db.close(), await embedded.stop()) }
  }
  const running = runningEmbeddedUrl(env)
  if (running) {
    const db = createDatabase(running, { maxConnections: 10 })
    return { db, mode: 'embedded PGlite (running server)', close: () => db.close() }
  }
  const runtime = await startRuntime(env)
  const db = createDatabase(runtime.config.databaseUrl, { maxConnections: 10 })
  return { db, mode: `embedded PGlite (${env.DATA_DIR})`, close: async () => (await db.close(), await runtime.stop()) }
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
  } finally {
    await target.close()
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
  const company = await db.prisma.company.create({
    data: {
      company_name: `Load ${randomUUID().slice(0, 6)}`,
      industry: 'Healthcare',
      renewal_cycle_days: 30,
      activation_key: newActivationKey(),
      policies: {
        create: [
          { product_group: 'ATLAS', limit: null },
          { product_group: 'CARE_SELECT', limit: null },
        ],
      },
    },
  })
  const accounts = await Promise.all(
    (['admin', 'user'] as const).map((role) =>
      db.prisma.user.create({
        data: { email: `load-${role}-${randomUUID().slice(0, 8)}@bench.citrus`, role, company_id: company.id, password_hash: passwordHash },
      }),
    ),
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
    { logger: false },
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

/** Care Select rankings (issue 11): HTTP latency per scenario and concurrency, and the API / raw SQL ratio. */
async function benchRankings(requests: number, levels: number[]) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const target = await openDatabase({ scratch: false })
  const pool = target.db.pool
  const databaseUrl = env.DATABASE_URL ?? runningEmbeddedUrl(env)
  if (!databaseUrl) throw new Error('rankings needs DATABASE_URL or a running embedded server (npm start)')
  // a common specialty; its densest ZIP (most of its providers within 30 miles) and a rural ZIP that has some
  const common = (
    await pool.query<{ code: string; n: number }>(
      `SELECT primary_taxonomy_code AS code, count(*)::int AS n FROM providers WHERE primary_taxonomy_code = '207Q00000X' GROUP BY 1`,
    )
  ).rows[0]
  const taxonomy = common?.code ?? '207Q00000X'
  const dense = (
    await pool.query<{ zip: string }>(
      `SELECT zip_code AS zip FROM providers WHERE primary_taxonomy_code = $1 GROUP BY zip_code ORDER BY count(*) DESC, 1 LIMIT 1`,
      [taxonomy],
    )
  ).rows[0]!.zip
  const rural =
    (
      await pool.query<{ zip: string }>(
        `SELECT z.zip FROM zips z JOIN providers p ON p.zip_code = z.zip AND p.primary_taxonomy_code = $1
       WHERE z.state IN ('MT', 'WY', 'ND', 'SD', 'NE', 'KS') GROUP BY z.zip ORDER BY count(*), 1 LIMIT 1`,
        [taxonomy],
      )
    ).rows[0]?.zip ?? dense
  const top = await pool.query<{ code_kind: string; code: string }>(
    `SELECT DISTINCT ON (code_kind) code_kind, code FROM (
       SELECT v.code_kind, v.code, sum(v.claim_count) AS n FROM mv_provider_code_volume v JOIN providers p ON p.npi = v.npi
       WHERE p.primary_taxonomy_code = $1 AND p.zip_code = $2 GROUP BY 1, 2) t ORDER BY code_kind, n DESC`,
    [taxonomy, dense],
  )
  const cpt = top.rows.find((r) => r.code_kind === 'procedure')?.code ?? '99213'
  const icd = top.rows.find((r) => r.code_kind === 'icd10')?.code ?? 'I10'
  const insurer =
    (await pool.query<{ name: string }>(`SELECT name FROM insurers WHERE kind = 'commercial' ORDER BY name LIMIT 1`)).rows[0]?.name ??
    'Aetna'
  const scenarios: Record<string, Record<string, string>> = {
    metro: { zip_code: dense, omni_code: taxonomy },
    'metro codes+carrier': {
      zip_code: dense,
      omni_code: taxonomy,
      cpt_union_csv: cpt,
      icd10_cm_union_csv: icd,
      insurance_names_csv: insurer,
    },
    rural: { zip_code: rural, omni_code: taxonomy },
    'rural codes+carrier': {
      zip_code: rural,
      omni_code: taxonomy,
      cpt_union_csv: cpt,
      icd10_cm_union_csv: icd,
      insurance_names_csv: insurer,
    },
  }
  const company = await target.db.prisma.company.create({
    data: {
      company_name: `Bench ${randomUUID().slice(0, 6)}`,
      industry: 'Healthcare',
      renewal_cycle_days: 30,
      activation_key: newActivationKey(),
      policies: { create: [{ product_group: 'CARE_SELECT', limit: null }] },
    },
  })
  const user = await target.db.prisma.user.create({
    data: {
      email: `bench-${randomUUID().slice(0, 8)}@bench.citrus`,
      role: 'user',
      company_id: company.id,
      password_hash: await hashPassword(randomUUID()),
    },
  })
  const jwtSecret = randomUUID() + randomUUID()
  const app = await buildApp(
    {
      env,
      databaseUrl,
      databaseMode: env.DATABASE_URL ? 'postgres' : 'embedded',
      jwtSecret,
      migrationsDir: MIGRATIONS_DIR,
      webDistDir: null,
    },
    { logger: false },
  )
  await app.ready()
  const token = app.tokens.signLogin({
    id: user.id,
    email: user.email,
    company_id: company.id,
    company_name: company.company_name,
    role: 'user',
    phone_number: null,
  })
  const providers = (await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM providers')).rows[0]!.n
  console.log(
    `Rankings against ${target.mode}: ${n(Number(providers))} providers; specialty ${taxonomy}, metro ZIP ${dense}, rural ZIP ${rural}`,
  )
  const api = async (query: Record<string, string>) => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/care-select/rankings',
      query,
      headers: { authorization: `Bearer ${token}` },
    })
    if (response.statusCode !== 200) throw new Error(`rankings answered ${response.statusCode}: ${response.body.slice(0, 200)}`)
    return response
  }
  // the client's JSON.parse of the answer is not server time: the timed calls below only check the status
  const parsed = async (query: Record<string, string>) =>
    (await api(query)).json() as { common_ranking_metadata: { total_hcp_candidates: number } }
  try {
    for (const [name, query] of Object.entries(scenarios)) {
      const body = await parsed(query)
      console.log(`  ${name.padEnd(22)} ${n(body.common_ranking_metadata.total_hcp_candidates)} candidates`)
    }
    for (const query of Object.values(scenarios)) await atConcurrency(Math.max(...levels), 20, () => api(query))
    for (const [name, query] of Object.entries(scenarios)) {
      for (const c of levels) {
        const latencies: number[] = []
        await atConcurrency(c, requests, async () => {
          const t = performance.now()
          await api(query)
          latencies.push(performance.now() - t)
        })
        latencies.sort((a, b) => a - b)
        console.log(
          `  ${name.padEnd(22)} concurrency ${String(c).padStart(2)}: p50 ${ms(quantile(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantile(latencies, 0.95)).padStart(6)} ms`,
        )
      }
    }
    console.log('\n  API / raw SQL at concurrency 1 (p50; the SQL includes the details query of the listed rows):')
    for (const [name, query] of Object.entries(scenarios)) {
      const apiTimes: number[] = []
      const sqlTimes: number[] = []
      for (let i = 0; i < Math.min(requests, 100); i++) {
        let t = performance.now()
        const search = await resolveSearch(pool, rankingsQuerySchema.parse(query))
        await rankProviders(pool, search)
        sqlTimes.push(performance.now() - t)
        t = performance.now()
        await api(query)
        apiTimes.push(performance.now() - t)
      }
      apiTimes.sort((a, b) => a - b)
      sqlTimes.sort((a, b) => a - b)
      const [a, q] = [quantile(apiTimes, 0.5), quantile(sqlTimes, 0.5)]
      console.log(`    ${name.padEnd(22)} API ${ms(a)} ms, SQL + scoring ${ms(q)} ms: ratio ${(a / q).toFixed(2)}`)
    }
    // the referral letter with two providers and the search's scores
    const first = (
      await app.inject({
        method: 'GET',
        url: '/api/care-select/rankings',
        query: scenarios.metro!,
        headers: { authorization: `Bearer ${token}` },
      })
    ).json() as {
      hcp_rankings: { hcp_entity: { npi: string } }[]
    }
    const selected = first.hcp_rankings.slice(0, 2).map((r) => r.hcp_entity.npi)
    const letter: number[] = []
    for (let i = 0; i < Math.min(requests, 100); i++) {
      const t = performance.now()
      const response = await app.inject({
        method: 'POST',
        url: '/api/care-select/referral-letter',
        headers: { authorization: `Bearer ${token}` },
        payload: {
          patient_name: 'Bench Patient',
          dob: '1970-01-01',
          destination_fax: '',
          condition: 'bench',
          selected_npis: selected,
          search: scenarios.metro,
        },
      })
      if (response.statusCode !== 200) throw new Error(`referral letter answered ${response.statusCode}`)
      letter.push(performance.now() - t)
    }
    letter.sort((a, b) => a - b)
    console.log(`\n  referral letter: p50 ${ms(quantile(letter, 0.5))} ms  p95 ${ms(quantile(letter, 0.95))} ms`)
  } finally {
    await app.close()
    await target.db.prisma.user.delete({ where: { id: user.id } }).catch(() => undefined)
    await target.close()
  }
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
    },
    strict: true,
  })
  if (command === 'generate') {
    const scale = values.scale as Scale['name']
    if (!(scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`)
    await benchGenerate(scale, Number(values.seed), !values['no-load'], !values['data-dir-db'])
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
  } else if (command === 'load') {
    const concurrency = Number(values.concurrency ?? '16')
    const seconds = Number(values.seconds)
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency takes a whole number, e.g. 16')
    if (!(seconds > 0)) throw new Error('--seconds takes a positive number, e.g. 600')
    await benchLoad(seconds, concurrency)
  } else {
    console.log(
      'Usage: npm run bench -- generate [--scale ci|demo|full] [--seed N] [--no-load] | typeahead [--requests 200] [--concurrency 1,8] | cost-transparency [--requests 200] [--concurrency 8] | nova [--requests 200] [--concurrency 1,8] | rankings [--requests 200] [--concurrency 1,8] | atlas [--requests 200] [--concurrency 8] [--read-only] | load [--seconds 600] [--concurrency 16]',
    )
    process.exitCode = command ? 2 : 0
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
