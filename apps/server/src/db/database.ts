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

export function createDatabase(connectionString: string, options: { maxConnections?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10 })
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined)
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) })
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
