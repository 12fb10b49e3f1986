import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync } from 'node:fs'
import { type Worker } from 'node:worker_threads'
import type { EmbeddedWorkerData, EmbeddedWorkerMessage } from './embedded-worker.js'
import { startModuleWorker } from '../lib/worker.js'

export interface EmbeddedPostgres {
  /** postgres:// URL of the socket server with its password, usable by any PostgreSQL client */
  url: string
  stop(): Promise<void>
}

export interface EmbeddedPostgresOptions {
  /** folder that persists the database; omitted = in memory (tests, shadow databases) */
  dataDir?: string
  /** 0 = any free port */
  port?: number
  /** the password clients must give (SCRAM-SHA-256); omitted = a random one for this process */
  password?: string
  /** most client connections at once (default 64) */
  maxConnections?: number
  /** load PostGIS and pg_trgm (default); tooling that never touches spatial SQL can skip ~5 s */
  extensions?: boolean
  /**
   * ms a connection may sit idle inside a transaction before it is rolled back and closed (default 5 s,
   * 0 = never): while it holds a transaction every other connection waits (docs/decisions/0011)
   */
  idleInTransactionTimeoutMs?: number
}

/** The database's thread: the TypeScript source through tsx in development, the built file otherwise. */
function startWorker(data: EmbeddedWorkerData): Worker {
  return startModuleWorker(
    import.meta.url,
    { source: './embedded-worker.ts', built: './embedded-worker.js' },
    { workerData: data },
    'message',
  )
}

/**
 * Starts PGlite (PostgreSQL 18 in WebAssembly) with PostGIS and pg_trgm on a thread of its own and serves it
 * over the Postgres wire protocol on 127.0.0.1 (wire-server.ts), password required, so the application
 * reaches it through the same Prisma driver adapter as a real server (docs/decisions/0011).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) {
    // the database files: the owner's alone
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 })
    chmodSync(options.dataDir, 0o700)
  }
  const password = options.password ?? randomBytes(24).toString('base64url')
  const worker = startWorker({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    port: options.port ?? 0,
    password,
    maxConnections: options.maxConnections ?? 64,
    extensions: options.extensions !== false,
    ...(options.idleInTransactionTimeoutMs === undefined ? {} : { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs }),
  })
  const next = () =>
    new Promise<EmbeddedWorkerMessage>((resolve) => {
      const onMessage = (message: EmbeddedWorkerMessage) => {
        worker.off('exit', onExit)
        resolve(message)
      }
      const onExit = (code: number) => {
        worker.off('message', onMessage)
        resolve({ type: 'error', message: `the embedded database's thread exited with code ${code}` })
      }
      worker.once('message', onMessage)
      worker.once('exit', onExit)
    })
  const started = await next()
  if (started.type !== 'listening') {
    await worker.terminate()
    throw new Error(`The embedded database did not start: ${started.type === 'error' ? started.message : started.type}`)
  }
  let stopping: Promise<void> | null = null
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${started.port}/postgres`,
    stop() {
      stopping ??= (async () => {
        const done = next()
        worker.postMessage('stop')
        const answer = await done
        await worker.terminate()
        if (answer.type === 'error') throw new Error(`The embedded database did not close cleanly: ${answer.message}`)
      })()
      return stopping
    },
  }
}
