/**
 * FHIR provider directory benchmark (issue 36): over HTTP against the real server (FHIR_PUBLIC=true, so no credits
 * are involved), each scenario at each concurrency: `Location?near` within 10 miles of the densest metro ZIP,
 * `PractitionerRole?specialty=&location.near=` there, and 1,000-row pages of PractitionerRole (keyset cursors taken
 * from the first pages' next links); p50/p95 printed beside the p50/p95 of the scenario's raw SQL on the server's
 * pool at concurrency 1. Then the whole PractitionerRole set paged by next links and streamed as NDJSON ($export), by
 * clients on a thread of their own (clientRun): resources per second, beside the raw keyset SQL reading the same
 * rows. The network filters (the smallest network by reference, the largest by name) are measured too, and the header says whether the GIN index of the networks JSON
 * (providers_networks_gin) is there, so that a run without it (dropped by hand) compares before and after.
 * The raw SQL is a fixed reference (the first version's row statement; every row of the radius for `near`), the same
 * in every version of this bench: on a shared machine, runs compare as ratios to it. The server's own page statement
 * (kinds.ts) is timed beside it. The only rows it writes are the rate limiter's counters of its own requests
 * (credential_failures, key_kind 'request', the /fhir routes), cleared before each case: the directory's limit
 * (FHIR_REQUESTS_PER_MINUTE per client address) would otherwise answer 429 to a run faster than it.
 * Database: DATABASE_URL (the loaded scale), else the embedded database of a running `npm start`. Changes no data
 * of the directory.
 */
import { Worker } from 'node:worker_threads'
import { loadEnv } from '../apps/server/src/config.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { KINDS } from '../apps/server/src/fhir/kinds.ts'
import { RESOURCES_PER_ROW_GUESS } from '../apps/server/src/fhir/search.ts'
import { MIGRATIONS_DIR, runningEmbeddedUrl } from '../apps/server/src/runtime.ts'
import { startBenchServer } from './bench-server.ts'
import { ms, quantileOf, runHttpLoad, type BenchRequest } from './http-load.ts'

const n = (x: number) => Math.round(x).toLocaleString('en-US')
const MI = 1609.344

async function timeSql(run: () => Promise<unknown>, times: number): Promise<{ p50: number; p95: number }> {
  const latencies: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await run()
    latencies.push(performance.now() - started)
  }
  latencies.sort((a, b) => a - b)
  return { p50: quantileOf(latencies, 0.5), p95: quantileOf(latencies, 0.95) }
}

/**
 * The paging and export clients, each run on a worker thread of this process with Node's fetch (its own
 * Accept-Encoding, gzip and deflate): the server's event loop stays its own, as behind real clients, and what the
 * figure measures is the server's. Paging by next links, twice: a client that parses each Bundle (JSON.parse of about
 * 3 MB a page), then one that reads only the Bundle's head (its links) and counts the entries; the export counts the
 * NDJSON's lines. Each stops after `maxPages` pages (of 1,000) or as many lines.
 */
const CLIENT_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { kind, url: first, maxPages } = workerData
async function run() {
  let resources = 0
  const started = performance.now()
  if (kind === 'export') {
    const response = await fetch(first)
    if (response.status !== 200) throw new Error('export: status ' + response.status)
    for await (const chunk of response.body) {
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) resources++
      if (resources >= maxPages * 1000) break
    }
  } else {
    let url = first
    let pages = 0
    while (url && pages < maxPages) {
      const response = await fetch(url)
      if (response.status !== 200) throw new Error('paging: status ' + response.status)
      if (kind === 'parsed') {
        const bundle = await response.json()
        resources += bundle.entry ? bundle.entry.length : 0
        url = bundle.link.find((link) => link.relation === 'next')?.url ?? null
      } else {
        const text = await response.text()
        const head = JSON.parse(text.slice(0, text.indexOf(',"entry":[')) + '}')
        for (let at = text.indexOf('"fullUrl":'); at >= 0; at = text.indexOf('"fullUrl":', at + 10)) resources++
        url = head.link.find((link) => link.relation === 'next')?.url ?? null
      }
      pages++
    }
  }
  return { resources, seconds: (performance.now() - started) / 1000 }
}
run().then((result) => parentPort.postMessage(result), (error) => { throw error })
`

function clientRun(work: {
  kind: 'parsed' | 'links' | 'export'
  url: string
  maxPages: number
}): Promise<{ resources: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT_SOURCE, { eval: true, workerData: work })
    worker.once('message', (result: { resources: number; seconds: number }) => {
      resolve(result)
      void worker.terminate()
    })
    worker.once('error', reject)
  })
}

export async function benchFhir(requests: number, levels: number[], options: { maxPages: number }) {
  const env = loadEnv({ LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0', FHIR_PUBLIC: 'true' })
  const databaseUrl = env.DATABASE_URL ?? runningEmbeddedUrl(env)
  if (!databaseUrl) throw new Error('fhir needs DATABASE_URL or a running embedded server (npm start)')
  const mode = env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite (running server)'
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const db = createDatabase(databaseUrl, { maxConnections: 2 })
  const pool = db.pool
  const server = await startBenchServer(env, databaseUrl, env.DATABASE_URL ? 'postgres' : 'embedded')
  try {
    const providers = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM providers')).rows[0]!.n)
    const metro = (
      await pool.query<{ zip: string; latitude: number; longitude: number }>(
        `SELECT z.zip, z.latitude, z.longitude FROM zips z
         WHERE z.zip = (SELECT zip_code FROM providers GROUP BY zip_code ORDER BY count(*) DESC, zip_code LIMIT 1)`,
      )
    ).rows[0]!
    const taxonomy = '207Q00000X'
    // the smallest and the largest network by members (the filter's two regimes: index look-up, id-order scan)
    const networks = (
      await pool.query<{ id: number; name: string; members: number }>(
        `SELECT i.id, i.name, count(*)::int AS members FROM insurers i JOIN providers p ON p.aggregated_insurance_networks_v1 @> jsonb_build_object(i.name, true)
         GROUP BY i.id, i.name ORDER BY count(*), i.id`,
      )
    ).rows
    const smallest = networks[0]!
    const largest = networks[networks.length - 1]!
    const gin = (await pool.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'providers_networks_gin'`)).rows.length > 0
    // the health system with the most facilities (a chain through two references: a role's facility, its system)
    const system = (
      await pool.query<{ name: string }>(
        `SELECT h.name FROM health_systems h JOIN facilities f ON f.health_system_id = h.id GROUP BY h.id, h.name ORDER BY count(*) DESC, h.id LIMIT 1`,
      )
    ).rows[0]!.name
    console.log(`FHIR directory on ${mode}: ${n(providers)} providers; metro ZIP ${metro.zip}; ${requests} requests per case`)
    console.log(
      `networks: smallest ${smallest.name} (${n(smallest.members)}), largest ${largest.name} (${n(largest.members)}); providers_networks_gin ${gin ? 'present' : 'ABSENT'}`,
    )
    const near = `${metro.latitude}|${metro.longitude}|10|mi`
    const point = 'ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography'

    // the cursors of 1,000-row pages: the first pages' next links
    const cursors: string[] = ['']
    let next: string | null = `${server.base}/fhir/PractitionerRole?_count=1000`
    while (next && cursors.length < 20) {
      const bundle = (await (await fetch(next)).json()) as { link: { relation: string; url: string }[] }
      next = bundle.link.find((link) => link.relation === 'next')?.url ?? null
      if (next) cursors.push(new URL(next).searchParams.get('_cursor')!)
    }
    // the clinician a page's cursor starts after (search.ts: {k, i, s?}; the first page has none)
    const cursorClinician = (cursor: string | undefined) =>
      cursor ? (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { i: number }).i : 0
    // The reference statements ("raw SQL"), the same in every version of this bench so that runs on a shared machine
    // compare as ratios to them: the clinician, the specialty's name and the networks' ids (the row statement of the
    // first version of kinds.ts), and for `near` every row in the radius sorted by distance.
    const fields = `SELECT t.*, s.display_name, ARRAY(SELECT i.id FROM jsonb_each_text(t.aggregated_insurance_networks_v1) e
      JOIN insurers i ON i.name = e.key WHERE e.value = 'true' ORDER BY i.id) AS networks`
    const from = 'FROM providers t LEFT JOIN specialties s ON s.code = t.primary_taxonomy_code'
    // the server's own row statement for PractitionerRole (kinds.ts), timed beside the reference
    const role = KINDS.PractitionerRole[0]!
    const serverPage = `SELECT ${role.select} FROM ${role.from} WHERE t.id > $1 ORDER BY t.id LIMIT`

    const scenarios: {
      name: string
      path: (i: number) => string
      sql: (i: number) => Promise<unknown>
      /** the server's own statement, where it is a single one that differs from the reference */
      serverSql?: (i: number) => Promise<unknown>
    }[] = [
      {
        name: 'Location?near 10 mi, 50',
        path: () => `/fhir/Location?near=${encodeURIComponent(near)}&_count=50`,
        sql: () =>
          pool.query(
            `SELECT k, id, d FROM (
               SELECT 0 AS k, t.id, ST_Distance(t.geog, ${point}) AS d FROM facilities t WHERE ST_DWithin(t.geog, ${point}, $3)
               UNION ALL SELECT 1, t.id, ST_Distance(t.geog, ${point}) FROM providers t WHERE ST_DWithin(t.geog, ${point}, $3)) x
             ORDER BY d, k, id LIMIT 51`,
            [metro.latitude, metro.longitude, 10 * MI],
          ),
      },
      {
        name: 'PractitionerRole?specialty&location.near 10 mi, 50',
        path: () => `/fhir/PractitionerRole?specialty=${taxonomy}&location.near=${encodeURIComponent(near)}&_count=50`,
        sql: () =>
          pool.query(
            `SELECT t.id, ST_Distance(t.geog, ${point}) AS d FROM providers t
             WHERE t.primary_taxonomy_code = $4 AND ST_DWithin(t.geog, ${point}, $3) ORDER BY d, t.id LIMIT 51`,
            [metro.latitude, metro.longitude, 10 * MI, taxonomy],
          ),
      },
      {
        name: 'PractitionerRole page of 1,000',
        path: (i) => `/fhir/PractitionerRole?_count=1000${cursors[i % cursors.length] ? `&_cursor=${cursors[i % cursors.length]}` : ''}`,
        // a page is 1,000 roles, one per (clinician, network): the clinicians that hold them (about 85), read with the
        // reference's fields from the page's cursor; the server reads them by a first guess of 6 roles a clinician
        sql: (i) =>
          pool.query(
            `SELECT * FROM (SELECT x.*, sum(greatest(1, cardinality(x.networks))) OVER (ORDER BY x.id) AS roles
               FROM (${fields} ${from} WHERE t.id > $1 ORDER BY t.id LIMIT 200) x) y
             WHERE y.roles - greatest(1, cardinality(y.networks)) < 1001`,
            [cursorClinician(cursors[i % cursors.length])],
          ),
        serverSql: (i) =>
          pool.query(`${serverPage} ${Math.ceil(1001 / RESOURCES_PER_ROW_GUESS)}`, [cursorClinician(cursors[i % cursors.length])]),
      },
      {
        name: 'PractitionerRole?network= smallest, 50',
        path: () => `/fhir/PractitionerRole?network=Organization/net-${smallest.id}&_count=50`,
        sql: () =>
          pool.query(`${fields} ${from} WHERE t.aggregated_insurance_networks_v1 @> $1::jsonb ORDER BY t.id LIMIT 51`, [
            JSON.stringify({ [smallest.name]: true }),
          ]),
      },
      {
        name: 'PractitionerRole?network.name= largest, 50',
        path: () => `/fhir/PractitionerRole?network.name:exact=${encodeURIComponent(`${largest.name} Network`)}&_count=50`,
        sql: () =>
          pool.query(`${fields} ${from} WHERE t.aggregated_insurance_networks_v1 @> $1::jsonb ORDER BY t.id LIMIT 51`, [
            JSON.stringify({ [largest.name]: true }),
          ]),
      },
      // chains (docs/fhir.md#chains), each beside the plain SQL a hand-written query would run
      {
        name: 'PractitionerRole?organization.partof.name=, 50',
        path: () => `/fhir/PractitionerRole?organization.partof.name:exact=${encodeURIComponent(system)}&_count=50`,
        sql: () =>
          pool.query(
            `${fields} ${from} WHERE t.facility_id IN (SELECT f.id FROM facilities f JOIN health_systems h ON h.id = f.health_system_id
               WHERE h.name = $1) ORDER BY t.id LIMIT 51`,
            [system],
          ),
      },
      {
        name: 'Practitioner?_has:PractitionerRole:…:specialty=, 50',
        path: () => `/fhir/Practitioner?_has:PractitionerRole:practitioner:specialty=${taxonomy}&_count=50`,
        sql: () => pool.query(`SELECT t.* FROM providers t WHERE t.primary_taxonomy_code = $1 ORDER BY t.id LIMIT 51`, [taxonomy]),
      },
      {
        name: 'Organization?_has:…:organization:specialty=, 50',
        path: () => `/fhir/Organization?_has:PractitionerRole:organization:specialty=${taxonomy}&_count=50`,
        sql: () =>
          pool.query(
            `SELECT f.* FROM facilities f WHERE EXISTS (SELECT 1 FROM providers p WHERE p.facility_id = f.id AND p.primary_taxonomy_code = $1)
             ORDER BY f.id LIMIT 51`,
            [taxonomy],
          ),
      },
      {
        // every network with a clinician of the specialty; the reference expands each clinician's networks
        name: 'Organization?_has:…:network:specialty=',
        path: () => `/fhir/Organization?_has:PractitionerRole:network:specialty=${taxonomy}&_count=1000`,
        sql: () =>
          pool.query(
            `SELECT DISTINCT i.id FROM providers t CROSS JOIN LATERAL jsonb_each_text(t.aggregated_insurance_networks_v1) e
               JOIN insurers i ON i.name = e.key WHERE e.value = 'true' AND t.primary_taxonomy_code = $1`,
            [taxonomy],
          ),
      },
    ]

    console.log(
      '\ncase                                                 conc   p50 ms   p95 ms    req/s | raw SQL p50   p95 (conc 1) | p95 / raw p50 | server SQL p50',
    )
    const resetRateLimit = () => pool.query(`DELETE FROM credential_failures WHERE key_kind = 'request' AND endpoint LIKE '% /fhir/%'`)
    for (const scenario of scenarios) {
      const raw = await timeSql(() => scenario.sql(Math.floor(Math.random() * cursors.length)), Math.min(requests, 100))
      const serverSql = scenario.serverSql
        ? await timeSql(() => scenario.serverSql!(Math.floor(Math.random() * cursors.length)), Math.min(requests, 100))
        : null
      for (const concurrency of levels) {
        await resetRateLimit()
        const list: BenchRequest[] = Array.from({ length: requests }, (_, i) => ({ path: scenario.path(i) }))
        await runHttpLoad(server.base, list.slice(0, Math.min(20, list.length)), concurrency) // warm-up
        const result = await runHttpLoad(server.base, list, concurrency)
        console.log(
          `${scenario.name.padEnd(52)} ${String(concurrency).padStart(4)} ${ms(quantileOf(result.latencies, 0.5)).padStart(8)} ${ms(quantileOf(result.latencies, 0.95)).padStart(8)} ${n(result.throughput).padStart(8)} | ${ms(raw.p50).padStart(11)} ${ms(raw.p95).padStart(5)}              | ${(quantileOf(result.latencies, 0.95) / raw.p50).toFixed(2).padStart(13)} | ${serverSql ? ms(serverSql.p50) : '-'}`,
        )
      }
    }

    // the whole set (or --max-pages pages of 1,000) by next links, then as NDJSON, beside the raw keyset SQL; each
    // client on a thread of its own (clientRun), so that its work is not the server's event loop's
    const limit = options.maxPages * 1000
    await resetRateLimit()
    const parsed = await clientRun({ kind: 'parsed', url: `${server.base}/fhir/PractitionerRole?_count=1000`, maxPages: options.maxPages })
    console.log(
      `\npaging PractitionerRole by next links, each Bundle parsed: ${n(parsed.resources)} resources in ${parsed.seconds.toFixed(1)} s = ${n(parsed.resources / parsed.seconds)}/s`,
    )
    await resetRateLimit()
    const light = await clientRun({ kind: 'links', url: `${server.base}/fhir/PractitionerRole?_count=1000`, maxPages: options.maxPages })
    console.log(
      `paging PractitionerRole by next links, links read and entries counted: ${n(light.resources)} resources in ${light.seconds.toFixed(1)} s = ${n(light.resources / light.seconds)}/s`,
    )
    const exported = await clientRun({
      kind: 'export',
      url: `${server.base}/fhir/$export/PractitionerRole.ndjson`,
      maxPages: options.maxPages,
    })
    const lines = exported.resources
    const exportSeconds = exported.seconds
    console.log(`NDJSON export of PractitionerRole: ${n(lines)} resources in ${exportSeconds.toFixed(1)} s = ${n(lines / exportSeconds)}/s`)

    // the same roles' clinicians: a clinician holds one role per network it is in (one if none)
    let started = performance.now()
    let after = 0
    let clinicians = 0
    let rows = 0
    while (rows < limit) {
      const result = await pool.query<{ id: number; networks: number[] }>(`${fields} ${from} WHERE t.id > $1 ORDER BY t.id LIMIT 2000`, [
        after,
      ])
      if (result.rows.length === 0) break
      clinicians += result.rows.length
      for (const row of result.rows) rows += Math.max(1, row.networks.length)
      after = result.rows[result.rows.length - 1]!.id
    }
    const rawSeconds = (performance.now() - started) / 1000
    console.log(
      `raw keyset SQL of the same rows: ${n(clinicians)} clinicians (${n(rows)} roles) in ${rawSeconds.toFixed(1)} s = ${n(rows / rawSeconds)} roles/s`,
    )
    console.log(
      `  paging / raw SQL: ${(parsed.resources / parsed.seconds / (rows / rawSeconds)).toFixed(2)} parsed, ${(light.resources / light.seconds / (rows / rawSeconds)).toFixed(2)} links only; export / raw SQL: ${(lines / exportSeconds / (rows / rawSeconds)).toFixed(2)}`,
    )

    // the server's own statement of a page, keyset by 1,000 (what paging by next links runs per page)
    started = performance.now()
    after = 0
    let serverRows = 0
    while (serverRows < clinicians) {
      const result = await pool.query<{ id: number }>(`${serverPage} 1000`, [after])
      if (result.rows.length === 0) break
      serverRows += result.rows.length
      after = result.rows[result.rows.length - 1]!.id
    }
    const serverSeconds = (performance.now() - started) / 1000
    console.log(
      `the server's page statement (kinds.ts), keyset by 1,000: ${n(serverRows)} clinicians in ${serverSeconds.toFixed(1)} s = ${n(serverRows / serverSeconds)}/s`,
    )
  } finally {
    await server.app.close()
    await db.close()
  }
}
