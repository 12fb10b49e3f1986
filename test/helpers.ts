import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { inject } from 'vitest'
import type { Role } from '../packages/contracts/src/index.ts'
import { buildApp } from '../apps/server/src/app.ts'
import { hashPassword } from '../apps/server/src/auth/password.ts'
import { parseEnv, type AppConfig } from '../apps/server/src/config.ts'
import { createDatabase, type Database } from '../apps/server/src/db/database.ts'
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
  return createDatabase(inject('databaseUrl'), { maxConnections: 4 })
}

export const uniqueEmail = (prefix = 'user') => `${prefix}-${randomUUID().slice(0, 8)}@test.citrus`

/** A fresh tenant: a company with the given policies and one user per requested role. */
export async function createTenant(
  db: Database,
  options: { roles?: Role[]; products?: { product_group: 'ATLAS' | 'SYNTHESIS' | 'SEARCH' | 'CARE_SELECT' | 'NOVA'; limit?: number | null }[] } = {},
) {
  const passwordHash = await hashPassword(TEST_PASSWORD)
  const company = await db.prisma.company.create({
    data: {
      company_name: `Test Co ${randomUUID().slice(0, 6)}`,
      industry: 'Healthcare',
      renewal_cycle_days: 30,
      activation_key: newActivationKey(),
      policies: { create: (options.products ?? [{ product_group: 'ATLAS' }]).map((p) => ({ product_group: p.product_group, limit: p.limit ?? null })) },
    },
  })
  const users = await Promise.all(
    (options.roles ?? ['admin', 'user']).map((role) =>
      db.prisma.user.create({ data: { email: uniqueEmail(role), role, company_id: company.id, password_hash: passwordHash } }),
    ),
  )
  return { company, users }
}

export type TestApp = FastifyInstance
