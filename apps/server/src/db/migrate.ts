import { createHash, randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'

export interface MigrationFile {
  name: string
  sql: string
  checksum: string
}

export interface MigrationResult {
  applied: string[]
  alreadyApplied: number
}

/** Same key `prisma migrate deploy` locks on, so the stock CLI and this runner never interleave. */
const ADVISORY_LOCK_KEY = 72707369

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`

export function readMigrations(migrationsDir: string): MigrationFile[] {
  if (!existsSync(migrationsDir)) return []
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(migrationsDir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8')
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') }
    })
}

export class MigrationError extends Error {
  override name = 'MigrationError'
}

/**
 * Applies pending migrations in Prisma's folder format and records them in `_prisma_migrations`
 * exactly as `prisma migrate deploy` does (docs/decisions/0002). Each migration runs in its own
 * transaction, so a failing one leaves the database as it was and is recorded with its error.
 */
export async function applyMigrations(connectionString: string, migrationsDir: string): Promise<MigrationResult> {
  const migrations = readMigrations(migrationsDir)
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY])
    await client.query(CREATE_MIGRATIONS_TABLE)
    const { rows } = await client.query<{
      migration_name: string
      checksum: string
      finished_at: Date | null
      rolled_back_at: Date | null
    }>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at')

    const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null)
    if (failed) {
      throw new MigrationError(`Migration ${failed.migration_name} failed earlier; fix it and mark it rolled back before starting again.`)
    }
    const done = new Set(rows.filter((row) => row.finished_at !== null).map((row) => row.migration_name))
    const applied: string[] = []
    for (const migration of migrations) {
      if (done.has(migration.name)) continue
      const id = randomUUID()
      await client.query(
        'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
        [id, migration.checksum, migration.name],
      )
      try {
        await client.query('BEGIN')
        await client.query(migration.sql)
        await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id])
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK')
        const message = error instanceof Error ? error.message : String(error)
        await client.query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [id, message])
        throw new MigrationError(`Migration ${migration.name} failed: ${message}`)
      }
      applied.push(migration.name)
    }
    return { applied, alreadyApplied: done.size }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]).catch(() => undefined)
    await client.end()
  }
}

/** Names of the migration folders, in the order they apply. */
export function migrationNames(migrationsDir: string): string[] {
  return readMigrations(migrationsDir).map((m) => m.name)
}

/** Which of the given migrations the database has not finished applying. */
export async function pendingMigrations(client: pg.ClientBase | pg.Pool, names: readonly string[]): Promise<string[]> {
  const exists = await client.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`)
  if (!exists.rows[0]?.present) return [...names]
  const { rows } = await client.query<{ migration_name: string }>(
    'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  )
  const done = new Set(rows.map((row) => row.migration_name))
  return names.filter((name) => !done.has(name))
}
