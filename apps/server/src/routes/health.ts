import { APP_VERSION, healthEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { migrationNames, pendingMigrations } from '../db/migrate.js'
import { route } from '../lib/endpoint.js'

/** Liveness and readiness probes, outside /api so that orchestrators need no API knowledge. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  // The migrations folder is fixed for the life of the process: read it once, not on every probe.
  const migrations = migrationNames(app.config.migrationsDir)

  route(app, healthEndpoints.healthz, { logLevel: 'warn' }, async () => ({ status: 'ok' as const, version: APP_VERSION }))

  route(app, healthEndpoints.readyz, { logLevel: 'warn' }, async (_request, reply) => {
      const mode = app.config.databaseMode
      try {
        const pending = await pendingMigrations(app.db.pool, migrations)
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
