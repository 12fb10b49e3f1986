import { createServer, type AddressInfo } from 'node:net'
import pg from 'pg'
import request from 'supertest'
import { PRICE_CHECK_CODE_PATTERN } from '@citrus/contracts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp, type TestApp } from '../../../../test/helpers.ts'
import { createScratchDatabase } from '../../../../test/postgres.ts'
import { ensureTestDataset } from '../data/test-dataset.ts'
import { compareDataVersions, dataVersion } from '../lib/versioned-cache.ts'
import { atlasClaims } from '../engines/atlas/claim-index.ts'
import { atlasPatients, currentPatientIndex } from '../engines/atlas/patient-index.ts'
import { versionedBuild } from '../engines/versioned-build.ts'
import { createDatabase, type Database } from './database.ts'
import { BUILD_CATCH_UP_MS, readPool, readPoolForVersion, REPLICA_APPLICATION_NAME } from './replicas.ts'

/**
 * Read replicas against a real streaming replica of the test PostgreSQL (.ci/replica starts one on port 5433 and
 * .ci/run passes TEST_REPLICA_URL). Without one (the embedded database, or PostgreSQL without TEST_REPLICA_URL)
 * the suite is skipped, and its name says why.
 */
const replicaUrl = process.env.TEST_REPLICA_URL ?? ''
const skipReason =
  inject('databaseMode') !== 'postgres'
    ? 'the embedded database has no replicas'
    : replicaUrl === ''
      ? 'TEST_REPLICA_URL is unset (a streaming replica of TEST_DATABASE_URL, as .ci/replica starts)'
      : null

/** The same database on the replica's server. */
function onReplica(primaryUrl: string): string {
  const url = new URL(replicaUrl)
  url.pathname = new URL(primaryUrl).pathname
  return url.toString()
}

async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(text, values)).rows
  } finally {
    await client.end()
  }
}

/** Waits until the replica has replayed everything the primary has written so far. */
async function caughtUp(primaryUrl: string): Promise<void> {
  const [{ lsn }] = (await sql<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }]
  for (let attempt = 0; attempt < 300; attempt++) {
    // asked in the replica's own postgres database: a database just created on the primary may not be there yet
    const [row] = await sql<{ ok: boolean }>(
      onReplica(new URL('/postgres', primaryUrl).toString()),
      'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok',
      [lsn],
    )
    if (row?.ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the replica did not catch up within 30 s')
}

/** Pauses WAL replay on the replica's server (every database of it) and waits until it has paused. */
async function pauseReplay(primaryUrl: string): Promise<void> {
  await sql(onReplica(primaryUrl), 'SELECT pg_wal_replay_pause()')
  for (let attempt = 0; attempt < 100; attempt++) {
    const [row] = await sql<{ state: string }>(onReplica(primaryUrl), 'SELECT pg_get_wal_replay_pause_state() AS state')
    if (row?.state === 'paused') return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The last statement of each connection the process holds open on the replica (pg_stat_activity there). */
async function replicaStatements(primaryUrl: string): Promise<string[]> {
  const rows = await sql<{ query: string }>(
    onReplica(primaryUrl),
    'SELECT query FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
    [REPLICA_APPLICATION_NAME],
  )
  return rows.map((row) => row.query)
}

const watchedPools = new WeakSet<pg.Pool>()
const wrappedClients = new WeakSet<pg.PoolClient>()
/** The statements of each pool being recorded (statementsDuring). */
const recordings = new Map<pg.Pool, string[]>()

/** Records every statement a client of `pool` sends from now on (however it was acquired: pool.query, connect, Kysely). */
function watch(pool: pg.Pool): void {
  if (watchedPools.has(pool)) return
  watchedPools.add(pool)
  pool.on('acquire', (client) => {
    if (wrappedClients.has(client)) return
    wrappedClients.add(client)
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    client.query = ((...args: unknown[]) => {
      const config = args[0]
      recordings.get(pool)?.push(typeof config === 'string' ? config : ((config as { text?: string }).text ?? ''))
      return query(...args)
    }) as typeof client.query
  })
}

/** The statements each pool ran while `run` ran (background work of the process meanwhile included). */
async function statementsDuring<K extends string>(pools: Record<K, pg.Pool>, run: () => Promise<void>): Promise<Record<K, string[]>> {
  const seen = {} as Record<K, string[]>
  for (const [name, pool] of Object.entries(pools) as [K, pg.Pool][]) {
    watch(pool)
    recordings.set(pool, (seen[name] = []))
  }
  try {
    await run()
  } finally {
    for (const pool of Object.values(pools) as pg.Pool[]) recordings.delete(pool)
  }
  return seen
}

/** Fragments of the read-only statements of Atlas, Price Check and the look-ups, each run by one answer's read. */
const READS = {
  atlasHome: 'FROM states WHERE geom IS NOT NULL',
  atlasScope: 'from "states" where "abbr" = $1',
  /** the patient engine's rows of a request while its index builds */
  atlasPatientRows: 'SELECT DISTINCT ON (d.patient_id)',
  /** the claim engine's rows of a request while its index builds */
  atlasClaimRows: 'WHERE c.patient_id = ANY($1::int8[])',
  atlasFacilityDetails: 'LEFT JOIN health_systems h ON h.id = e.health_system_id',
  priceCheck: 'WITH origin AS (SELECT geog, latitude, longitude FROM zips WHERE zip = $1)',
  costPage: "SELECT 'provider' AS kind",
  insurers: 'SELECT name FROM insurers ORDER BY name',
  typeahead: 'JOIN icd10_codes i ON i.code = c.code',
} as const
type Read = keyof typeof READS
const ran = (statements: readonly string[], read: Read) => statements.some((text) => text.includes(READS[read]))

/**
 * Answers of Atlas (a condition search and a drill-down with nothing held: their rows come from the database), Price
 * Check and the look-ups.
 */
async function askEverything(
  app: TestApp,
  tokens: { atlas: string; member: string },
  price: { zip: string; code: string; npi: string; state: string },
): Promise<{ home: { data: { patients: number; latest_load_at: string | null } } }> {
  const { pool } = app.db
  // no build in flight, then nothing held: the next request starts one and reads its own rows meanwhile
  const nothingHeld = async () => {
    await atlasClaims.build(pool, await dataVersion(pool), true)
    atlasClaims.evict(pool)
    atlasPatients.evict(pool)
  }
  const before = atlasPatients.served.database + atlasClaims.served.database
  const ok = async (call: request.Test) => {
    const response = await call
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200)
    return response.body as unknown
  }
  const atlas = (call: request.Test) => ok(call.set('Authorization', `Bearer ${tokens.atlas}`))
  const member = (call: request.Test) => ok(call.set('Authorization', `Bearer ${tokens.member}`))
  const home = (await atlas(request(app.server).get('/api/atlas/'))) as { data: { patients: number; latest_load_at: string | null } }
  await nothingHeld()
  await atlas(
    request(app.server)
      .get('/api/atlas/generic')
      .query({ icd10_cm_union_csv: 'E11,I10', tile_granularity: 'COUNTY', search_within_region: price.state, _bypass_cache: true }),
  )
  await nothingHeld()
  const facilities = (await atlas(
    request(app.server)
      .post('/api/atlas/drilldown')
      .send({ drilldown_type: 'FACILITY', icd10_cm_union_csv: 'E11,I10', _bypass_cache: true }),
  )) as { page_results: { total_results: number } }
  expect(facilities.page_results.total_results).toBeGreaterThan(0)
  expect(atlasPatients.served.database + atlasClaims.served.database).toBeGreaterThan(before)
  await member(
    request(app.server)
      .get('/api/cost-transparency/procedure')
      .query({ zip_code: price.zip, procedure_codes_csv: price.code, _bypass_cache: true }),
  )
  await member(request(app.server).get(`/api/cost-transparency/provider/${price.npi}`).query({ procedure_codes_csv: price.code }))
  await member(request(app.server).get('/api/insurers/'))
  await member(request(app.server).get('/api/typeahead/icd10-fuzzy').query({ query: 'diabetes' }))
  return { home }
}

/** A tenant of Atlas on the Enterprise tier and a member (Price Check), and a priced code near a facility's ZIP. */
async function askers(db: Database) {
  const atlas = await createTenant(db, { roles: ['admin'], products: [{ product_group: 'ATLAS' }] })
  await db.pool.query(`UPDATE companies SET plan_tier = 'ENTERPRISE' WHERE id = $1`, [atlas.company.id])
  const members = await createTenant(db, { roles: ['member'], products: [{ product_group: 'ATLAS' }] })
  const [price] = (
    await db.pool.query<{ zip: string; code: string; npi: string; state: string }>(
      `SELECT f.zip_code AS zip, fp.procedure_code AS code, p.npi,
              (SELECT state FROM patients WHERE state IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1) AS state
       FROM facility_prices fp JOIN facilities f ON f.id = fp.facility_id JOIN providers p ON p.facility_id = f.id
       WHERE f.zip_code IS NOT NULL AND fp.procedure_code ~ $1
       ORDER BY fp.facility_id, fp.procedure_code, p.npi LIMIT 1`,
      [PRICE_CHECK_CODE_PATTERN.source],
    )
  ).rows
  return {
    tokens: {
      atlas: await loginTokenFor(atlas.users[0]!, atlas.company.company_name),
      member: await loginTokenFor(members.users[0]!, members.company.company_name),
    },
    price: price!,
  }
}

// CI's PostgreSQL run must not skip them silently (.ci/run starts the replica and sets TEST_REPLICA_URL)
it.runIf(process.env.CI && inject('databaseMode') === 'postgres' && replicaUrl === '')('runs against a replica in CI', () => {
  throw new Error('TEST_REPLICA_URL is required in CI on PostgreSQL (.ci/replica starts the replica, .ci/run sets it)')
})

describe.skipIf(skipReason !== null)(`read replicas${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const primaryUrl = inject('databaseUrl')

  describe('engine builds', () => {
    let db: Database
    beforeAll(async () => {
      const setup = createDatabase(primaryUrl, { maxConnections: 2 })
      await ensureTestDataset(setup.pool, primaryUrl)
      await setup.close()
      await caughtUp(primaryUrl)
      db = createDatabase(primaryUrl, { maxConnections: 4, replicaUrls: [onReplica(primaryUrl)] })
    })
    afterAll(async () => {
      await db.close()
    })

    it('a caught-up replica serves the read pool; the primary stays the primary', async () => {
      // the position is the whole server's: other databases' writes move it on, which the replica replays in a moment
      const reader = await readPool(db.pool, { waitMs: BUILD_CATCH_UP_MS })
      expect(reader).toBe(db.replicas[0])
      expect((await reader.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0]!.r).toBe(true)
      expect((await db.pool.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0]!.r).toBe(false)
      expect(await readPoolForVersion(db.pool, await dataVersion(db.pool))).toBe(db.replicas[0])
    })

    it("the Atlas patient index is built from the replica, with the primary's rows", async () => {
      const version = await dataVersion(db.pool)
      const index = await currentPatientIndex(db.pool, version, true)
      expect(index?.version).toBe(version)
      const [{ n }] = (await sql<{ n: number }>(primaryUrl, 'SELECT count(*)::int AS n FROM patients')) as [{ n: number }]
      expect(n).toBeGreaterThan(0)
      expect(index?.size).toBe(n)
      const statements = await replicaStatements(primaryUrl)
      expect(
        statements.some((text) => /FROM (patients|mv_patient_diagnoses)\b/.test(text)),
        statements.join('\n---\n'),
      ).toBe(true)
    })
  })

  describe('over HTTP', () => {
    const ctx = useTestApp(() => ({ DATABASE_URL: primaryUrl, DATABASE_REPLICA_URL: onReplica(primaryUrl) }), { dataset: true })
    let token: string
    let asked: Awaited<ReturnType<typeof askers>>
    beforeAll(async () => {
      const { company, users } = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
      token = await loginTokenFor(users[0]!, company.company_name)
      asked = await askers(ctx.db)
      await caughtUp(primaryUrl)
    })

    it('a look-up is read on the replica and a write lands on the primary', async () => {
      expect(ctx.app.db.replicas).toHaveLength(1)
      const lookup = await request(ctx.app.server)
        .get('/api/typeahead/omni')
        .query({ query: 'cardio' })
        .set('Authorization', `Bearer ${token}`)
      expect(lookup.status, JSON.stringify(lookup.body)).toBe(200)
      expect(lookup.body.suggestions.length).toBeGreaterThan(0)
      const statements = await replicaStatements(primaryUrl)
      expect(
        statements.some((text) => text.includes('FROM specialties sp LEFT JOIN freq')),
        statements.join('\n---\n'),
      ).toBe(true)

      const name = `replica_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
      const write = await request(ctx.app.server)
        .post('/api/analytics/events')
        .send({ events: [{ name }] })
      expect(write.status, JSON.stringify(write.body)).toBe(202)
      const [row] = await sql<{ n: number }>(primaryUrl, 'SELECT count(*)::int AS n FROM analytics_events WHERE name = $1', [name])
      expect(row?.n).toBe(1)
    })
    it("a Care Connect search reads its listed providers' details on the replica", async () => {
      const [provider] = await sql<{ npi: string; taxonomy: string; zip: string }>(
        primaryUrl,
        `SELECT p.npi, p.primary_taxonomy_code AS taxonomy, p.zip_code AS zip FROM providers p JOIN zips z ON z.zip = p.zip_code
          WHERE p.primary_taxonomy_code IS NOT NULL ORDER BY p.npi LIMIT 1`,
      )
      const search = await request(ctx.app.server)
        .get('/api/care-select/rankings')
        .query({ zip_code: provider!.zip, omni_code: provider!.taxonomy })
        .set('Authorization', `Bearer ${token}`)
      expect(search.status, JSON.stringify(search.body)).toBe(200)
      expect(search.body.hcp_rankings.length).toBeGreaterThan(0)
      const statements = await replicaStatements(primaryUrl)
      expect(
        statements.some((text) => text.includes('p.medical_school, p.years_in_practice')),
        statements.join('\n---\n'),
      ).toBe(true)
    })

    it("Atlas (its engines' rows while the indexes build included), Price Check and the look-ups read on the replica", async () => {
      const seen = await statementsDuring({ primary: ctx.app.db.pool, replica: ctx.app.db.replicas[0]! }, async () => {
        await askEverything(ctx.app, asked.tokens, asked.price)
      })
      for (const read of Object.keys(READS) as Read[]) {
        expect(ran(seen.replica, read), `${read} on the replica`).toBe(true)
        expect(ran(seen.primary, read), `${read} on the primary`).toBe(false)
      }
    })

    // last: a new data version on the shared test database (other suites see a newer version too, as after any import)
    it('with the replica lagging, they read the primary at the new data version, never the replica', async () => {
      const pools = { primary: ctx.app.db.pool, replica: ctx.app.db.replicas[0]! }
      let load: Date
      await pauseReplay(primaryUrl)
      try {
        const [row] = await sql<{ finished: Date }>(
          primaryUrl,
          `INSERT INTO data_loads (kind, scale, status, started_at, finished_at) VALUES ('import', 'replica-test', 'done', now(), now())
           RETURNING finished_at AS finished`,
        )
        load = row!.finished
        const [lagging] = await sql<{ latest: Date }>(
          onReplica(primaryUrl),
          `SELECT max(finished_at) AS latest FROM data_loads WHERE status = 'done'`,
        )
        expect(lagging!.latest.getTime()).toBeLessThan(load.getTime())
        let answer: Awaited<ReturnType<typeof askEverything>> | undefined
        const seen = await statementsDuring(pools, async () => {
          answer = await askEverything(ctx.app, asked.tokens, asked.price)
        })
        // the home's latest load is the one the replica has not replayed: the answer is of the new version
        expect(answer?.home.data.latest_load_at).toBe(load.toISOString())
        for (const read of Object.keys(READS) as Read[]) {
          expect(ran(seen.primary, read), `${read} on the primary`).toBe(true)
          expect(ran(seen.replica, read), `${read} on the lagging replica`).toBe(false)
        }
      } finally {
        await sql(onReplica(primaryUrl), 'SELECT pg_wal_replay_resume()')
      }
      // caught up: the replica holds the new version and answers again
      await caughtUp(primaryUrl)
      let answer: Awaited<ReturnType<typeof askEverything>> | undefined
      const seen = await statementsDuring(pools, async () => {
        answer = await askEverything(ctx.app, asked.tokens, asked.price)
      })
      expect(answer?.home.data.latest_load_at).toBe(load.toISOString())
      expect(ran(seen.replica, 'atlasHome')).toBe(true)
      expect(ran(seen.primary, 'atlasHome')).toBe(false)
    })
  })

  describe('a lagging replica', () => {
    let scratch: { url: string; drop(): Promise<void> }
    let db: Database
    let replicaPaused = false
    const resume = async () => {
      if (!replicaPaused) return
      await sql(onReplica(scratch.url), 'SELECT pg_wal_replay_resume()')
      replicaPaused = false
    }

    beforeAll(async () => {
      // a database of its own: a new data version here changes nothing for the other suites
      scratch = await createScratchDatabase()
      await sql(
        scratch.url,
        `CREATE TABLE data_loads (id serial PRIMARY KEY, status text NOT NULL, finished_at timestamptz);
         CREATE TABLE items (id serial PRIMARY KEY);
         INSERT INTO data_loads (status, finished_at) VALUES ('done', now());
         INSERT INTO items SELECT FROM generate_series(1, 10);`,
      )
      await caughtUp(scratch.url)
      db = createDatabase(scratch.url, { maxConnections: 2, replicaUrls: [onReplica(scratch.url)] })
    })
    afterAll(async () => {
      await resume()
      await db?.close()
      await scratch?.drop()
    })

    it('never makes the process answer from an older data version', async () => {
      const build = versionedBuild(async (pool, version) => {
        const { rows } = await pool.query<{ items: number; replica: boolean }>(
          'SELECT (SELECT count(*)::int FROM items) AS items, pg_is_in_recovery() AS replica',
        )
        return { version, ...rows[0]! }
      })
      const v1 = await dataVersion(db.pool)
      expect(await build(db.pool, v1, true)).toEqual({ version: v1, items: 10, replica: true })

      replicaPaused = true
      await pauseReplay(scratch.url)
      // a new data load finishes on the primary while the replica stands still
      await sql(
        scratch.url,
        `INSERT INTO items SELECT FROM generate_series(1, 5); INSERT INTO data_loads (status, finished_at) VALUES ('done', now())`,
      )
      const v2 = await dataVersion(db.pool)
      expect(compareDataVersions(v2, v1)).toBeGreaterThan(0)
      const [lagging] = await sql<{ items: number }>(onReplica(scratch.url), 'SELECT count(*)::int AS items FROM items')
      expect(lagging?.items).toBe(10)

      // the replica still serves what it has caught up with, never the newer version
      expect(await readPoolForVersion(db.pool, v1)).toBe(db.replicas[0])
      expect(await readPoolForVersion(db.pool, v2)).toBe(db.pool)
      expect(await readPool(db.pool)).toBe(db.pool)
      // the build of the new version reads the primary (after a short wait for the replica) and is switched to
      expect(await build(db.pool, v2, true)).toEqual({ version: v2, items: 15, replica: false })
      expect(build.held(db.pool)).toEqual({ version: v2, items: 15, replica: false })
      // held per primary: the replica's pool finds the same index
      expect(build.held(db.replicas[0]!)?.version).toBe(v2)

      await resume()
      await caughtUp(scratch.url)
      expect(await readPoolForVersion(db.pool, v2)).toBe(db.replicas[0])
      expect(await readPool(db.pool, { waitMs: BUILD_CATCH_UP_MS })).toBe(db.replicas[0])
    })
  })
})

// in both database modes: nothing listens on port 1
describe('a replica that cannot be reached', () => {
  it('leaves every read on the primary, without an error', async () => {
    const db = createDatabase(inject('databaseUrl'), { maxConnections: 2, replicaUrls: ['postgres://postgres@127.0.0.1:1/citrus'] })
    try {
      expect(db.replicas).toHaveLength(1)
      expect(await readPool(db.pool)).toBe(db.pool)
      expect(await readPool(db.pool, { waitMs: 300 })).toBe(db.pool)
      expect(await readPoolForVersion(db.pool, await dataVersion(db.pool))).toBe(db.pool)
      expect((await db.pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1)
    } finally {
      await db.close()
    }
  })

  it('a host that accepts the connection and never answers is given up after REPLICA_CHECK_TIMEOUT_MS', async () => {
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    const db = createDatabase(inject('databaseUrl'), { maxConnections: 2, replicaUrls: [`postgres://postgres@127.0.0.1:${port}/citrus`] })
    try {
      expect(await readPool(db.pool)).toBe(db.pool)
      expect(await readPoolForVersion(db.pool, await dataVersion(db.pool))).toBe(db.pool)
    } finally {
      await db.close().catch(() => undefined)
      silent.close()
    }
  })
})

// in both database modes: without a replica (the embedded database has none) every one of those reads is the primary's
describe('without a replica', () => {
  const ctx = useTestApp({}, { dataset: true })

  it('Atlas, Price Check and the look-ups read on the primary, not on the background pool', async () => {
    expect(ctx.app.db.replicas).toHaveLength(0)
    const asked = await askers(ctx.db)
    const { pool, background } = ctx.app.db
    // the embedded database's background pool takes the builds, never a request's reads
    const pools: Record<string, pg.Pool> = background === pool ? { primary: pool } : { primary: pool, background }
    const seen = await statementsDuring(pools, async () => {
      await askEverything(ctx.app, asked.tokens, asked.price)
    })
    for (const read of Object.keys(READS) as Read[]) {
      expect(ran(seen.primary ?? [], read), `${read} on the primary`).toBe(true)
      if (seen.background) expect(ran(seen.background, read), `${read} on the background pool`).toBe(false)
    }
  })
})
