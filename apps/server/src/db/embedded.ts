import { mkdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { postgis } from '@electric-sql/pglite-postgis'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedPostgres {
  /** postgres:// URL of the socket server, usable by any PostgreSQL client */
  url: string
  stop(): Promise<void>
}

export interface EmbeddedPostgresOptions {
  /** folder that persists the database; omitted = in memory (tests, shadow databases) */
  dataDir?: string
  /** 0 = any free port */
  port?: number
  maxConnections?: number
  /** load PostGIS and pg_trgm (default); tooling that never touches spatial SQL can skip ~5 s */
  extensions?: boolean
}

/**
 * Starts PGlite (PostgreSQL 18 in WebAssembly) with PostGIS and pg_trgm and serves it over the
 * Postgres wire protocol on 127.0.0.1, so the application reaches it through the same
 * Prisma driver adapter as a real server (docs/decisions/0001).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true })
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.extensions === false ? {} : { extensions: { postgis, pg_trgm } }),
  })
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: options.port ?? 0,
    // PGlite is single-connection; the socket server multiplexes client connections onto it.
    maxConnections: options.maxConnections ?? 32,
  })
  await server.start()
  const address = (server as unknown as { server: { address(): AddressInfo } }).server.address()
  let stopped = false
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${address.port}/postgres`,
    async stop() {
      if (stopped) return
      stopped = true
      await server.stop()
      await db.close()
    },
  }
}
