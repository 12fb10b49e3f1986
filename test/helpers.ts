import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import { afterAll, beforeAll, inject, vi } from 'vitest'
import type { Role } from '../packages/contracts/src/index.ts'
import { buildApp } from '../apps/server/src/app.ts'
import { hashPassword } from '../apps/server/src/auth/password.ts'
import { signShareToken } from '../apps/server/src/auth/tokens.ts'
import { parseEnv, type AppConfig } from '../apps/server/src/config.ts'
import { createDatabase, type Database } from '../apps/server/src/db/database.ts'
import { ensureTestDataset } from '../apps/server/src/data/test-dataset.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { newActivationKey } from '../apps/server/src/seed/demo-accounts.ts'

export const TEST_PASSWORD = 'Test#Passw0rd'

export function testConfig(overrides: Partial<AppConfig> = {}, env: Record<string, string> = {}): AppConfig {
  return {
    env: parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env }),
    databaseUrl: inject('databaseUrl'),
    databaseMode: inject('databaseMode'),
    jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
    migrationsDir: MIGRATIONS_DIR,
    webDistDir: null,
    ...overrides,
  }
}

/** The production app, on the test database, without request logs. */
export async function createTestApp(overrides: Partial<AppConfig> = {}, env: Record<string, string> = {}) {
  const app = await buildApp(testConfig(overrides, env), { logger: false })
  return app
}

export function testDatabase(): Database {
  // as the server opens it: on the embedded database, background work on connections of its own
  return createDatabase(inject('databaseUrl'), { maxConnections: 4, background: inject('databaseMode') === 'embedded' })
}

type TestEnv = Record<string, string>

/**
 * Loads the synthetic test dataset before the file's other hooks, so that a server they start opens it (the first load
 * on the embedded database of a busy machine takes longer than the default hook timeout).
 */
export function loadTestDatasetFirst(): void {
  beforeAll(async () => {
    const db = testDatabase()
    try {
      await ensureTestDataset(db.pool, inject('databaseUrl'))
    } finally {
      await db.close()
    }
  }, 900_000)
}

/** The test database, with the synthetic test dataset loaded when `dataset` is set. */
async function openTestDatabase(options: { dataset?: boolean }): Promise<Database> {
  const db = testDatabase()
  if (options.dataset) await ensureTestDataset(db.pool, inject('databaseUrl'))
  return db
}

/**
 * Registers the suite's hooks: before all tests a database handle (with the synthetic test dataset when
 * `dataset` is set), after all tests closed.
 */
export function useTestDatabase(options: { dataset?: boolean } = {}) {
  let db: Database | undefined
  beforeAll(async () => {
    db = await openTestDatabase(options)
  })
  afterAll(async () => {
    await db?.close()
  })
  return {
    get db(): Database {
      if (!db) throw new Error('the test database opens in beforeAll')
      return db
    },
  }
}

/**
 * Registers the suite's hooks: before all tests a database handle (as {@link useTestDatabase}) and the app
 * (ready), after all tests both closed. The outbox worker is off (`OUTBOX_POLL_INTERVAL_MS: '0'`) unless `env`
 * says otherwise; `env` may be a function, read when the app starts (after the suite's earlier hooks).
 * `beforeReady` adds to the app before it is ready (e.g. extra routes).
 */
export function useTestApp(
  env: TestEnv | (() => TestEnv) = {},
  options: { overrides?: Partial<AppConfig>; dataset?: boolean; beforeReady?: (app: TestApp) => Promise<void> | void } = {},
) {
  let app: TestApp | undefined
  let db: Database | undefined
  beforeAll(async () => {
    db = await openTestDatabase(options)
    app = await createTestApp(options.overrides, { OUTBOX_POLL_INTERVAL_MS: '0', ...(typeof env === 'function' ? env() : env) })
    await options.beforeReady?.(app)
    await app.ready()
  })
  afterAll(async () => {
    await app?.close()
    await db?.close()
  })
  return {
    get app(): TestApp {
      if (!app) throw new Error('the test app starts in beforeAll')
      return app
    },
    get db(): Database {
      if (!db) throw new Error('the test database opens in beforeAll')
      return db
    },
  }
}

export const uniqueEmail = (prefix = 'user') => `${prefix}-${randomUUID().slice(0, 8)}@test.citrus`

/** A fresh tenant: a company with the given policies and one user per requested role. */
export async function createTenant(
  db: Database,
  options: {
    roles?: Role[]
    products?: { product_group: 'ATLAS' | 'SYNTHESIS' | 'SEARCH' | 'CARE_SELECT' | 'NOVA'; limit?: number | null }[]
  } = {},
) {
  const passwordHash = await hashPassword(TEST_PASSWORD)
  const company = await db.prisma.company.create({
    data: {
      company_name: `Test Co ${randomUUID().slice(0, 6)}`,
      industry: 'Healthcare',
      renewal_cycle_days: 30,
      activation_key: newActivationKey(),
      policies: {
        create: (options.products ?? [{ product_group: 'ATLAS' }]).map((p) => ({ product_group: p.product_group, limit: p.limit ?? null })),
      },
    },
  })
  const users = await Promise.all(
    (options.roles ?? ['admin', 'user']).map((role) =>
      db.prisma.user.create({ data: { email: uniqueEmail(role), role, company_id: company.id, password_hash: passwordHash } }),
    ),
  )
  return { company, users }
}

/**
 * A public shareable link of the tenant, made by its first user, admitting `link.api_endpoints`: the token a guest
 * presents (`?token=`), signed the way the server signs it.
 */
export async function shareTokenFor(
  db: Database,
  tenant: Awaited<ReturnType<typeof createTenant>>,
  link: { client_routes: string[]; api_endpoints: string[]; role?: Role | 'guest' },
): Promise<string> {
  const row = await db.prisma.shareableLink.create({
    data: {
      company_id: tenant.company.id,
      created_by_user_id: tenant.users[0]!.id,
      url_type: 'public',
      authorized_user_ids: [],
      ...link,
    },
  })
  return signShareToken(testConfig().jwtSecret, row)
}

export type TestApp = FastifyInstance

// The provide()/inject() keys are declared by the global setup; importing its types makes them
// known wherever the helpers are type-checked (apps/server's tsconfig does not include test/).
export type {} from './global-setup.ts'

// ---- accounts and access (issue 3) ------------------------------------------------------------

/** A login token for a user, signed the way POST /users/login signs it (no password round trip). */
export async function loginTokenFor(
  user: { id: number; email: string; role: Role; company_id: number; phone_number?: string | null },
  companyName: string,
  secret = testConfig().jwtSecret,
): Promise<string> {
  const { signLoginToken } = await import('../apps/server/src/auth/tokens.ts')
  return signLoginToken(secret, {
    id: user.id,
    email: user.email,
    company_id: user.company_id,
    company_name: companyName,
    role: user.role,
    phone_number: user.phone_number ?? null,
  })
}

export interface CapturedMail {
  from: string
  to: string[]
  raw: string
  /** the raw message with quoted-printable soft breaks and escapes decoded (good enough to find links) */
  decoded: string
}

/** A real SMTP server on a free local port that keeps every message it receives. */
export async function startSmtpCapture(options: { failFirst?: number } = {}) {
  const { SMTPServer } = await import('smtp-server')
  const messages: CapturedMail[] = []
  let toFail = options.failFirst ?? 0
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        if (toFail > 0) {
          toFail--
          const error = Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 451 })
          callback(error)
          return
        }
        const raw = Buffer.concat(chunks).toString('utf8')
        const decoded = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          decoded,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const address = server.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    port,
    messages,
    env: { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port), SMTP_SECURE: 'false', SMTP_FROM: 'Citrus <no-reply@citrus.test>' },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Polls until the check passes (or fails after the timeout with the last error). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
    }
  }
}

/** The SQL of every statement sent by `pool.query` while `run` runs (its text, or a named statement's config's text). */
export async function statementsDuring(pool: pg.Pool, run: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = []
  const query = pool.query.bind(pool)
  const spy = vi.spyOn(pool, 'query').mockImplementation(((text: unknown, ...rest: unknown[]) => {
    // sent as text or as a named statement's config ({ name, text }, docs/decisions/0067)
    statements.push(String(typeof text === 'string' ? text : (text as { text?: unknown } | null)?.text))
    return (query as (...args: unknown[]) => unknown)(text, ...rest)
  }) as typeof pool.query)
  try {
    await run()
  } finally {
    spy.mockRestore()
  }
  return statements
}
