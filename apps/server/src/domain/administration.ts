import {
  ADMIN_MESSAGES,
  API_TOKEN_MESSAGES,
  COMPANY_MESSAGES,
  type ApiToken,
  type CompanyUser,
  type ProductGroup,
  type ProductUsage,
  type userPermissionSchema,
} from '@citrus/contracts'
import type { z } from 'zod'
import type { UserPrincipal } from '../auth/principal.js'
import type { PrismaClient } from '../db/database.js'
import { forbidden, notFound } from '../lib/errors.js'
import { ApiTokenService } from './api-tokens.js'
import { apiActor } from './audit.js'
import type { CreditService, ProductPolicy } from './credits.js'
import { sortProductGroups } from './product-groups.js'

const isCitrus = (principal: UserPrincipal) => principal.role === 'citrus'

/**
 * Company administration (spec 1 §2 API Keys and Team Management; §7), roles admin and citrus: which company a call
 * addresses and what it may read and do there. An admin works on their own company only; citrus on any company.
 */
export class AdministrationService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly credits: CreditService,
  ) {}

  /**
   * The company whose administration a call addresses: the caller's own by default. An admin may name
   * only their own company (403 otherwise); citrus may name any existing company (404 if unknown).
   */
  async companyInScope(principal: UserPrincipal, requested: number | null | undefined): Promise<number> {
    if (requested === undefined || requested === null || requested === principal.company_id) return principal.company_id
    if (!isCitrus(principal)) throw forbidden(ADMIN_MESSAGES.otherCompany)
    const company = await this.prisma.company.findUnique({ where: { id: requested }, select: { id: true } })
    if (!company) throw notFound(COMPANY_MESSAGES.notFound(requested))
    return company.id
  }

  /** A key is created for the caller, so only in the caller's own company (403 when the body names another). */
  apiTokenCompany(principal: UserPrincipal, requested: number | null | undefined): number {
    if (requested != null && requested !== principal.company_id) throw forbidden(API_TOKEN_MESSAGES.ownCompanyOnly)
    return principal.company_id
  }

  /** Whose keys a revocation may reach: any company's for citrus, the caller's own company's otherwise. */
  revocationScope(principal: UserPrincipal): { company_id?: number } {
    return isCitrus(principal) ? {} : { company_id: principal.company_id }
  }

  /** The active API keys of the company in scope (companyInScope). */
  async apiTokens(principal: UserPrincipal, requested: number | null | undefined): Promise<ApiToken[]> {
    const companyId = await this.companyInScope(principal, requested)
    return this.apiTokenService(principal).list({ company_id: companyId })
  }

  /** A key for the caller, in their own company (apiTokenCompany); the answer holds the full key, shown this once. */
  createApiToken(
    principal: UserPrincipal,
    body: { company_id?: number | null | undefined; name?: string | null | undefined },
  ): Promise<ApiToken & { token: string }> {
    this.apiTokenCompany(principal, body.company_id)
    return this.apiTokenService(principal).create({ user_id: principal.user_id, name: body.name })
  }

  /** Revokes a key within the caller's reach (revocationScope); a key out of reach is unknown (404). */
  async revokeApiToken(principal: UserPrincipal, id: string): Promise<void> {
    await this.apiTokenService(principal).revoke(id, this.revocationScope(principal))
  }

  /** The keys as the caller acts on them: audited as the caller, through the API. */
  private apiTokenService(principal: UserPrincipal): ApiTokenService {
    return new ApiTokenService(this.prisma, apiActor(principal))
  }

  /** The credits used and left per product of the company in scope (companyInScope), this cycle. */
  async productUsage(principal: UserPrincipal, requested: number | null | undefined): Promise<{ products: ProductUsage[] }> {
    return { products: await this.credits.usage(await this.companyInScope(principal, requested)) }
  }

  /** The active users of the company in scope (companyInScope), oldest first. */
  async activeSeats(principal: UserPrincipal, requested: number | null | undefined): Promise<{ users: CompanyUser[] }> {
    const companyId = await this.companyInScope(principal, requested)
    const users = await this.prisma.user.findMany({
      where: { company_id: companyId, is_active: true },
      orderBy: { id: 'asc' },
      select: { id: true, email: true, role: true, created_at: true },
    })
    return { users: users.map((user) => ({ ...user, created_at: user.created_at.toISOString() })) }
  }

  /** The activation key of the company in scope (companyInScope). */
  async activationKey(principal: UserPrincipal, requested: number | null | undefined): Promise<{ activation_key: string }> {
    const companyId = await this.companyInScope(principal, requested)
    const company = await this.prisma.company.findUniqueOrThrow({ where: { id: companyId }, select: { activation_key: true } })
    return { activation_key: company.activation_key }
  }

  /** A user's role and company products; another company's user is reported as unknown to an admin. */
  async permission(principal: UserPrincipal, userId: number): Promise<z.infer<typeof userPermissionSchema>> {
    const user = await this.prisma.user.findUnique({
      where: { id: userId },
      include: { company: { select: { company_name: true, policies: { select: { product_group: true } } } } },
    })
    // an admin learns nothing about other tenants
    if (!user || (!isCitrus(principal) && user.company_id !== principal.company_id)) throw notFound(ADMIN_MESSAGES.userNotFound)
    return {
      user_id: user.id,
      email: user.email,
      role: user.role,
      is_active: user.is_active,
      company_id: user.company_id,
      company_name: user.company.company_name,
      product_groups: sortProductGroups(user.company.policies.map((policy) => policy.product_group)),
    }
  }
}

/**
 * A company's policy for a product, as the caller reads it (plugins/auth.ts policyOf: from the policies read with the
 * login principal when the company is the caller's, else one query).
 */
export type PolicyReader = (companyId: number, product: ProductGroup) => Promise<ProductPolicy | null>

/** Whether a company holds a product (spec 1 §7): it has a policy for it (its credits are the meter's concern). */
export async function holdsProduct(readPolicy: PolicyReader, companyId: number, product: ProductGroup): Promise<boolean> {
  return (await readPolicy(companyId, product)) !== null
}

/** The product groups a company holds, in their documented order. */
export async function companyProductGroups(prisma: PrismaClient, companyId: number): Promise<ProductGroup[]> {
  const policies = await prisma.companyPolicy.findMany({ where: { company_id: companyId }, select: { product_group: true } })
  return sortProductGroups(policies.map((policy) => policy.product_group))
}
