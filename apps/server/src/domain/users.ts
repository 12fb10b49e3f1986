import { EMAIL_PATTERN, meetsServerPasswordRule, MESSAGES, ROLES, USER_MESSAGES, type Role } from '@citrus/contracts'
import { Prisma } from '../generated/prisma/client.js'
import { hashPassword } from '../auth/password.js'
import type { PrismaClient } from '../db/database.js'
import { badRequest, conflict, notFound } from '../lib/errors.js'
import { sortProductGroups } from './product-groups.js'
import { revokeKeysOfUser } from './api-tokens.js'
import { CLI_ACTOR, recordAudit, type AuditActor } from './audit.js'

const select = { id: true, email: true, role: true, company_id: true, phone_number: true, is_active: true, created_at: true } as const

/** A user as the user administration reads it: Prisma's row for `select`. */
export type UserRecord = Prisma.UserGetPayload<{ select: typeof select }>

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

export interface NewAccount {
  email: string
  password: string
  company_id: number
  role?: Role
  phone_number?: string | null
  /** Why a password is refused (null: accepted); the shell's sign-up rule (8+ characters, all criteria) by default. */
  passwordError?: (password: string) => string | null
}

function shellPasswordError(password: string): string | null {
  return meetsServerPasswordRule(password) ? null : MESSAGES.passwordWeak
}

/**
 * The one way an account is created, by sign-up and by the operators' CLI (`user create`): checks the
 * e-mail, the password rule, the role and the company, and refuses a taken address (any case) with 409,
 * also when two creations race. `within` runs in the same transaction after the user row exists.
 */
export async function createAccount(
  prisma: PrismaClient,
  input: NewAccount,
  within?: (tx: Prisma.TransactionClient, userId: number) => Promise<void>,
): Promise<UserRecord> {
  const email = normalizeEmail(input.email)
  if (!EMAIL_PATTERN.test(email)) throw badRequest(MESSAGES.emailInvalidDot)
  const passwordProblem = (input.passwordError ?? shellPasswordError)(input.password)
  if (passwordProblem) throw badRequest(passwordProblem, [{ path: 'body.password', message: passwordProblem }])
  const role = input.role ?? 'user'
  if (!(ROLES as readonly string[]).includes(role)) throw badRequest(`Unknown role "${role}". Use one of ${ROLES.join(', ')}.`)
  const company = await prisma.company.findUnique({ where: { id: input.company_id }, select: { id: true } })
  if (!company) throw notFound(`Company ${input.company_id} not found`)
  if (await prisma.user.findUnique({ where: { email }, select: { id: true } })) throw conflict(USER_MESSAGES.emailTaken)
  const password_hash = await hashPassword(input.password)
  try {
    return await prisma.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { email, role, company_id: company.id, phone_number: input.phone_number ?? null, password_hash },
        select,
      })
      await within?.(tx, user.id)
      return user
    })
  } catch (error) {
    // two creations racing for one address
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw conflict(USER_MESSAGES.emailTaken)
    throw error
  }
}

/** User administration shared by the API and the operators' CLI; role changes and deactivations are audited as `actor`. */
export class UserService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly actor: AuditActor = CLI_ACTOR,
  ) {}

  /** `user create` of the CLI: the same account creation as sign-up ({@link createAccount}). */
  async create(input: NewAccount): Promise<UserRecord> {
    return createAccount(this.prisma, input)
  }

  async list(filter: { company_id?: number } = {}): Promise<UserRecord[]> {
    return this.prisma.user.findMany({
      where: filter.company_id !== undefined ? { company_id: filter.company_id } : {},
      orderBy: { id: 'asc' },
      select,
    })
  }

  /** Finds a user by numeric id or e-mail. */
  async find(idOrEmail: string | number): Promise<UserRecord> {
    const where =
      typeof idOrEmail === 'number' || /^\d+$/.test(idOrEmail) ? { id: Number(idOrEmail) } : { email: normalizeEmail(String(idOrEmail)) }
    const user = await this.prisma.user.findUnique({ where, select })
    if (!user) throw notFound(`User ${idOrEmail} not found`)
    return user
  }

  async setRole(idOrEmail: string | number, role: string): Promise<UserRecord> {
    if (!(ROLES as readonly string[]).includes(role)) throw badRequest(`Unknown role "${role}". Use one of ${ROLES.join(', ')}.`)
    const user = await this.find(idOrEmail)
    return this.prisma.$transaction(async (tx) => {
      // a new role ends the sessions opened with the old one: their tokens carry it (issue 32 §6)
      const revoke = user.role === role ? {} : { sessions_revoked_at: new Date() }
      const updated = await tx.user.update({ where: { id: user.id }, data: { role: role as Role, ...revoke }, select })
      if (user.role !== updated.role) {
        await recordAudit(tx, this.actor, {
          action: 'user.role_change',
          company_id: updated.company_id,
          target_type: 'user',
          target_id: updated.id,
          details: { email: updated.email, from: user.role, to: updated.role },
        })
      }
      return updated
    })
  }

  /**
   * The user can no longer sign in; login tokens stop working at once (checked per request), also after a later
   * reactivation, and the user's API keys are revoked.
   */
  async deactivate(idOrEmail: string | number): Promise<UserRecord> {
    const user = await this.find(idOrEmail)
    return this.prisma.$transaction(async (tx) => {
      // the tokens stay dead should the account be activated again
      const updated = await tx.user.update({ where: { id: user.id }, data: { is_active: false, sessions_revoked_at: new Date() }, select })
      const revoked = await revokeKeysOfUser(tx, user.id)
      await recordAudit(tx, this.actor, {
        action: 'user.deactivate',
        company_id: updated.company_id,
        target_type: 'user',
        target_id: updated.id,
        details: { email: updated.email, api_keys_revoked: revoked },
      })
      return updated
    })
  }
}

/** GET /users/info: the signed-in user's account, company and the company's product groups. */
export async function accountInfo(prisma: PrismaClient, userId: number) {
  const user = await prisma.user.findUniqueOrThrow({
    where: { id: userId },
    include: { company: { select: { company_name: true, policies: { select: { product_group: true } } } } },
  })
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    company_id: user.company_id,
    company_name: user.company.company_name,
    phone_number: user.phone_number,
    created_at: user.created_at.toISOString(),
    product_groups: sortProductGroups(user.company.policies.map((policy) => policy.product_group)),
  }
}
