import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type pg from 'pg'
import type { Row } from '../db/kysely.js'

/**
 * The store of @fastify/rate-limit (per-route request limits: the FHIR directory, analytics events) in PostgreSQL,
 * so that every server process on the database counts the same window (docs/decisions/0076): the rows of
 * credential_failures with key_kind 'request', one per route and client key. A request is one upsert that starts
 * a new window when the old one ended, as the credential limits count failures. Its commit is asynchronous, as the
 * credits' (domain/credits.ts, docs/decisions/0047): a crash of PostgreSQL may lose the last few hundred milliseconds
 * of request counts (a window counts a few requests fewer), and no request waits for a WAL flush (0.5-2 ms here, more
 * on a busy disk). The credential limits (auth/rate-limits.ts) keep their synchronous commit: a lockout must survive.
 */
export function postgresRateLimitStore(pool: pg.Pool, scope: string): FastifyRateLimitStoreCtor {
  const count = async (endpoint: string, key: string, windowMs: number) => {
    const { rows } = await pool.query<Pick<Row<'credential_failures'>, 'count'> & { ttl: number }>({
      // prepared once per connection: every rate-limited request runs it
      name: 'request-rate-count',
      text: `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)
       INSERT INTO credential_failures AS f (scope, endpoint, key_kind, key, count, reset_at)
       SELECT $1, $2, 'request', $3, 1, now() + $4 * interval '1 millisecond' FROM async_commit
       ON CONFLICT (scope, endpoint, key_kind, key) DO UPDATE SET
         count = CASE WHEN f.reset_at <= now() THEN 1 ELSE f.count + 1 END,
         reset_at = CASE WHEN f.reset_at <= now() THEN EXCLUDED.reset_at ELSE f.reset_at END
       RETURNING count, greatest(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::int AS ttl`,
      values: [scope, endpoint, key, windowMs],
    })
    // now and then, from any process: windows that ended
    if (Math.random() < 0.001)
      void pool.query(`DELETE FROM credential_failures WHERE key_kind = 'request' AND reset_at <= now()`).catch(() => undefined)
    return rows[0]!
  }
  const read = async (endpoint: string, key: string) => {
    const { rows } = await pool.query<Pick<Row<'credential_failures'>, 'count'> & { ttl: number }>(
      `SELECT count, greatest(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::int AS ttl FROM credential_failures
        WHERE scope = $1 AND endpoint = $2 AND key_kind = 'request' AND key = $3 AND reset_at > now()`,
      [scope, endpoint, key],
    )
    return rows[0] ?? { count: 0, ttl: 0 }
  }

  class PostgresRateLimitStore implements FastifyRateLimitStore {
    constructor(private readonly endpoint = '*') {}

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number) {
      count(this.endpoint, key, timeWindow).then(
        (row) => callback(null, { current: row.count, ttl: row.ttl }),
        (error: Error) => callback(error),
      )
    }

    read(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void) {
      read(this.endpoint, key).then(
        (row) => callback(null, { current: row.count, ttl: row.ttl }),
        (error: Error) => callback(error),
      )
    }

    /** A route's own counts (the plugin passes the route as routeInfo; the `rateLimit` decorator passes none). */
    child(options: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      const route = (options as { routeInfo?: { method?: string | string[]; url?: string } }).routeInfo
      return new PostgresRateLimitStore(`request ${[route?.method ?? ''].flat().join(',')} ${route?.url ?? '*'}`)
    }
  }
  return PostgresRateLimitStore as unknown as FastifyRateLimitStoreCtor
}
