import type pg from 'pg'
import { pendingMigrations } from '../db/migrate.js'

/** `SELECT 1` on the pool, false after `timeoutMs` (a wedged database never answers at all) or on an error. */
export async function databaseAnswers(pool: pg.Pool, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))
  const probe = pool.query<{ ok: number }>('SELECT 1 AS ok').then(
    ({ rows }) => rows[0]?.ok === 1,
    () => false,
  )
  try {
    return await Promise.race([probe, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** The migrations of `migrations` the database has not applied; rejects after `timeoutMs` (busy, wedged) or on an error. */
export async function pendingMigrationsWithin(pool: pg.Pool, migrations: string[], timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)))
  return Promise.race([pendingMigrations(pool, migrations), timeout]).finally(() => clearTimeout(timer))
}
