import {
  ADMIN_MESSAGES,
  API_TOKEN_MESSAGES,
  COMPANY_MESSAGES,
  type CompanyUser,
  type ProductGroup,
  type userPermissionSchema,
} from '@citrus/contracts'
import type { z } from 'zod'
import type { UserPrincipal } from '../auth/principal.js'
import type { PrismaClient } from '../db/database.js'
import { forbidden, notFound } from '../lib/errors.js'
import { sortProductGroups } from './product-groups.js'

const isCitrus = (principal: UserPrincipal) => principal.role === 'citrus'

/**
 * Company administration (spec 1 §2 API Keys and Team Management; §7), roles admin and citrus: which company a call
 * addresses and what it may read there. An admin works on their own company only; citrus on any company.
 */
export class AdministrationService {
  constructor(private readonly prisma: PrismaClient) {}

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

  /** The company's active users, oldest first. */
  async activeSeats(companyId: number): Promise<{ users: CompanyUser[] }> {
    const users = await this.prisma.user.findMany({
      where: { company_id: companyId, is_active: true },
      orderBy: { id: 'asc' },
      select: { id: true, email: true, role: true, created_at: true },
    })
    return { users: users.map((user) => ({ ...user, created_at: user.created_at.toISOString() })) }
  }

  async activationKey(companyId: number): Promise<{ activation_key: string }> {
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

/** The product groups a company holds, in their documented order. */
export async function companyProductGroups(prisma: PrismaClient, companyId: number): Promise<ProductGroup[]> {
  const policies = await prisma.companyPolicy.findMany({ where: { company_id: companyId }, select: { product_group: true } })
  return sortProductGroups(policies.map((policy) => policy.product_group))
}
