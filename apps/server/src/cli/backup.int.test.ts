import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { parseEnv } from '../config.js'
import { createDatabase } from '../db/database.js'
import { applyMigrations } from '../db/migrate.js'
import { ensureTestDataset } from '../data/test-dataset.js'
import { MIGRATIONS_DIR, REPO_ROOT, startRuntime } from '../runtime.js'
import { ensureDemoAccounts } from '../seed/demo-accounts.js'
import { createScratchDatabase, postgresAvailable } from '../../../../test/postgres.ts'
import { typeScriptArgs } from '../../../../test/server-process.ts'

/** `npm run cli -- <args>` as operators run it: a process of its own, with only the variables given. */
function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...typeScriptArgs(path.join(REPO_ROOT, 'apps/server/src/cli/main.ts')), ...args], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.once('close', (code) => resolve({ code, out, err }))
  })
}

/** Every table's and materialized view's row count, and a digest of the accounts (password hashes included). */
async function census(url: string): Promise<{ counts: Record<string, number>; users: string }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows: relations } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm') AND c.relname <> 'spatial_ref_sys' ORDER BY 1`,
    )
    const counts: Record<string, number> = {}
    for (const { name } of relations) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${name}"`)
      counts[name] = Number(rows[0]!.n)
    }
    const { rows } = await client.query<{ digest: string }>(
      `SELECT md5(string_agg(id || ':' || email || ':' || password_hash, ',' ORDER BY id)) AS digest FROM users`,
    )
    return { counts, users: rows[0]!.digest }
  } finally {
    await client.end()
  }
}

async function execute(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

const API_KEY = `INSERT INTO api_tokens (id, user_id, company_id, name, token_hash, prefix)
  SELECT gen_random_uuid(), id, company_id, 'nightly', md5(random()::text), 'sk-test' FROM users WHERE email = 'admin@citrus.demo'`

/** Deletes and adds rows: a restore must undo both. */
const DAMAGE = `
  DELETE FROM api_tokens; DELETE FROM users WHERE email LIKE '%@citrus.demo' AND role <> 'admin';
  INSERT INTO companies (company_name, industry, activation_key, updated_at) VALUES ('Added after the backup', 'Payer', '${randomUUID()}', now());`

const mode = (file: string) => statSync(file).mode & 0o777

describe('backup and restore of the embedded database (CLI)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'citrus-backup-'))
  const dataDir = path.join(dir, 'data')
  const file = path.join(dir, 'citrus.backup')
  const cliEnv = { DATA_DIR: dataDir }
  const env = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('refuses while a server holds the database, then backs up, and a restore brings back every row', async () => {
    // a server's runtime: the embedded database in DATA_DIR, migrated, shared with the CLI (embedded-db.json)
    const server = await startRuntime(env, undefined, { shareEmbedded: true })
    let before: Awaited<ReturnType<typeof census>>
    try {
      const db = createDatabase(server.config.databaseUrl, { maxConnections: 2 })
      try {
        await ensureDemoAccounts(db.prisma, 'Backup#Test2026')
        await db.pool.query(API_KEY)
      } finally {
        await db.close()
      }
      before = await census(server.config.databaseUrl)
      const refused = await cli(cliEnv, 'backup', file)
      expect(refused.code).toBe(1)
      expect(refused.err).toContain('A Citrus server is running on the embedded database')
      expect(existsSync(file)).toBe(false)
    } finally {
      await server.stop()
    }
    expect(before.counts.users).toBeGreaterThanOrEqual(4)
    expect(before.counts.api_tokens).toBe(1)
    expect(before.counts._prisma_migrations).toBeGreaterThan(10)

    const backup = await cli(cliEnv, 'backup', file, '--json')
    expect(backup.err).toBe('')
    expect(backup.code).toBe(0)
    expect(JSON.parse(backup.out)).toMatchObject({ file, database: 'embedded' })
    expect(mode(file)).toBe(0o600)
    expect(readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]))
    // an existing file is not replaced without --force
    const again = await cli(cliEnv, 'backup', file)
    expect(again.code).toBe(2)
    expect(again.err).toContain('exists: choose a new name or add --force')

    // damage the database: rows deleted and added
    const damaged = await startRuntime(env)
    try {
      await execute(damaged.config.databaseUrl, DAMAGE)
      const after = await census(damaged.config.databaseUrl)
      expect(after.counts.api_tokens).toBe(0)
      expect(after.counts.companies).toBe(before.counts.companies! + 1)
    } finally {
      await damaged.stop()
    }

    // a pg_dump archive is refused in embedded mode, with the reason
    const wrongKind = path.join(dir, 'wrong.dump')
    writeFileSync(wrongKind, 'PGDMP\x01\x0e')
    const wrong = await cli(cliEnv, 'restore', wrongKind)
    expect(wrong.code).toBe(2)
    expect(wrong.err).toContain('is a PostgreSQL backup (pg_dump)')

    const restore = await cli(cliEnv, 'restore', file)
    expect(restore.err).toBe('')
    expect(restore.code).toBe(0)
    expect(restore.out).toContain('Restored the embedded database')
    expect(readdirSync(dataDir).some((name) => name.startsWith('pglite.before-restore-'))).toBe(true)

    // a server starts on the restored database and finds every row, PostGIS working
    const restored = await startRuntime(env)
    try {
      const after = await census(restored.config.databaseUrl)
      expect(after).toEqual(before)
      const client = new pg.Client({ connectionString: restored.config.databaseUrl })
      await client.connect()
      const { rows } = await client.query<{ d: number }>(`SELECT ST_Distance('POINT(0 0)'::geometry, 'POINT(3 4)'::geometry) AS d`)
      await client.end()
      expect(rows[0]!.d).toBe(5)
    } finally {
      await restored.stop()
    }
  }, 900_000)
})

describe.runIf(await postgresAvailable())('backup and restore of a PostgreSQL database (CLI over pg_dump / pg_restore)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'citrus-backup-pg-'))
  const file = path.join(dir, 'citrus.dump')
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | null = null
  afterAll(async () => {
    await scratch?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('backs up while the database is in use, and a restore brings back every row', async () => {
    scratch = await createScratchDatabase()
    const url = scratch.url
    await applyMigrations(url, MIGRATIONS_DIR)
    const db = createDatabase(url, { maxConnections: 4 })
    try {
      await ensureDemoAccounts(db.prisma, 'Backup#Test2026')
      await ensureTestDataset(db.pool, url)
      await db.pool.query(API_KEY)
      const before = await census(url)
      expect(before.counts.providers).toBeGreaterThan(1000)

      // taken while a pool holds connections, as a running server does
      await db.pool.query('SELECT 1')
      const backup = await cli({ DATABASE_URL: url }, 'backup', file, '--json')
      expect(backup.err).toBe('')
      expect(backup.code).toBe(0)
      expect(JSON.parse(backup.out)).toMatchObject({ file, database: 'postgres' })
      expect(mode(file)).toBe(0o600)
      expect(readFileSync(file).subarray(0, 5).toString()).toBe('PGDMP')
      await db.close()

      await execute(url, `${DAMAGE} DELETE FROM claim_procedures WHERE claim_id % 2 = 0;`)
      expect((await census(url)).counts.api_tokens).toBe(0)

      const restore = await cli({ DATABASE_URL: url }, 'restore', file)
      expect(restore.err).toBe('')
      expect(restore.code).toBe(0)
      expect(await census(url)).toEqual(before)
    } finally {
      await db.close().catch(() => undefined)
    }
  }, 300_000)
})
