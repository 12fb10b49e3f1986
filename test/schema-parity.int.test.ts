import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations, readMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { createScratchDatabase, postgresAvailable } from './postgres.ts'

/** Tables, columns, indexes and constraints of our own schema (extension-owned objects excluded). */
async function describeSchema(url: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const ownedByExtension = `EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')`
    const columns = await client.query(`
      SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
             a.attnotnull AS not_null, pg_get_expr(ad.adbin, ad.adrelid) AS default
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
      WHERE c.relkind IN ('r', 'p', 'm', 'v') AND NOT ${ownedByExtension}
      ORDER BY 1, 2`)
    const indexes = await client.query(`
      SELECT c.relname AS index, pg_get_indexdef(c.oid) AS definition
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
      WHERE c.relkind = 'i' AND NOT ${ownedByExtension}
      ORDER BY 1`)
    const constraints = await client.query(`
      SELECT con.conname AS name, pg_get_constraintdef(con.oid) AS definition
      FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace AND n.nspname = 'public'
      JOIN pg_class c ON c.oid = con.conrelid
      -- PostgreSQL 18 also lists NOT NULL as constraints (contype n); columns.not_null covers them.
      WHERE con.contype <> 'n' AND NOT ${ownedByExtension}
      ORDER BY 1`)
    const extensions = await client.query(`SELECT extname FROM pg_extension WHERE extname IN ('postgis', 'pg_trgm') ORDER BY 1`)
    return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows, extensions: extensions.rows }
  } finally {
    await client.end()
  }
}

describe('migrations in both database modes', () => {
  let embedded: EmbeddedPostgres
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | null = null
  let available = false

  beforeAll(async () => {
    available = await postgresAvailable()
    embedded = await startEmbeddedPostgres({ maxConnections: 4 })
    if (available) scratch = await createScratchDatabase()
  })
  afterAll(async () => {
    await embedded?.stop()
    await scratch?.drop()
  })

  it('give the same tables, columns, indexes and constraints on PGlite and PostgreSQL', async (context) => {
    if (!available || !scratch) {
      // CI always has PostgreSQL with PostGIS (.ci/run installs it); a developer machine may not.
      if (process.env.CI) throw new Error('PostgreSQL with PostGIS is required for the parity test in CI')
      context.skip()
      return
    }
    const expected = readMigrations(MIGRATIONS_DIR).map((m) => m.name)
    const onEmbedded = await applyMigrations(embedded.url, MIGRATIONS_DIR)
    const onPostgres = await applyMigrations(scratch.url, MIGRATIONS_DIR)
    expect(onEmbedded.applied).toEqual(expected)
    expect(onPostgres.applied).toEqual(expected)

    const a = await describeSchema(embedded.url)
    const b = await describeSchema(scratch.url)
    expect(a.extensions).toEqual([{ extname: 'pg_trgm' }, { extname: 'postgis' }])
    expect(a.columns.length).toBeGreaterThan(0)
    expect(a.columns).toEqual(b.columns)
    expect(a.indexes).toEqual(b.indexes)
    expect(a.constraints).toEqual(b.constraints)
  })

  it('records applied migrations the way prisma migrate deploy does, and re-applies nothing', async () => {
    const again = await applyMigrations(embedded.url, MIGRATIONS_DIR)
    expect(again.applied).toEqual([])
    const client = new pg.Client({ connectionString: embedded.url })
    await client.connect()
    const { rows } = await client.query(
      'SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM "_prisma_migrations" ORDER BY migration_name',
    )
    await client.end()
    const files = readMigrations(MIGRATIONS_DIR)
    expect(rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name))
    for (const [index, row] of rows.entries()) {
      expect(row.checksum).toBe(files[index]?.checksum)
      expect(row.finished_at).toBeInstanceOf(Date)
      expect(row.applied_steps_count).toBe(1)
      expect(row.rolled_back_at).toBeNull()
    }
  })
})
