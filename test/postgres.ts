import { randomUUID } from 'node:crypto'
import pg from 'pg'

/** The PostgreSQL server tests may create scratch databases on (needs PostGIS). */
export function serverUrl(): string {
  const base = process.env.TEST_DATABASE_URL ?? process.env.PARITY_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const url = new URL(base)
  url.pathname = '/postgres'
  return url.toString()
}

/** Is a PostgreSQL server with the PostGIS package reachable? */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl(), connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    const { rows } = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'")
    return rows.length > 0
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Creates an empty database and returns its URL with a function that drops it. */
export async function createScratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `citrus_scratch_${randomUUID().replace(/-/g, '').slice(0, 12)}`
  const admin = new pg.Client({ connectionString: serverUrl() })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(serverUrl())
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl() })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
}
