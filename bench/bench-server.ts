/**
 * The app under an HTTP benchmark: the real server (buildApp) with a fresh JWT secret, listening on
 * 127.0.0.1 on a free port, for bench/http-load.ts to send requests to.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../apps/server/src/app.ts'
import type { loadEnv } from '../apps/server/src/config.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'

export interface BenchServer {
  app: FastifyInstance
  /** http://127.0.0.1:port */
  base: string
}

export async function startBenchServer(
  env: ReturnType<typeof loadEnv>,
  databaseUrl: string,
  databaseMode: 'embedded' | 'postgres',
): Promise<BenchServer> {
  const app = await buildApp(
    { env, databaseUrl, databaseMode, jwtSecret: randomUUID() + randomUUID(), migrationsDir: MIGRATIONS_DIR, webDistDir: null },
    { logger: false, warmConnections: true },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return { app, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }
}
