import { mkdirSync } from 'node:fs'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { postgis } from '@electric-sql/pglite-postgis'
import { createPGlite } from './pglite.js'
import { PGliteWireServer } from './wire-server.js'

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
  /** most client connections at once (default 64) */
  maxConnections?: number
  /** load PostGIS and pg_trgm (default); tooling that never touches spatial SQL can skip ~5 s */
  extensions?: boolean
  /**
   * ms a connection may sit idle inside a transaction before it is rolled back and closed (default 60 s,
   * 0 = never): while it holds a transaction every other connection waits (docs/decisions/0011)
   */
  idleInTransactionTimeoutMs?: number
}

/**
 * Starts PGlite (PostgreSQL 18 in WebAssembly) with PostGIS and pg_trgm and serves it over the
 * Postgres wire protocol on 127.0.0.1 (wire-server.ts), so the application reaches it through the same
 * Prisma driver adapter as a real server (docs/decisions/0011).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true })
  const db = await createPGlite({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.extensions === false ? {} : { extensions: { postgis, pg_trgm } }),
  })
  const server = new PGliteWireServer(db, {
    maxConnections: options.maxConnections ?? 64,
    ...(options.idleInTransactionTimeoutMs === undefined ? {} : { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs }),
  })
  const port = await server.listen(options.port ?? 0, '127.0.0.1')
  let stopped = false
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (stopped) return
      stopped = true
      await server.close()
      await db.close()
    },
  }
}
