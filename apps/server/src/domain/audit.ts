import type { AuditAction } from '@citrus/contracts'
import type { PrismaClient } from '../db/database.js'
import type { AuditLog, Prisma } from '../generated/prisma/client.js'

/** Who is acting: a signed-in user (API) or an operator at the command line (no user). */
export interface AuditActor {
  source: 'api' | 'cli'
  user_id: number | null
  email: string | null
}

export const CLI_ACTOR: AuditActor = { source: 'cli', user_id: null, email: null }

export function apiActor(principal: { user_id: number; email: string }): AuditActor {
  return { source: 'api', user_id: principal.user_id, email: principal.email }
}

export interface AuditEntryInput {
  action: AuditAction
  company_id: number | null
  target_type: 'company' | 'api_token' | 'user' | 'onboarding_invitation'
  target_id: string | number | null
  details?: Prisma.InputJsonValue
}

type Db = PrismaClient | Prisma.TransactionClient

/** Appends one entry; pass the transaction client so the entry commits with the change it records. */
export async function recordAudit(db: Db, actor: AuditActor, entry: AuditEntryInput): Promise<void> {
  await db.auditLog.create({
    data: {
      source: actor.source,
      actor_user_id: actor.user_id,
      actor_email: actor.email,
      company_id: entry.company_id,
      action: entry.action,
      target_type: entry.target_type,
      target_id: entry.target_id === null ? null : String(entry.target_id),
      ...(entry.details === undefined ? {} : { details: entry.details }),
    },
  })
}

export async function listAudit(prisma: PrismaClient, filter: { company_id?: number | undefined; limit: number }): Promise<AuditLog[]> {
  return prisma.auditLog.findMany({
    where: filter.company_id === undefined ? {} : { company_id: filter.company_id },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: filter.limit,
  })
}

/** The audit log as the super-admin API answers it: newest first, at most `limit` entries, dates as ISO text. */
export async function auditEntries(prisma: PrismaClient, filter: { company_id?: number | undefined; limit: number }) {
  const entries = await listAudit(prisma, filter)
  return entries.map((entry) => ({
    id: entry.id,
    created_at: entry.created_at.toISOString(),
    source: entry.source === 'cli' ? ('cli' as const) : ('api' as const),
    actor_user_id: entry.actor_user_id,
    actor_email: entry.actor_email,
    company_id: entry.company_id,
    action: entry.action,
    target_type: entry.target_type,
    target_id: entry.target_id,
    details: entry.details,
  }))
}
