/**
 * The embedded database's thread (embedded.ts): PGlite runs its statements synchronously, so on the server's
 * own thread a long statement (an index build, a view refresh of the first-start load) froze every HTTP
 * request, /healthz and /readyz included. Here it blocks only this thread; the wire server is its only door.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { postgis } from '@electric-sql/pglite-postgis'
import { createPGlite } from './pglite.js'
import { PGliteWireServer } from './wire-server.js'

export interface EmbeddedWorkerData {
  dataDir?: string
  port: number
  password: string
  maxConnections: number
  extensions: boolean
  idleInTransactionTimeoutMs?: number
}

export type EmbeddedWorkerMessage = { type: 'listening'; port: number } | { type: 'stopped' } | { type: 'error'; message: string }

const options = workerData as EmbeddedWorkerData
const post = (message: EmbeddedWorkerMessage) => parentPort!.postMessage(message)

try {
  const db = await createPGlite({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.extensions ? { extensions: { postgis, pg_trgm } } : {}),
  })
  const server = new PGliteWireServer(db, {
    password: options.password,
    maxConnections: options.maxConnections,
    ...(options.idleInTransactionTimeoutMs === undefined ? {} : { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs }),
  })
  const port = await server.listen(options.port, '127.0.0.1')
  parentPort!.once('message', () => {
    void (async () => {
      try {
        await server.close()
        await db.close()
        post({ type: 'stopped' })
      } catch (error) {
        post({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
      }
    })()
  })
  post({ type: 'listening', port })
} catch (error) {
  post({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
}
