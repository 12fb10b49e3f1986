import { meetsServerPasswordRule, PRODUCT_GROUPS, type Role } from '@citrus/contracts'
import { hashPassword } from '../auth/password.js'
import type { PrismaClient } from '../db/database.js'
import { newActivationKey } from '../domain/companies.js'

/** Re-exported for the seeders and tests that issue keys. */
export { newActivationKey }

/** Default demo password; it passes the sign-up rules (8+ characters, all five criteria). */
export const DEFAULT_DEMO_PASSWORD = 'Citrus#Demo2026'
export const DEMO_COMPANY_NAME = 'Citrus Demo Health'
export const DEMO_USERS: { email: string; role: Role }[] = [
  { email: 'admin@citrus.demo', role: 'admin' },
  { email: 'citrus@citrus.demo', role: 'citrus' },
  { email: 'user@citrus.demo', role: 'user' },
  { email: 'member@citrus.demo', role: 'member' },
]

export interface DemoAccounts {
  companyId: number
  activationKey: string
  users: { email: string; role: Role }[]
}

/**
 * Creates (or brings up to date) the demo company holding every product group and one user per
 * role. Idempotent: a second start keeps the company, its key and users, and re-applies the
 * password that DEMO_PASSWORD sets.
 */
export async function ensureDemoAccounts(prisma: PrismaClient, password: string): Promise<DemoAccounts> {
  if (!meetsServerPasswordRule(password)) {
    throw new Error('DEMO_PASSWORD must have at least 8 characters with upper case, lower case, a digit and a symbol (#?!@$ %^&*-)')
  }
  const passwordHash = await hashPassword(password)
  return prisma.$transaction(async (tx) => {
    let company = await tx.company.findFirst({ where: { company_name: DEMO_COMPANY_NAME }, orderBy: { id: 'asc' } })
    if (!company) {
      company = await tx.company.create({
        data: {
          company_name: DEMO_COMPANY_NAME,
          industry: 'Healthcare',
          renewal_cycle_days: 30,
          activation_key: newActivationKey(),
          // the demo company shows every Atlas feature (docs/decisions/0033-atlas-plan-tiers.md)
          plan_tier: 'ENTERPRISE',
        },
      })
    }
    for (const product_group of PRODUCT_GROUPS) {
      await tx.companyPolicy.upsert({
        where: { company_id_product_group: { company_id: company.id, product_group } },
        create: { company_id: company.id, product_group, limit: null },
        update: {},
      })
    }
    for (const user of DEMO_USERS) {
      await tx.user.upsert({
        where: { email: user.email },
        create: { email: user.email, role: user.role, company_id: company.id, password_hash: passwordHash },
        update: { role: user.role, company_id: company.id, password_hash: passwordHash, is_active: true },
      })
    }
    return { companyId: company.id, activationKey: company.activation_key, users: DEMO_USERS }
  })
}
