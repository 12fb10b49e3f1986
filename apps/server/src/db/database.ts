import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaClient } from '../generated/prisma/client.js'
import { BACKGROUND_APPLICATION_NAME } from './wire-server.js'
import { createReplicaPool, registerBackgroundPool, registerReplicas } from './replicas.js'

export type { PrismaClient }

export interface Database {
  /** typed access through Prisma (driver adapter over the pool below) */
  prisma: PrismaClient
  /** the same pool for SQL Prisma cannot express (PostGIS, COPY, trigram ranking) */
  pool: pg.Pool
  /**
   * pools of the read replicas (DATABASE_REPLICA_URL), none without them; read-only work asks db/replicas.ts
   * readPool / readPoolForVersion for one that has caught up, never uses these directly
   */
  replicas: pg.Pool[]
  /**
   * the pool of background work (the first-start load, engine builds through readPool): on the embedded database
   * its own connections, which the database serves after the requests' (`background` option); `pool` otherwise
   */
  background: pg.Pool
  close(): Promise<void>
}

/**
 * How long an interactive transaction may wait to start, and run: as long as any statement may wait (10 min), not
 * Prisma's 2 s and 5 s. On the embedded database a statement waits for every other transaction to end, and on the
 * first `npm start` the demo data load in the background holds it for a minute and more at a time: with Prisma's
 * defaults a sign-up, an API key or an AI Hub upload then failed with a 500 (P2028 'Unable to start a transaction
 * in the given time') where every plain statement merely waited. On PostgreSQL a transaction starts at once unless
 * the pool is exhausted, and then it waits its turn as well.
 */
const TRANSACTION_OPTIONS = { maxWait: 600_000, timeout: 600_000 } as const

/** The pool's default size (createDatabase). */
const DEFAULT_MAX_CONNECTIONS = 10
/** Connections of the background pool (a load's lanes and the engine builds share them). */
const BACKGROUND_POOL_SIZE = 4

/**
 * Idle connections are kept (0: never closed for idleness; pg's default closes them after 10 s): a new PostgreSQL
 * backend pays 50-60 ms on its first PostGIS statement (warmConnections), which a burst after a pause of a few
 * seconds paid again on every connection. The pool holds at most `max` of them; a broken one leaves the pool.
 */
const IDLE_TIMEOUT_MS = 0

/**
 * A transaction of ours left idle this long (a bug, a stuck await) is ended by the server, which frees its locks
 * (PostgreSQL's idle_in_transaction_session_timeout). The embedded database applies its own, shorter bound
 * (EMBEDDED_DB_IDLE_TIMEOUT_MS): a client may only ask it for less. No statement_timeout: loads and view
 * refreshes run single statements for minutes at the full scale.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000

export function createDatabase(
  connectionString: string,
  options: {
    maxConnections?: number
    replicaUrls?: readonly string[]
    /** background work gets a pool of its own (BACKGROUND_POOL_SIZE connections) named for the embedded database */
    background?: boolean
  } = {},
): Database {
  const poolOptions: pg.PoolConfig = {
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    // idle connections do not keep a process alive that is otherwise done (a CLI command, a script)
    allowExitOnIdle: true,
  }
  const pool = new pg.Pool({ ...poolOptions, connectionString })
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined)
  const replicas = (options.replicaUrls ?? []).map((url) => createReplicaPool(url, poolOptions))
  registerReplicas(pool, replicas)
  const background = options.background
    ? new pg.Pool({ ...poolOptions, max: BACKGROUND_POOL_SIZE, connectionString, application_name: BACKGROUND_APPLICATION_NAME })
    : pool
  if (background !== pool) {
    background.on('error', () => undefined)
    registerBackgroundPool(pool, background)
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: TRANSACTION_OPTIONS })
  let closed = false
  return {
    prisma,
    pool,
    replicas,
    background,
    async close() {
      if (closed) return
      closed = true
      await prisma.$disconnect()
      await Promise.all([pool.end(), ...(background === pool ? [] : [background.end()]), ...replicas.map((replica) => replica.end())])
    },
  }
}

/** the bounded pools opened beside each primary pool, by name (for /metrics) */
const boundedPools = new WeakMap<pg.Pool, Map<string, pg.Pool>>()

/**
 * A pool of connections to the same database as `pool` (same options) whose statements PostgreSQL stops after
 * `statementTimeoutMs` (SQLSTATE 57014): for work a caller may ask of any size, such as a public directory's search,
 * where one request must not hold a backend for minutes. A transaction may still raise it (SET LOCAL). `close()` ends
 * it and takes it off boundedPoolsOf.
 */
export function boundedPool(pool: pg.Pool, name: string, statementTimeoutMs: number): { pool: pg.Pool; close(): Promise<void> } {
  const bounded = new pg.Pool({ ...pool.options, statement_timeout: statementTimeoutMs })
  bounded.on('error', () => undefined)
  const named = boundedPools.get(pool) ?? new Map<string, pg.Pool>()
  boundedPools.set(pool, named.set(name, bounded))
  return {
    pool: bounded,
    close: async () => {
      named.delete(name)
      await bounded.end()
    },
  }
}

/** The bounded pools open beside `pool` (boundedPool), by name. */
export function boundedPoolsOf(pool: pg.Pool): ReadonlyMap<string, pg.Pool> {
  return boundedPools.get(pool) ?? new Map()
}

/**
 * The statement that makes a PostgreSQL backend load PostGIS and set up its geography support: a backend pays
 * 50-60 ms (2-core machine) on its first PostGIS statement, once, which fell on whichever request first used the
 * connection (after a start, the first burst of Price Check searches waited about twice as long for it).
 */
export const POSTGIS_WARM_UP_SQL = `SELECT ST_DWithin('SRID=4326;POINT(0 0)'::geography, 'SRID=4326;POINT(0 1)'::geography, 1000) AS warm`

/**
 * Opens `count` connections of the pool at once and runs the PostGIS warm-up on each, then hands them back idle,
 * so that requests find warm backends (docs/decisions/0064). Failures (no PostGIS, a database going away) are
 * ignored: warming is an optimisation, never a reason not to start. Resolves with the connections warmed.
 */
export async function warmConnections(pool: pg.Pool, count: number): Promise<number> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect().catch(() => null)))
  let warmed = 0
  await Promise.all(
    clients.map(async (client) => {
      if (!client) return
      try {
        await client.query(POSTGIS_WARM_UP_SQL)
        warmed++
      } catch {
        // no PostGIS (yet): the connection itself is fine
      } finally {
        client.release()
      }
    }),
  )
  return warmed
}
