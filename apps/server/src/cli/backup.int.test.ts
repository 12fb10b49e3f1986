import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.js'
import { signLoginToken } from '../auth/tokens.js'
import { type AppConfig, parseEnv } from '../config.js'
import { createDatabase, type Database } from '../db/database.js'
import { applyMigrations } from '../db/migrate.js'
import { ensureTestDataset } from '../data/test-dataset.js'
import { ApiTokenService } from '../domain/api-tokens.js'
import { CLI_ACTOR } from '../domain/audit.js'
import { readDataVersion } from '../lib/versioned-cache.js'
import { MIGRATIONS_DIR, REPO_ROOT, startRuntime } from '../runtime.js'
import { ensureDemoAccounts } from '../seed/demo-accounts.js'
import { shareProviderPage } from '../services/pricing/share.js'
import { createScratchDatabase, postgresAvailable, serverUrl } from '../../../../test/postgres.ts'
import { typeScriptArgs } from '../../../../test/server-process.ts'

/**
 * docs/operations.md#backup-and-restore, run as written: the CLI in both database modes, and in PostgreSQL mode
 * the pg_dump / pg_restore commands and their Docker Compose form parsed out of the document. Every restore is
 * checked by content: each table's, materialized view's and sequence's digest must equal the one taken before
 * the backup, over the ci-scale dataset and account data of every kind.
 */

type Result = { code: number | null; out: string; err: string }

function run(command: string, args: string[], env: Record<string, string>, cwd = REPO_ROOT): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.once('close', (code) => resolve({ code, out, err }))
  })
}

/** `npm run cli -- <args>` as operators run it: a process of its own, with only the variables given. */
function cli(env: Record<string, string>, ...args: string[]): Promise<Result> {
  return run(process.execPath, [...typeScriptArgs(path.join(REPO_ROOT, 'apps/server/src/cli/main.ts')), ...args], {
    PATH: process.env.PATH!,
    LOG_LEVEL: 'silent',
    ...env,
  })
}

/** Shell lines as the document gives them, in `cwd`, with only the variables given. */
function shell(lines: string[], env: Record<string, string>, cwd: string): Promise<Result> {
  return run('sh', ['-ec', lines.join('\n')], { PATH: process.env.PATH!, ...env }, cwd)
}

/** The `sh` code blocks of operations.md's backup section, continuation lines joined, one command a line. */
function documentedCommands(): string[][] {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/operations.md'), 'utf8')
  const start = doc.indexOf('\n## Backup and restore\n')
  expect(start).toBeGreaterThan(0)
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1))
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    block[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter((line) => line.trim() !== ''),
  )
}

interface Contents {
  /** rows of every table and materialized view */
  rows: Record<string, number>
  /** md5 of every table's and materialized view's rows as text, sorted */
  digests: Record<string, string>
  /** every sequence's last_value:is_called */
  sequences: Record<string, string>
}

/** Every relation of every schema but the system's, by content. */
async function contents(url: string): Promise<Contents> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows: relations } = await client.query<{ name: string; ref: string; kind: string }>(
      `SELECT CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END AS name,
              format('%I.%I', n.nspname, c.relname) AS ref, c.relkind::text AS kind
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
          AND c.relkind IN ('r', 'p', 'm', 'S')
        ORDER BY 1`,
    )
    const result: Contents = { rows: {}, digests: {}, sequences: {} }
    for (const { name, ref, kind } of relations) {
      if (kind === 'S') {
        const { rows } = await client.query<{ v: string }>(`SELECT last_value || ':' || is_called AS v FROM ${ref}`)
        result.sequences[name] = rows[0]!.v
        continue
      }
      const { rows } = await client.query<{ n: string; digest: string }>(
        `SELECT count(*) AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM ${ref} t`,
      )
      result.rows[name] = Number(rows[0]!.n)
      result.digests[name] = rows[0]!.digest
    }
    return result
  } finally {
    await client.end()
  }
}

/** Tables and views the ci-scale dataset and the account data below fill: a restore that finds them empty fails. */
const FILLED = [
  // product data (the seed)
  'providers',
  'facilities',
  'facility_prices',
  'health_systems',
  'insurers',
  'plan_cost_sharing',
  'patients',
  'claims',
  'claim_procedures',
  'claim_diagnoses',
  'pharmacy_claims',
  'snakebite_cases',
  'antivenom_purchases',
  'zips',
  'counties',
  'states',
  'icd10_codes',
  'procedure_codes',
  'specialties',
  'data_loads',
  'table_row_counts',
  // materialized views over it
  'mv_provider_points',
  'mv_region_neighbours',
  'mv_search_words',
  // accounts
  'companies',
  'company_policies',
  'users',
  'api_tokens',
  'audit_log',
  'shareable_links',
  'ai_documents',
  'ai_document_pages',
  'ai_pins',
  'message_outbox',
  '_prisma_migrations',
]

function expectRealDataset(found: Contents): void {
  for (const table of FILLED) expect(found.rows[table], table).toBeGreaterThan(0)
  expect(found.rows.providers).toBeGreaterThanOrEqual(3000)
  expect(found.rows.zips).toBeGreaterThan(40_000)
  expect(Object.values(found.rows).filter((rows) => rows > 0).length).toBeGreaterThanOrEqual(40)
  expect(Object.keys(found.sequences).length).toBeGreaterThan(10)
}

const PASSWORD = 'Backup#Test2026'
const ADMIN = 'admin@citrus.demo'

interface Credentials {
  npi: string
  apiKey: string
  loginToken: string
  shareToken: string
  dataVersion: string
}

/**
 * Account data of every kind on top of the dataset: the demo accounts, an API key (with its audit row), a provider
 * page's shareable link, an AI Hub document with pages and a pin, outbox messages; and the credentials that must
 * still work after a restore.
 */
async function addAccountData(db: Database, jwtSecret: string): Promise<Credentials> {
  await ensureDemoAccounts(db.prisma, PASSWORD)
  const admin = await db.prisma.user.findUniqueOrThrow({ where: { email: ADMIN }, include: { company: true } })
  const { token: apiKey } = await new ApiTokenService(db.prisma, CLI_ACTOR).create({ user_id: admin.id, name: 'nightly' })
  const { rows } = await db.pool.query<{ npi: string }>('SELECT npi FROM providers ORDER BY id LIMIT 1')
  const npi = rows[0]!.npi
  const owner = { company_id: admin.company_id, user_id: admin.id }
  const shared = await shareProviderPage({ prisma: db.prisma, secret: jwtSecret, publicUrl: '' }, owner, npi)
  const document = randomUUID()
  await db.pool.query(
    `INSERT INTO ai_documents (id, user_id, company_id, title, filename, type, size, tokens, page_count, tags)
       VALUES ($1, $2, $3, 'Plan summary', 'plan.pdf', 'application/pdf', 2048, 40, 2, ARRAY['plan', 'ßummary ✓'])`,
    [document, admin.id, admin.company_id],
  )
  await db.pool.query(
    `INSERT INTO ai_document_pages (document_id, page_number, text, tokens)
       VALUES ($1, 1, E'Deductible: USD 1,500\nCopay: 20%', 20), ($1, 2, 'Out-of-pocket «max»', 20)`,
    [document],
  )
  await db.pool.query(
    `INSERT INTO ai_pins (id, user_id, company_id, type, entity_key, source, display_name, data, position)
       VALUES (gen_random_uuid(), $1, $2, 'provider', $3, 'ATLAS', 'A pinned provider', jsonb_build_object('npi', $3::text, 'score', 0.1 + 0.2), 0)`,
    [admin.id, admin.company_id, npi],
  )
  await db.pool.query(
    `INSERT INTO message_outbox (id, channel, recipient, subject, body, payload, status, attempts, last_error)
       VALUES (gen_random_uuid(), 'email', 'someone@example.com', 'Welcome', 'Hello', '{"link": "/welcome"}', 'pending', 0, NULL),
              (gen_random_uuid(), 'sms', '+15555550100', NULL, 'Your code', NULL, 'failed', 5, 'gave up')`,
  )
  return {
    npi,
    apiKey,
    loginToken: await signLoginToken(jwtSecret, { ...admin, company_name: admin.company.company_name }),
    shareToken: new URLSearchParams(shared.url.split('?')[1]).get('token')!,
    dataVersion: await readDataVersion(db.pool),
  }
}

/**
 * The app, built against the restored database, reads it: migrations complete, the same data version, a login
 * with the password, and a provider page through a login token, the API key and the link made before the backup.
 * Then one row each into tables with id sequences: the sequences came back too, so new ids do not collide.
 */
async function expectAppReads(config: AppConfig, credentials: Credentials, before: Contents): Promise<void> {
  const app = await buildApp(config, { logger: false })
  try {
    await app.ready()
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)
    expect(await readDataVersion(app.db.pool)).toBe(credentials.dataVersion)
    const login = await app.inject({ method: 'POST', url: '/api/users/login', payload: { email: ADMIN, password: PASSWORD } })
    expect(login.statusCode, login.body).toBe(200)
    const page = `/api/cost-transparency/provider/${credentials.npi}`
    for (const [label, request] of [
      ['login token', { url: page, headers: { authorization: `Bearer ${credentials.loginToken}` } }],
      ['API key', { url: page, headers: { authorization: `Bearer ${credentials.apiKey}` } }],
      ['shared link', { url: `${page}?token=${encodeURIComponent(credentials.shareToken)}` }],
    ] as const) {
      const response = await app.inject({ method: 'GET', ...request })
      expect(response.statusCode, `${label}: ${response.body}`).toBe(200)
      expect(response.json()).toMatchObject({ provider: { npi: credentials.npi } })
    }
    const company = await app.db.pool.query<{ id: number }>(
      `INSERT INTO companies (company_name, industry, activation_key, updated_at) VALUES ('After the restore', 'Payer', $1, now()) RETURNING id`,
      [randomUUID()],
    )
    expect(company.rows[0]!.id).toBeGreaterThan(Number(before.sequences.companies_id_seq!.split(':')[0]))
    await app.db.pool.query(
      `INSERT INTO users (email, password_hash, company_id, updated_at) VALUES ('after-restore@example.com', 'x', $1, now())`,
      [company.rows[0]!.id],
    )
  } finally {
    await app.close()
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

/** Deletes, changes and adds rows: a restore must undo all three. */
const DAMAGE = `
  DELETE FROM api_tokens; DELETE FROM ai_documents; DELETE FROM users WHERE email LIKE '%@citrus.demo' AND role <> 'admin';
  DELETE FROM claim_procedures WHERE claim_id % 2 = 0; UPDATE providers SET first_name = 'Changed' WHERE id % 7 = 0;
  INSERT INTO companies (company_name, industry, activation_key, updated_at) VALUES ('Added after the backup', 'Payer', '${randomUUID()}', now());`

const mode = (file: string) => statSync(file).mode & 0o777

const appConfig = (
  databaseUrl: string,
  databaseMode: AppConfig['databaseMode'],
  jwtSecret: string,
  env: Record<string, string> = {},
): AppConfig => ({
  env: parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', OUTBOX_POLL_INTERVAL_MS: '0', ...env }),
  databaseUrl,
  databaseMode,
  jwtSecret,
  migrationsDir: MIGRATIONS_DIR,
  webDistDir: null,
})

/** A folder of its own for a suite, made when it runs (a skipped suite leaves none behind) and removed after it. */
function useTemporaryDir(prefix: string): () => string {
  let dir: string | null = null
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix))
  })
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  return () => dir!
}

describe('backup and restore of the embedded database (CLI)', () => {
  const temporaryDir = useTemporaryDir('citrus-backup-')

  it('backs up with the server stopped, and a restore into a new DATA_DIR or over a changed database finds every row', async () => {
    const dir = temporaryDir()
    const dataDir = path.join(dir, 'data')
    const freshDir = path.join(dir, 'fresh')
    const file = path.join(dir, 'citrus.backup')
    const env = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir })
    const freshEnv = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: freshDir, OUTBOX_POLL_INTERVAL_MS: '0' })
    // the documented commands are the CLI's, run below as they are (with the test's file names)
    const commands = documentedCommands().find((lines) => lines.some((line) => line.startsWith('npm run cli -- backup ')))
    expect(commands?.some((line) => line.startsWith('npm run cli -- restore '))).toBe(true)

    // a server's runtime: the embedded database in DATA_DIR, migrated, shared with the CLI (embedded-db.json)
    const server = await startRuntime(env, undefined, { shareEmbedded: true })
    let before: Contents
    let credentials: Credentials
    try {
      const db = createDatabase(server.config.databaseUrl, { maxConnections: 4, background: true })
      try {
        await ensureTestDataset(db.pool, server.config.databaseUrl)
        credentials = await addAccountData(db, server.config.jwtSecret)
      } finally {
        await db.close()
      }
      // the CLI refuses while the server holds the database (read meanwhile, by content)
      const [found, refused] = await Promise.all([contents(server.config.databaseUrl), cli({ DATA_DIR: dataDir }, 'backup', file)])
      before = found
      expectRealDataset(before)
      expect(refused.code).toBe(1)
      expect(refused.err).toContain('A Citrus server is running on the embedded database')
      expect(existsSync(file)).toBe(false)
    } finally {
      await server.stop()
    }

    const backup = await cli({ DATA_DIR: dataDir }, 'backup', file, '--json')
    expect(backup.err).toBe('')
    expect(backup.code).toBe(0)
    expect(JSON.parse(backup.out)).toMatchObject({ file, database: 'embedded' })
    expect(mode(file)).toBe(0o600)
    expect(readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]))

    // into a new DATA_DIR (another machine), with the signing secret copied beside it as documented; meanwhile an
    // existing file is not replaced without --force, and a pg_dump archive is refused in embedded mode
    mkdirSync(freshDir, { mode: 0o700 })
    copyFileSync(path.join(dataDir, 'jwt-secret'), path.join(freshDir, 'jwt-secret'))
    const wrongKind = path.join(dir, 'wrong.dump')
    writeFileSync(wrongKind, 'PGDMP\x01\x0e')
    const [restore, again, wrong] = await Promise.all([
      cli({ DATA_DIR: freshDir }, 'restore', file),
      cli({ DATA_DIR: dataDir }, 'backup', file),
      cli({ DATA_DIR: dataDir }, 'restore', wrongKind),
    ])
    expect(again.code).toBe(2)
    expect(again.err).toContain('exists: choose a new name or add --force')
    expect(wrong.code).toBe(2)
    expect(wrong.err).toContain('is a PostgreSQL backup (pg_dump)')
    expect(restore.err).toBe('')
    expect(restore.code).toBe(0)
    expect(restore.out).toContain('Restored the embedded database')
    let restored = await startRuntime(freshEnv)
    try {
      expect(await contents(restored.config.databaseUrl)).toEqual(before)
      await expectAppReads(restored.config, credentials, before)
      await execute(restored.config.databaseUrl, DAMAGE)
    } finally {
      await restored.stop()
    }

    // over a database changed since the backup: the changed one is set aside, the backup's comes back whole
    const over = await cli({ DATA_DIR: freshDir }, 'restore', file)
    expect(over.err).toBe('')
    expect(over.code).toBe(0)
    expect(readdirSync(freshDir).some((name) => name.startsWith('pglite.before-restore-'))).toBe(true)
    restored = await startRuntime(freshEnv)
    try {
      expect(await contents(restored.config.databaseUrl)).toEqual(before)
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

/**
 * `docker compose` for the document's Compose commands: `exec -T db <tool>` runs the tool here against the test
 * server, the role `citrus` and the database `citrus` standing for the test's; `stop app` / `start app` are logged.
 */
function composeShim(binDir: string): void {
  mkdirSync(binDir, { recursive: true })
  writeFileSync(
    path.join(binDir, 'docker'),
    `#!${process.execPath}
const { spawnSync } = require('node:child_process')
const { appendFileSync } = require('node:fs')
const args = process.argv.slice(2)
appendFileSync(process.env.COMPOSE_LOG, args.join(' ') + '\\n')
if (args[0] !== 'compose') process.exit(64)
if ((args[1] === 'stop' || args[1] === 'start') && args[2] === 'app' && args.length === 3) process.exit(0)
if (args[1] !== 'exec' || args[2] !== '-T' || args[3] !== 'db') process.exit(64)
const toolArgs = args.slice(5).map((arg, i, all) =>
  arg !== 'citrus' ? arg : all[i - 1] === '-U' ? process.env.COMPOSE_USER : process.env.COMPOSE_DB)
process.exit(spawnSync(args[4], toolArgs, { stdio: 'inherit' }).status ?? 1)
`,
    { mode: 0o755 },
  )
}

// PostgreSQL with PostGIS is required where a run says it has one (CI, TEST_DATABASE_URL): there its absence fails the
// test rather than skipping it unseen. Elsewhere (a developer machine without it) the test is skipped, saying why.
const postgresReady = await postgresAvailable()
const postgresRequiredBy = process.env.CI ? 'CI is set' : process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL is set' : null
const noPostgres = `no PostgreSQL with PostGIS answers at ${new URL(serverUrl()).host}`
if (!postgresReady && !postgresRequiredBy)
  console.warn(`backup.int.test.ts: skipping the pg_dump / pg_restore tests: ${noPostgres} (set TEST_DATABASE_URL to run them)`)

describe.runIf(postgresReady || postgresRequiredBy !== null)(
  'backup and restore of a PostgreSQL database (the documented pg_dump / pg_restore, and the CLI)',
  () => {
    const temporaryDir = useTemporaryDir('citrus-backup-pg-')
    const scratches: Awaited<ReturnType<typeof createScratchDatabase>>[] = []
    beforeAll(() => {
      if (!postgresReady) throw new Error(`PostgreSQL with PostGIS is required (${postgresRequiredBy}), but ${noPostgres}`)
    })
    afterAll(async () => {
      for (const scratch of scratches) await scratch.drop()
    })

    it('backs up while the database is in use, and a restore into a new database or over a changed one finds every row', async () => {
      const dir = temporaryDir()
      const blocks = documentedCommands()
      const raw = blocks.find((lines) => lines.some((line) => line.startsWith('pg_dump ')))!
      const compose = blocks.find((lines) => lines.some((line) => line.includes('docker compose exec')))!
      const rawRestoreAt = raw.findIndex((line) => line.startsWith('pg_restore '))
      const composeRestoreAt = compose.findIndex((line) => line.includes('docker compose stop app'))
      expect(rawRestoreAt).toBeGreaterThan(0)
      expect(composeRestoreAt).toBeGreaterThan(0)

      const source = await createScratchDatabase()
      scratches.push(source)
      await applyMigrations(source.url, MIGRATIONS_DIR)
      const jwtSecret = 'backup-test-secret-long-enough-for-hs256-signing'
      const db = createDatabase(source.url, { maxConnections: 4 })
      let before: Contents
      let credentials: Credentials
      try {
        await ensureTestDataset(db.pool, source.url)
        credentials = await addAccountData(db, jwtSecret)
        before = await contents(source.url)
        expectRealDataset(before)

        // the CLI's backup, taken while a pool holds connections, as a running server does
        await db.pool.query('SELECT 1')
        const cliFile = path.join(dir, 'cli.dump')
        const backup = await cli({ DATABASE_URL: source.url }, 'backup', cliFile, '--json')
        expect(backup.err).toBe('')
        expect(backup.code).toBe(0)
        expect(JSON.parse(backup.out)).toMatchObject({ file: cliFile, database: 'postgres' })
        expect(mode(cliFile)).toBe(0o600)
        expect(readFileSync(cliFile).subarray(0, 5).toString()).toBe('PGDMP')

        // the document's pg_dump, then its pg_restore into a new, empty database
        const dumped = await shell(raw.slice(0, rawRestoreAt), { DATABASE_URL: source.url }, dir)
        expect(dumped.err).toBe('')
        expect(dumped.code).toBe(0)
        const dumpFile = path.join(dir, 'citrus.dump')
        expect(mode(dumpFile)).toBe(0o600)
        expect(readFileSync(dumpFile).subarray(0, 5).toString()).toBe('PGDMP')
        const target = await createScratchDatabase()
        scratches.push(target)
        const restored = await shell(raw.slice(rawRestoreAt), { DATABASE_URL: target.url }, dir)
        expect(restored.err).toBe('')
        expect(restored.code).toBe(0)
        expect(await contents(target.url)).toEqual(before)
        await expectAppReads(appConfig(target.url, 'postgres', jwtSecret, { DATABASE_URL: target.url }), credentials, before)

        // the document's Compose commands: a dump of the source, restored over the (since changed) target
        const binDir = path.join(dir, 'bin')
        composeShim(binDir)
        const server = new URL(serverUrl())
        const composeLog = path.join(dir, 'compose.log')
        const composeEnv = (database: string) => ({
          PATH: `${binDir}:${process.env.PATH}`,
          PGHOST: server.hostname,
          PGPORT: server.port || '5432',
          ...(server.password ? { PGPASSWORD: decodeURIComponent(server.password) } : {}),
          COMPOSE_USER: decodeURIComponent(server.username),
          COMPOSE_DB: database,
          COMPOSE_LOG: composeLog,
        })
        rmSync(dumpFile)
        const composeDump = await shell(compose.slice(0, composeRestoreAt), composeEnv(new URL(source.url).pathname.slice(1)), dir)
        expect(composeDump.err).toBe('')
        expect(composeDump.code).toBe(0)
        expect(mode(dumpFile)).toBe(0o600)
        await execute(target.url, DAMAGE)
        const composeRestore = await shell(compose.slice(composeRestoreAt), composeEnv(new URL(target.url).pathname.slice(1)), dir)
        expect(composeRestore.err).toBe('')
        expect(composeRestore.code).toBe(0)
        expect(
          readFileSync(composeLog, 'utf8')
            .trim()
            .split('\n')
            .map((line) => line.split(' ').slice(0, 5).join(' ')),
        ).toEqual(['compose exec -T db pg_dump', 'compose stop app', 'compose exec -T db pg_restore', 'compose start app'])
        expect(await contents(target.url)).toEqual(before)
        await db.close()

        // the CLI's restore over the changed source
        await execute(source.url, DAMAGE)
        expect((await contents(source.url)).rows.api_tokens).toBe(0)
        const restore = await cli({ DATABASE_URL: source.url }, 'restore', cliFile)
        expect(restore.err).toBe('')
        expect(restore.code).toBe(0)
        expect(await contents(source.url)).toEqual(before)
      } finally {
        await db.close().catch(() => undefined)
      }
    }, 900_000)
  },
)
