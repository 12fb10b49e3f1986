/**
 * The app under an HTTP benchmark: the real server (buildApp) with a fresh JWT secret, listening on
 * 127.0.0.1 on a free port, for bench/http-load.ts to send requests to.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../apps/server/src/app.ts'
import type { loadEnv } from '../apps/server/src/config.ts'
import type { Database } from '../apps/server/src/db/database.ts'
import type { PlanTier, ProductGroup, Role } from '../apps/server/src/generated/prisma/client.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { newActivationKey } from '../apps/server/src/seed/demo-accounts.ts'

export interface BenchServer {
  app: FastifyInstance
  /** http://127.0.0.1:port */
  base: string
}

export async function startBenchServer(
  env: ReturnType<typeof loadEnv>,
  databaseUrl: string,
  databaseMode: 'embedded' | 'postgres',
): Promise<BenchServer> {
  const app = await buildApp(
    { env, databaseUrl, databaseMode, jwtSecret: randomUUID() + randomUUID(), migrationsDir: MIGRATIONS_DIR, webDistDir: null },
    { logger: false, warmConnections: true },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return { app, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }
}

/** A company of the bench (`name` and a random suffix) holding each of `products` without a limit. */
export function createBenchCompany(
  db: Database,
  name: string,
  products: ProductGroup[],
  options: { industry?: string; planTier?: PlanTier } = {},
) {
  return db.prisma.company.create({
    data: {
      company_name: `${name} ${randomUUID().slice(0, 6)}`,
      industry: options.industry ?? 'Healthcare',
      renewal_cycle_days: 30,
      activation_key: newActivationKey(),
      ...(options.planTier ? { plan_tier: options.planTier } : {}),
      policies: { create: products.map((product_group) => ({ product_group, limit: null })) },
    },
  })
}

/** A user of `role` in the company, with a random address (`prefix-…@bench.citrus`); the benches sign its tokens. */
export function createBenchUser(db: Database, companyId: number, role: Role, options: { prefix?: string; passwordHash?: string } = {}) {
  return db.prisma.user.create({
    data: {
      email: `${options.prefix ?? 'bench'}-${randomUUID().slice(0, 8)}@bench.citrus`,
      role,
      company_id: companyId,
      password_hash: options.passwordHash ?? 'x',
    },
  })
}

/** The login token a sign-in would give a bench user of `company` (signed by the server's own secret). */
export function benchLoginToken(
  app: FastifyInstance,
  user: { id: number; email: string; role: Role },
  company: { id: number; company_name: string },
): string {
  return app.tokens.signLogin({
    id: user.id,
    email: user.email,
    company_id: company.id,
    company_name: company.company_name,
    role: user.role,
    phone_number: null,
  })
}
