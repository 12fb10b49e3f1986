import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
 * listens, so that the operators' CLI can use the running server's database instead of a second copy.
 */
function endpointFile(dataDir: string) {
  return path.join(dataDir, 'embedded-db.json')
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
  const file = path.join(dataDir, 'jwt-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(48).toString('base64url')
  writeFileSync(file, secret, { mode: 0o600 })
  return secret
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
    embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pglite'), port: env.EMBEDDED_DB_PORT })
    databaseUrl = embedded.url
    if (options.shareEmbedded) writeFileSync(endpointFile(dataDir), JSON.stringify({ url: embedded.url, pid: process.pid }))
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
