/**
 * Care Select benchmark (issue 11): GET /api/care-select/rankings over HTTP for a common specialty in the
 * densest metro ZIP and in a rural ZIP, with and without codes and carrier, at each concurrency, each case twice:
 * uncached (_bypass_cache=true: every request scores every candidate) and repeated (the same search again: its
 * scoring comes from the result cache, docs/decisions/0060); the ratio of the uncached API time to the same
 * search's SQL and scoring on the server's own pool at concurrency 1; and POST /api/care-select/referral-letter
 * after its search (cached) and with _bypass_cache (uncached). The server listens on 127.0.0.1 and every timed request comes from the
 * load generator (bench/http-load.ts: wrk, or a worker thread), so the server's event loop is its own.
 * Database: DATABASE_URL (the loaded scale), else the embedded database of a running `npm start`.
 * It creates one bench company and user (removed at the end) and changes no data table.
 */
import { readFileSync } from 'node:fs'
import type pg from 'pg'
import { loadEnv } from '../apps/server/src/config.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { rankProviders, resolveSearch, scoreOf } from '../apps/server/src/services/care-select/rankings.ts'
import { warmCareSelect } from '../apps/server/src/services/care-select/warm.ts'
import { dataVersion } from '../apps/server/src/lib/versioned-cache.ts'
import { scoredSearchBytes, scoredSearchCache } from '../apps/server/src/services/care-select/scored-cache.ts'
import { MIGRATIONS_DIR, runningEmbeddedUrl } from '../apps/server/src/runtime.ts'
import { rankingsQuerySchema } from '../packages/contracts/src/index.ts'
import { startBenchServer, createBenchCompany, createBenchUser, benchLoginToken } from './bench-server.ts'
import { quantileOf, runHttpLoad, type BenchRequest, ms } from './http-load.ts'

const n = (x: number) => Math.round(x).toLocaleString('en-US')
const loadAverage = () => {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  } catch {
    return 'n/a'
  }
}
const median = (values: number[]) =>
  quantileOf(
    [...values].sort((a, b) => a - b),
    0.5,
  )

/**
 * A pool whose queries add their time to `sqlMs` (the same connections as the server's pool): the time while at least
 * one query runs, so that queries sent together (the listed rows' two details statements) count once.
 */
function timedPool(pool: pg.Pool): { pool: pg.Pool; sqlMs: { total: number } } {
  const sqlMs = { total: 0 }
  let running = 0
  let since = 0
  const timed =
    (query: (...a: unknown[]) => Promise<unknown>) =>
    async (...args: unknown[]) => {
      if (running++ === 0) since = performance.now()
      try {
        return await query(...args)
      } finally {
        if (--running === 0) sqlMs.total += performance.now() - since
      }
    }
  const wrapper = {
    query: timed(pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>),
    // a candidate index build reads in one transaction on one connection (docs/decisions/0060)
    connect: async () => {
      const client = await pool.connect()
      return { query: timed(client.query.bind(client) as (...a: unknown[]) => Promise<unknown>), release: () => client.release() }
    },
  }
  return { pool: wrapper as unknown as pg.Pool, sqlMs }
}

export async function benchRankings(requests: number, levels: number[]) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0' })
  const databaseUrl = env.DATABASE_URL ?? runningEmbeddedUrl(env)
  if (!databaseUrl) throw new Error('rankings needs DATABASE_URL or a running embedded server (npm start)')
  const mode = env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite (running server)'
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 2 })
  const pool = db.pool
  // a common specialty; its densest ZIP (most of its providers) and a rural ZIP that has some
  const taxonomy = '207Q00000X'
  const dense = (
    await pool.query<{ zip: string }>(
      `SELECT zip_code AS zip FROM providers WHERE primary_taxonomy_code = $1 GROUP BY zip_code ORDER BY count(*) DESC, 1 LIMIT 1`,
      [taxonomy],
    )
  ).rows[0]?.zip
  if (!dense) throw new Error(`no provider of ${taxonomy}: load a dataset first`)
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
  const providers = (await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM providers')).rows[0]!.n
  const withCodes = { cpt_union_csv: cpt, icd10_cm_union_csv: icd, insurance_names_csv: insurer }
  const scenarios: Record<string, Record<string, string>> = {
    metro: { zip_code: dense, omni_code: taxonomy },
    'metro codes+carrier': { zip_code: dense, omni_code: taxonomy, ...withCodes },
    rural: { zip_code: rural, omni_code: taxonomy },
    'rural codes+carrier': { zip_code: rural, omni_code: taxonomy, ...withCodes },
  }

  const company = await createBenchCompany(db, 'Bench', ['CARE_SELECT'])
  const user = await createBenchUser(db, company.id, 'user')
  const { app, base } = await startBenchServer(env, databaseUrl, env.DATABASE_URL ? 'postgres' : 'embedded')
  try {
    const token = benchLoginToken(app, user, company)
    const headers = { authorization: `Bearer ${token}` }
    const path = (query: Record<string, string>) => `/api/care-select/rankings?${new URLSearchParams(query).toString()}`
    console.log(
      `Rankings against ${mode}: ${n(Number(providers))} providers; specialty ${taxonomy}, metro ZIP ${dense}, rural ZIP ${rural}; ` +
        `codes ${cpt} + ${icd}, carrier ${insurer}; ${requests} requests per point`,
    )
    // warm-up: the first search of the specialty builds its candidate index (timed here), then plans and connections
    const first = performance.now()
    const response = await fetch(`${base}${path(scenarios.metro!)}`, { headers })
    const metro = (await response.json()) as {
      common_ranking_metadata: { total_hcp_candidates: number }
      hcp_rankings: { hcp_entity: { npi: string } }[]
    }
    if (response.status !== 200) throw new Error(`rankings answered ${response.status}: ${JSON.stringify(metro).slice(0, 200)}`)
    const rssBefore = process.memoryUsage().rss
    console.log(
      `  first search (builds the specialty's candidate index): ${ms(performance.now() - first)} ms (load ${loadAverage()}); ` +
        `process RSS ${n(process.memoryUsage().rss / 2 ** 20)} MiB, heap used ${n(process.memoryUsage().heapUsed / 2 ** 20)} MiB`,
    )
    // the first search indexes the specialty; the index's version-wide part (the facilities' points) may still be
    // building, and a search meanwhile shares the CPU with it (engines/versioned-build.ts): the figures below are of a
    // server that holds both, as after its warm-ups
    const settling = performance.now()
    const warmed = await warmCareSelect(app.db.pool, await dataVersion(app.db.pool), [taxonomy])
    console.log(
      `  the candidate index (facilities' points and the specialty) held ${ms(performance.now() - settling)} ms later (the specialty ${warmed.built.length > 0 ? 'built by the warm-up' : 'held already'}; load ${loadAverage()})`,
    )
    // what the first users after an index build wait for, before any warm-up: the metro scored afresh while the heap
    // still holds the build's garbage and the scoring path is not compiled yet (the rounds below are timed after it)
    {
      const list = Array.from({ length: 30 }, () => ({ path: path({ ...scenarios.metro!, _bypass_cache: 'true' }), headers }))
      const heapMiB = process.memoryUsage().heapUsed / 2 ** 20
      const { latencies } = await runHttpLoad(base, list, 1)
      console.log(
        `  the first 30 metro searches scored afresh after the build, c1: p50 ${ms(quantileOf(latencies, 0.5))} ms, p95 ${ms(quantileOf(latencies, 0.95))} ms, ` +
          `slowest ${ms(latencies[latencies.length - 1]!)} ms (heap used ${n(heapMiB)} MiB before them; load ${loadAverage()})`,
      )
    }
    for (const [name, query] of Object.entries(scenarios)) {
      const r = await fetch(`${base}${path(query)}`, { headers })
      const body = (await r.json()) as { common_ranking_metadata: { total_hcp_candidates: number } }
      const bytes = JSON.stringify(body).length
      console.log(`  ${name.padEnd(22)} ${n(body.common_ranking_metadata.total_hcp_candidates)} candidates, ${n(bytes / 1024)} KB`)
      // warm-up of both paths timed below: scored afresh (the scoring and the answer's writing compiled by the JIT, and
      // the garbage of the index build collected, as on a server that has answered searches since) and repeated
      for (const q of [{ ...query, _bypass_cache: 'true' }, query])
        await runHttpLoad(
          base,
          Array.from({ length: 20 }, () => ({ path: path(q), headers })),
          Math.max(...levels),
        )
    }

    console.log(
      '\n  GET /api/care-select/rankings over HTTP (p50 / p95, throughput; load average before each point).\n' +
        '  uncached = _bypass_cache=true, every request scores every candidate; repeated = the same search again, its scoring\n' +
        "  from the result cache (access, validation, metering, the listed rows' details and the answer still per request):",
    )
    const cache = scoredSearchCache(app.db.pool)
    // CPU of this process per request (the server and the load generator's thread; not PostgreSQL's): unlike the
    // latencies, it hardly depends on what else the machine runs
    const timedLoad = async (list: BenchRequest[], c: number) => {
      const cpu = process.cpuUsage()
      const result = await runHttpLoad(base, list, c)
      const used = process.cpuUsage(cpu)
      return { ...result, cpuMs: (used.user + used.system) / 1000 / list.length }
    }
    const cpuOf = (cpuMs: number) => `CPU ${ms(cpuMs).padStart(5)} ms/req`
    // the floor every signed-in call pays here (credential check, one small query): GET /insurers/
    await runHttpLoad(
      base,
      Array.from({ length: 20 }, () => ({ path: '/api/insurers/', headers })),
      Math.max(...levels),
    )
    for (const c of levels) {
      const load = loadAverage()
      const list: BenchRequest[] = Array.from({ length: requests }, () => ({ path: '/api/insurers/', headers }))
      const { latencies, throughput, cpuMs } = await timedLoad(list, c)
      console.log(
        `    ${'baseline GET /insurers/'.padEnd(31)} concurrency ${String(c).padStart(2)}: p50 ${ms(quantileOf(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms  ${n(throughput).padStart(5)} req/s  ` +
          `${cpuOf(cpuMs)}  (load ${load})`,
      )
    }
    for (const [name, query] of Object.entries(scenarios)) {
      for (const c of levels) {
        for (const mode of ['uncached', 'repeated'] as const) {
          const load = loadAverage()
          const q = mode === 'uncached' ? { ...query, _bypass_cache: 'true' } : query
          const [hits, scorings, answers] = [cache.hits, cache.scorings, cache.answerHits ?? 0]
          const list: BenchRequest[] = Array.from({ length: requests }, () => ({ path: path(q), headers }))
          const { latencies, throughput, cpuMs } = await timedLoad(list, c)
          console.log(
            `    ${name.padEnd(22)} ${mode.padEnd(8)} concurrency ${String(c).padStart(2)}: p50 ${ms(quantileOf(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms  ${n(throughput).padStart(5)} req/s  ` +
              `${cpuOf(cpuMs)}  (cache hits ${cache.hits - hits}, of which answers ${(cache.answerHits ?? 0) - answers}, scorings ${cache.scorings - scorings}; load ${load})`,
          )
        }
      }
    }

    console.log(
      "\n  Uncached API / (SQL + scoring) at concurrency 1, p50 (_bypass_cache=true; the same search scored afresh on the server's pool, in its process; 4 alternating rounds):",
    )
    const timed = timedPool(app.db.pool)
    for (const [name, query] of Object.entries(scenarios)) {
      // the wrapper is a pool of its own to the candidate index: warm it
      await rankProviders(timed.pool, await resolveSearch(timed.pool, rankingsQuerySchema.parse(query)), true)
      const api: number[] = []
      const inProcess: number[] = []
      const sqlOnly: number[] = []
      const perRound = Math.max(5, Math.ceil(Math.min(requests, 100) / 4))
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < perRound; i++) {
          timed.sqlMs.total = 0
          const t = performance.now()
          await rankProviders(timed.pool, await resolveSearch(timed.pool, rankingsQuerySchema.parse(query)), true)
          inProcess.push(performance.now() - t)
          sqlOnly.push(timed.sqlMs.total)
        }
        const list: BenchRequest[] = Array.from({ length: perRound }, () => ({
          path: path({ ...query, _bypass_cache: 'true' }),
          headers,
        }))
        api.push(...(await runHttpLoad(base, list, 1)).latencies)
      }
      const [a, p, q] = [median(api), median(inProcess), median(sqlOnly)]
      const scored = await scoreOf(timed.pool, await resolveSearch(timed.pool, rankingsQuerySchema.parse(query)), true)
      console.log(
        `    ${name.padEnd(22)} API ${ms(a)} ms, SQL + scoring ${ms(p)} ms (of which SQL ${ms(q)} ms): ratio ${(a / p).toFixed(2)}; ` +
          `a cache entry holds ${n(scoredSearchBytes(scored) / 1024)} KB  (load ${loadAverage()})`,
      )
    }

    console.log(
      `\n  process RSS after the runs ${n(process.memoryUsage().rss / 2 ** 20)} MiB (after the first search ${n(rssBefore / 2 ** 20)} MiB)`,
    )

    // the referral letter with two providers and the scores of the metro search
    const selected = metro.hcp_rankings.slice(0, 2).map((r) => r.hcp_entity.npi)
    const letterOf = (search: Record<string, unknown>): BenchRequest => ({
      method: 'POST',
      path: '/api/care-select/referral-letter',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        patient_name: 'Bench Patient',
        dob: '1970-01-01',
        destination_fax: '',
        condition: 'bench',
        selected_npis: selected,
        search,
      }),
    })
    const letters = {
      // the clinician's search was just run (the results page): the letter's scores come from the result cache
      'after its search': letterOf(scenarios.metro!),
      uncached: letterOf({ ...scenarios.metro, _bypass_cache: true }),
    }
    await runHttpLoad(
      base,
      Array.from({ length: 10 }, () => letters.uncached),
      1,
    )
    console.log(
      "\n  POST /api/care-select/referral-letter over HTTP (two providers, with the metro search's scores; after its search = the\n" +
        '  search was run before, its scoring from the result cache; uncached = its search with _bypass_cache=true):',
    )
    for (const c of levels) {
      for (const [label, letter] of Object.entries(letters)) {
        await fetch(`${base}${path(scenarios.metro!)}`, { headers }).then((r) => r.arrayBuffer())
        const load = loadAverage()
        const [hits, scorings] = [cache.hits, cache.scorings]
        const { latencies, throughput } = await runHttpLoad(
          base,
          Array.from({ length: Math.min(requests, 100) }, () => letter),
          c,
        )
        console.log(
          `    ${label.padEnd(16)} concurrency ${String(c).padStart(2)}: p50 ${ms(quantileOf(latencies, 0.5)).padStart(6)} ms  p95 ${ms(quantileOf(latencies, 0.95)).padStart(6)} ms  ${n(throughput).padStart(5)} req/s  ` +
            `(cache hits ${cache.hits - hits}, scorings ${cache.scorings - scorings}; load ${load})`,
        )
      }
    }
  } finally {
    await app.close()
    await db.prisma.user.delete({ where: { id: user.id } }).catch(() => undefined)
    await db.prisma.creditUsage.deleteMany({ where: { company_id: company.id } }).catch(() => undefined)
    await db.prisma.company.delete({ where: { id: company.id } }).catch(() => undefined)
    await db.close()
  }
}
