import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AppConfig, Env } from './config.js'
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded.js'
import { applyMigrations, type MigrationResult } from './db/migrate.js'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma/migrations')
export const DEFAULT_WEB_DIST = path.join(REPO_ROOT, 'apps/web/dist')

export interface Runtime {
  config: AppConfig
  migrations: MigrationResult
  /** stops what the runtime started (the embedded database) */
  stop(): Promise<void>
}

/**
 * The embedded database can be opened by one process only. The server records where its socket server
 * listens (the URL holds the password), so that the operators' CLI can use the running server's database
 * instead of a second copy. Owner-only, as DATA_DIR itself.
 */
function endpointFile(dataDir: string) {
  return path.join(dataDir, 'embedded-db.json')
}

/** The embedded database's password, generated at the first start (owner-only). */
function passwordFile(dataDir: string) {
  return path.join(dataDir, 'embedded-db-password')
}

/**
 * DATA_DIR holds the database files and its secrets: created, or narrowed, to owner-only access (0700). A
 * file system that cannot change modes (some bind mounts) is left as it is.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  try {
    chmodSync(dir, 0o700)
  } catch {
    // not ours to change; the files inside are still 0600
  }
}

/** Writes a file only its owner may read (0600), also when it existed with a wider mode. */
function writePrivateFile(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 })
  chmodSync(file, 0o600)
}

/** A secret kept under DATA_DIR: read (and narrowed to 0600) if present, else generated once. */
function privateSecret(file: string, generate: () => string): string {
  if (existsSync(file)) {
    chmodSync(file, 0o600)
    return readFileSync(file, 'utf8').trim()
  }
  ensurePrivateDir(path.dirname(file))
  const secret = generate()
  writePrivateFile(file, secret)
  return secret
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** URL of the embedded database a running server holds for DATA_DIR, if one does. */
export function runningEmbeddedUrl(env: Env): string | null {
  const file = endpointFile(path.resolve(REPO_ROOT, env.DATA_DIR))
  if (!existsSync(file)) return null
  try {
    const { url, pid } = JSON.parse(readFileSync(file, 'utf8')) as { url: string; pid: number }
    return isAlive(pid) ? url : null
  } catch {
    return null
  }
}

/** A signing secret for development: generated once, kept under DATA_DIR with owner-only access. */
function developmentSecret(dataDir: string): string {
  return privateSecret(path.join(dataDir, 'jwt-secret'), () => randomBytes(48).toString('base64url'))
}

/**
 * Resolves the database (PostgreSQL from DATABASE_URL, else the embedded one persisted under
 * DATA_DIR), applies pending migrations and returns the configuration buildApp takes.
 */
export async function startRuntime(
  env: Env,
  log: (message: string) => void = () => undefined,
  options: { shareEmbedded?: boolean } = {},
): Promise<Runtime> {
  const dataDir = path.resolve(REPO_ROOT, env.DATA_DIR)
  let embedded: EmbeddedPostgres | null = null
  let databaseUrl = env.DATABASE_URL
  if (!databaseUrl) {
    const running = runningEmbeddedUrl(env)
    if (running) {
      throw new Error(`The embedded database in ${dataDir} is in use by another Citrus process (${running}).`)
    }
    log(`Starting the embedded PostgreSQL (PGlite + PostGIS) in ${path.relative(process.cwd(), dataDir) || '.'}/pglite ...`)
    ensurePrivateDir(dataDir)
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(dataDir, 'pglite'),
      port: env.EMBEDDED_DB_PORT,
      password: privateSecret(passwordFile(dataDir), () => randomBytes(24).toString('base64url')),
      idleInTransactionTimeoutMs: env.EMBEDDED_DB_IDLE_TIMEOUT_MS,
    })
    databaseUrl = embedded.url
    if (options.shareEmbedded) writePrivateFile(endpointFile(dataDir), JSON.stringify({ url: embedded.url, pid: process.pid }))
  }
  try {
    const migrations = await applyMigrations(databaseUrl, MIGRATIONS_DIR)
    if (migrations.applied.length > 0) log(`Applied migrations: ${migrations.applied.join(', ')}`)
    const webDistDir = env.WEB_DIST_DIR ? path.resolve(REPO_ROOT, env.WEB_DIST_DIR) : DEFAULT_WEB_DIST
    return {
      config: {
        env,
        databaseUrl,
        databaseMode: embedded ? 'embedded' : 'postgres',
        jwtSecret: env.JWT_SECRET ?? developmentSecret(dataDir),
        migrationsDir: MIGRATIONS_DIR,
        webDistDir,
      },
      migrations,
      stop: async () => {
        if (embedded && options.shareEmbedded) rmSync(endpointFile(dataDir), { force: true })
        await embedded?.stop()
      },
    }
  } catch (error) {
    await embedded?.stop()
    throw error
  }
}
