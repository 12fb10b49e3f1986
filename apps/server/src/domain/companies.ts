import { randomBytes } from 'node:crypto'
import { COMPANY_MESSAGES, PLAN_TIERS, PRODUCT_GROUPS, type CompanyUser, type ProductGroup } from '@citrus/contracts'
import { z } from 'zod'
import type { PrismaClient } from '../db/database.js'
import type { Prisma } from '../generated/prisma/client.js'
import { AppError, badRequest, notFound } from '../lib/errors.js'
import { CLI_ACTOR, recordAudit, type AuditActor } from './audit.js'

/** A new company activation key: 32 random bytes, base64url, exactly 43 characters of [A-Za-z0-9_-] (spec 4 §5). */
export function newActivationKey(): string {
  return randomBytes(32).toString('base64url')
}

export const policyInputSchema = z.object({
  product_group: z.enum(PRODUCT_GROUPS),
  /** null = unlimited */
  limit: z.number().int().min(0).nullable().optional(),
})
export type PolicyInput = z.infer<typeof policyInputSchema>

export const companyInputSchema = z.object({
  company_name: z.string().trim().min(1, 'company_name is required').max(200),
  industry: z.string().trim().min(1, 'industry is required').max(200),
  renewal_cycle_days: z.number().int().min(1).max(3650),
  policies: z.array(policyInputSchema).min(1, 'at least one policy is required'),
  /** Atlas plan tier (docs/decisions/0033); BASE when not given */
  plan_tier: z.enum(PLAN_TIERS).optional(),
})
export type CompanyInput = z.infer<typeof companyInputSchema>

const companyInclude = { policies: { orderBy: { id: 'asc' as const } } }

/** A company with its policies as Prisma returns it for `include: companyInclude`. */
type CompanyRow = Prisma.CompanyGetPayload<{ include: typeof companyInclude }>

export type CompanyRecord = Pick<
  CompanyRow,
  'id' | 'company_name' | 'industry' | 'renewal_cycle_days' | 'activation_key' | 'created_at' | 'plan_tier'
> & { policies: Pick<CompanyRow['policies'][number], 'product_group' | 'limit'>[] }

function toRecord(company: CompanyRow): CompanyRecord {
  return {
    id: company.id,
    company_name: company.company_name,
    industry: company.industry,
    renewal_cycle_days: company.renewal_cycle_days,
    activation_key: company.activation_key,
    created_at: company.created_at,
    policies: company.policies.map((p) => ({ product_group: p.product_group, limit: p.limit })),
    plan_tier: company.plan_tier,
  }
}

function assertDistinctGroups(policies: PolicyInput[]) {
  const seen = new Set<string>()
  for (const policy of policies) {
    if (seen.has(policy.product_group)) throw badRequest(COMPANY_MESSAGES.duplicateGroup(policy.product_group))
    seen.add(policy.product_group)
  }
}

/** What the audit log keeps of a company (never the activation key). */
function auditView(company: CompanyRecord) {
  return {
    company_name: company.company_name,
    industry: company.industry,
    renewal_cycle_days: company.renewal_cycle_days,
    policies: company.policies,
    plan_tier: company.plan_tier,
  }
}

/**
 * Company administration shared by the super-admin API and the operators' CLI. Every change is
 * written to the audit log in its transaction, as `actor` (default: the CLI).
 */
export class CompanyService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly actor: AuditActor = CLI_ACTOR,
  ) {}

  async list(): Promise<CompanyRecord[]> {
    const companies = await this.prisma.company.findMany({ include: companyInclude, orderBy: { id: 'asc' } })
    return companies.map(toRecord)
  }

  async get(id: number): Promise<CompanyRecord> {
    const company = await this.prisma.company.findUnique({ where: { id }, include: companyInclude })
    if (!company) throw notFound(COMPANY_MESSAGES.notFound(id))
    return toRecord(company)
  }

  async create(input: CompanyInput): Promise<CompanyRecord> {
    const data = companyInputSchema.parse(input)
    assertDistinctGroups(data.policies)
    return this.prisma.$transaction(async (tx) => {
      const company = toRecord(
        await tx.company.create({
          data: {
            company_name: data.company_name,
            industry: data.industry,
            renewal_cycle_days: data.renewal_cycle_days,
            activation_key: newActivationKey(),
            plan_tier: data.plan_tier ?? 'BASE',
            policies: { create: data.policies.map((p) => ({ product_group: p.product_group, limit: p.limit ?? null })) },
          },
          include: companyInclude,
        }),
      )
      await recordAudit(tx, this.actor, {
        action: 'company.create',
        company_id: company.id,
        target_type: 'company',
        target_id: company.id,
        details: auditView(company),
      })
      return company
    })
  }

  /** Updates fields; `policies`, when given, replaces the company's policies as a whole. */
  async update(id: number, changes: Partial<CompanyInput> & { reset_activation_key?: boolean }): Promise<CompanyRecord> {
    const data = companyInputSchema.partial().parse(changes)
    if (data.policies) assertDistinctGroups(data.policies)
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.company.findUnique({ where: { id }, include: companyInclude })
      if (!existing) throw notFound(COMPANY_MESSAGES.notFound(id))
      if (data.policies) {
        await tx.companyPolicy.deleteMany({ where: { company_id: id } })
        await tx.companyPolicy.createMany({
          data: data.policies.map((p) => ({ company_id: id, product_group: p.product_group, limit: p.limit ?? null })),
        })
      }
      const company = await tx.company.update({
        where: { id },
        data: {
          ...(data.company_name !== undefined ? { company_name: data.company_name } : {}),
          ...(data.industry !== undefined ? { industry: data.industry } : {}),
          ...(data.renewal_cycle_days !== undefined ? { renewal_cycle_days: data.renewal_cycle_days } : {}),
          ...(data.plan_tier !== undefined ? { plan_tier: data.plan_tier } : {}),
          ...(changes.reset_activation_key ? { activation_key: newActivationKey() } : {}),
        },
        include: companyInclude,
      })
      const before = toRecord(existing)
      const after = toRecord(company)
      const fieldsChanged =
        data.company_name !== undefined ||
        data.industry !== undefined ||
        data.renewal_cycle_days !== undefined ||
        data.plan_tier !== undefined ||
        data.policies !== undefined
      if (fieldsChanged) {
        await recordAudit(tx, this.actor, {
          action: 'company.update',
          company_id: id,
          target_type: 'company',
          target_id: id,
          details: { before: auditView(before), after: auditView(after) },
        })
      }
      if (changes.reset_activation_key) {
        await recordAudit(tx, this.actor, { action: 'company.reset_activation_key', company_id: id, target_type: 'company', target_id: id })
      }
      return after
    })
  }

  async resetActivationKey(id: number): Promise<CompanyRecord> {
    return this.update(id, { reset_activation_key: true })
  }

  /** Every user of the company, active or not, oldest first (404 for an unknown company). */
  async users(id: number): Promise<(CompanyUser & { is_active: boolean })[]> {
    await this.get(id)
    const users = await this.prisma.user.findMany({
      where: { company_id: id },
      orderBy: { id: 'asc' },
      select: { id: true, email: true, role: true, created_at: true, is_active: true },
    })
    return users.map((user) => ({ ...user, created_at: user.created_at.toISOString() }))
  }
}

/** Parses an operator's policy spec: ATLAS (unlimited) or ATLAS:500. */
export function parsePolicySpec(spec: string): PolicyInput {
  const [group, limit] = spec.split(':')
  const upper = (group ?? '').trim().toUpperCase()
  if (!(PRODUCT_GROUPS as readonly string[]).includes(upper)) {
    throw new AppError(400, 'BAD_REQUEST', `Unknown product group "${group}". Use one of ${PRODUCT_GROUPS.join(', ')}.`)
  }
  if (limit === undefined || limit === '' || limit.toLowerCase() === 'unlimited') {
    return { product_group: upper as ProductGroup, limit: null }
  }
  if (!/^\d+$/.test(limit)) throw badRequest(`Policy limit must be a whole number or "unlimited", got "${limit}"`)
  return { product_group: upper as ProductGroup, limit: Number(limit) }
}
