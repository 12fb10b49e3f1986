import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaClient } from '../generated/prisma/client.js'

export type { PrismaClient }

export interface Database {
  /** typed access through Prisma (driver adapter over the pool below) */
  prisma: PrismaClient
  /** the same pool for SQL Prisma cannot express (PostGIS, COPY, trigram ranking) */
  pool: pg.Pool
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

export function createDatabase(connectionString: string, options: { maxConnections?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10 })
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined)
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: TRANSACTION_OPTIONS })
  let closed = false
  return {
    prisma,
    pool,
    async close() {
      if (closed) return
      closed = true
      await prisma.$disconnect()
      await pool.end()
    },
  }
}
