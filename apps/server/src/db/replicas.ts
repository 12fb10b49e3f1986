import pg from 'pg'
import { compareDataVersions, DATA_VERSION_SQL } from '../lib/versioned-cache.js'

/**
 * Read replicas (DATABASE_REPLICA_URL, docs/decisions/0078). Read-only work that may run anywhere (engine builds,
 * look-ups of reference data) asks for a pool here; writes, and reads that must see them, use the primary's pool
 * (Database.pool) as before. A replica is used only when it has replayed at least what the process has already
 * seen on the primary, so a lagging replica never makes the process answer from an older data version: it falls
 * back to the primary instead.
 */

/** application_name of every connection to a replica (pg_stat_activity on the replica shows the reads). */
export const REPLICA_APPLICATION_NAME = 'citrus-replica-read'

/** How long a replica whose query failed is left out before it is tried again. */
export const REPLICA_RETRY_MS = 5_000

/**
 * How long connecting to a replica, or a check of how far it has replayed, may take: an unreachable host (packets
 * dropped, not refused) would otherwise hold every build and look-up that asks for a pool.
 */
export const REPLICA_CHECK_TIMEOUT_MS = 5_000

/** How long an engine build waits for a lagging replica to catch up before it reads from the primary. */
export const BUILD_CATCH_UP_MS = 2_000

/** How often a build that waits for a replica to catch up (readPool's waitMs) asks again. */
const CATCH_UP_POLL_MS = 100

interface Replica {
  readonly pool: pg.Pool
  /** the highest replay LSN seen on it (replay only moves forward), as a number */
  replayed: bigint
  /** the newest data version seen on it */
  version: string | null
  /** the check in flight, shared by the callers that arrive meanwhile */
  checking: Promise<void> | null
  /** left out until then after a failed query (ms since epoch) */
  downUntil: number
}

interface ReplicaSet {
  readonly primary: pg.Pool
  readonly replicas: Replica[]
  /** round robin over the replicas that qualify */
  next: number
}

const setsByPrimary = new WeakMap<pg.Pool, ReplicaSet>()
const primaryByReplica = new WeakMap<pg.Pool, pg.Pool>()

/** An LSN as PostgreSQL prints it (`16/B374D848`) as a number; 0 for null. */
export function lsnValue(lsn: string | null): bigint {
  if (!lsn) return 0n
  const [high, low] = lsn.split('/')
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`)
}

/** The pool options of a replica: those of the primary, with an application_name of its own. */
export function createReplicaPool(connectionString: string, options: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({
    ...options,
    connectionString,
    application_name: REPLICA_APPLICATION_NAME,
    connectionTimeoutMillis: REPLICA_CHECK_TIMEOUT_MS,
  })
  // A replica going away (restart, failover) must not crash the process: its reads fall back to the primary.
  pool.on('error', () => undefined)
  return pool
}

/** Makes `replicas` the read replicas of `primary` (createDatabase). */
export function registerReplicas(primary: pg.Pool, replicas: pg.Pool[]): void {
  if (replicas.length === 0) return
  setsByPrimary.set(primary, {
    primary,
    replicas: replicas.map((pool) => ({ pool, replayed: 0n, version: null, checking: null, downUntil: 0 })),
    next: 0,
  })
  for (const replica of replicas) primaryByReplica.set(replica, primary)
}

/** The primary of a replica pool; any other pool is its own primary (a key for what is held per database). */
export function primaryOf(pool: pg.Pool): pg.Pool {
  return primaryByReplica.get(pool) ?? pool
}

const backgroundByPrimary = new WeakMap<pg.Pool, pg.Pool>()

/**
 * Makes `background` the pool of `primary`'s background reads where no replica takes them (the embedded database:
 * its connections are served after the requests', db/wire-server.ts BACKGROUND_APPLICATION_NAME). It reads the same
 * database as the primary, so it never lags.
 */
export function registerBackgroundPool(primary: pg.Pool, background: pg.Pool): void {
  backgroundByPrimary.set(primary, background)
  backgroundPools.add(background)
  primaryByReplica.set(background, primary)
}

const backgroundPools = new WeakSet<pg.Pool>()

/**
 * Whether `pool` is the embedded database's background pool: its database serves one connection at a time, so a
 * transaction of it holds every request's statements back until it ends (read in separate statements instead).
 */
export function servedInTurns(pool: pg.Pool): boolean {
  return backgroundPools.has(pool)
}

/** The pool background work (a data load, an engine build) uses on `pool`'s database: its own, or `pool`. */
export function backgroundPool(pool: pg.Pool): pg.Pool {
  const primary = primaryOf(pool)
  return backgroundByPrimary.get(primary) ?? primary
}

/** The replica pools of a primary (none without DATABASE_REPLICA_URL). */
export function replicasOf(pool: pg.Pool): pg.Pool[] {
  return setsByPrimary.get(primaryOf(pool))?.replicas.map((replica) => replica.pool) ?? []
}

/** Runs `check` on the replica unless one is in flight (then waits for that one); a failure leaves it out a while. */
async function refresh(replica: Replica, check: (pool: pg.Pool) => Promise<void>): Promise<void> {
  if (!replica.checking) {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('replica check timed out')), REPLICA_CHECK_TIMEOUT_MS)
    })
    replica.checking = Promise.race([check(replica.pool), timeout])
      .catch(() => {
        replica.downUntil = Date.now() + REPLICA_RETRY_MS
      })
      .finally(() => {
        clearTimeout(timer)
        replica.checking = null
      })
  }
  await replica.checking
}

async function checkReplay(replica: Replica): Promise<void> {
  await refresh(replica, async (pool) => {
    // null on a server that is not in recovery: not a replica, never used
    const { rows } = await pool.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn')
    const replayed = lsnValue(rows[0]?.lsn ?? null)
    if (replayed > replica.replayed) replica.replayed = replayed
  })
}

async function checkVersion(replica: Replica): Promise<void> {
  await refresh(replica, async (pool) => {
    const { rows } = await pool.query<{ v: string; replica: boolean }>(`SELECT ${DATA_VERSION_SQL} AS v, pg_is_in_recovery() AS replica`)
    const row = rows[0]
    if (!row?.replica) return
    if (replica.version === null || compareDataVersions(row.v, replica.version) > 0) replica.version = row.v
  })
}

/** The replicas that are not left out, starting after the one used last. */
function candidates(set: ReplicaSet): Replica[] {
  const now = Date.now()
  const order = set.replicas.map((_, k) => set.replicas[(set.next + k) % set.replicas.length]!)
  return order.filter((replica) => replica.downUntil <= now)
}

function use(set: ReplicaSet, replica: Replica): pg.Pool {
  set.next = (set.replicas.indexOf(replica) + 1) % set.replicas.length
  return replica.pool
}

/**
 * A pool for read-only work that must see at least everything committed on the primary before the call (an engine
 * build for the data version just read from the primary): a replica that has replayed the primary's current WAL
 * position, else the primary. `waitMs` lets a lagging replica catch up that long first (a build is worth a short
 * wait; a request is not). Without replicas: the background pool (backgroundPool), at no cost.
 */
export async function readPool(pool: pg.Pool, options: { waitMs?: number } = {}): Promise<pg.Pool> {
  const primary = primaryOf(pool)
  const set = setsByPrimary.get(primary)
  if (!set) return backgroundPool(primary)
  let target: bigint
  try {
    const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')
    target = lsnValue(rows[0]?.lsn ?? null)
  } catch {
    return primary
  }
  const deadline = Date.now() + (options.waitMs ?? 0)
  for (;;) {
    for (const replica of candidates(set)) {
      if (replica.replayed < target) await checkReplay(replica)
      if (replica.replayed >= target && replica.downUntil <= Date.now()) return use(set, replica)
    }
    if (Date.now() + CATCH_UP_POLL_MS > deadline) return primary
    await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS))
  }
}

/**
 * A pool for a read-only look-up of data version `version` (read from the primary, e.g. with the request's
 * principal): a replica that has replayed that data version (or a newer one), else the primary. A replica known to
 * have caught up costs no query; one that lags is asked again (one question at a time) and left out meanwhile.
 */
export async function readPoolForVersion(pool: pg.Pool, version: string): Promise<pg.Pool> {
  const primary = primaryOf(pool)
  const set = setsByPrimary.get(primary)
  if (!set) return primary
  for (const replica of candidates(set)) {
    if (replica.version === null || compareDataVersions(replica.version, version) < 0) await checkVersion(replica)
    if (replica.version !== null && compareDataVersions(replica.version, version) >= 0 && replica.downUntil <= Date.now()) {
      return use(set, replica)
    }
  }
  return primary
}

/**
 * readPoolForVersion for a request whose data version is read on demand (`version`, e.g. requestDataVersion): without
 * replicas the primary, and the version is not read at all (a link guest's request has none of its own).
 */
export async function readPoolForRequest(pool: pg.Pool, version: () => Promise<string>): Promise<pg.Pool> {
  return setsByPrimary.has(primaryOf(pool)) ? readPoolForVersion(pool, await version()) : pool
}
