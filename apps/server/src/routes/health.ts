import { APP_VERSION, ERROR_CODES, healthEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { migrationNames } from '../db/migrate.js'
import { AppError } from '../lib/errors.js'
import { route } from '../lib/endpoint.js'
import { databaseAnswers, pendingMigrationsWithin } from '../services/health.js'

/** How long /healthz and /readyz wait for the database (the embedded one answers one statement at a time). */
export const HEALTH_QUERY_TIMEOUT_MS = 2_000
export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is not answering'

/** Liveness and readiness probes, outside /api so that orchestrators need no API knowledge. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  // The migrations folder is fixed for the life of the process: read it once, not on every probe.
  const migrations = migrationNames(app.config.migrationsDir)

  // Alive means able to serve: a process whose database no longer answers (exhausted, wedged, gone) is not.
  route(app, healthEndpoints.healthz, { logLevel: 'warn' }, async () => {
    if (!(await databaseAnswers(app.db.pool, HEALTH_QUERY_TIMEOUT_MS))) {
      throw new AppError(503, ERROR_CODES.UNAVAILABLE, DATABASE_UNAVAILABLE_MESSAGE)
    }
    return { status: 'ok' as const, version: APP_VERSION }
  })

  route(app, healthEndpoints.readyz, { logLevel: 'warn' }, async (_request, reply) => {
    const mode = app.config.databaseMode
    try {
      // a database that does not answer in time (busy, wedged) is reported, not waited for
      const pending = await pendingMigrationsWithin(app.db.pool, migrations, HEALTH_QUERY_TIMEOUT_MS)
      const ready = pending.length === 0
      return reply.status(ready ? 200 : 503).send({
        status: ready ? 'ready' : 'not_ready',
        database: 'up',
        database_mode: mode,
        pending_migrations: pending,
      })
    } catch {
      return reply.status(503).send({ status: 'not_ready', database: 'down', database_mode: mode, pending_migrations: [] })
    }
  })
}
