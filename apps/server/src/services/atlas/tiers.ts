import { ATLAS_MESSAGES, PLAN_TIER_ERROR_CODE, planTierSchema, tierAllows, type AtlasFeature, type PlanTier } from '@citrus/contracts'
import type { FastifyRequest } from 'fastify'
import { kyselyOf } from '../../db/kysely.js'
import { AppError, unauthorized } from '../../lib/errors.js'

/**
 * The plan tier of the caller's company (a link guest: the link owner's company): a signed-in user's was read with
 * the login principal, after the request arrived (plugins/auth.ts; no statement of its own), anyone else's is read here.
 */
export async function planTierOf(request: FastifyRequest): Promise<PlanTier> {
  const principal = request.auth
  if (!principal) throw request.authError ?? unauthorized()
  const known = request.companyPolicies
  if (known?.company_id === principal.company_id) return planTierSchema.catch('BASE').parse(known.plan_tier)
  // on the primary: an account's plan tier must be seen as soon as it is changed (not a read of the loaded data)
  const row = await kyselyOf(request.server.db.pool)
    .selectFrom('companies')
    .select('plan_tier')
    .where('id', '=', principal.company_id)
    .executeTakeFirst()
  return planTierSchema.catch('BASE').parse(row?.plan_tier)
}

/** 403 PLAN_TIER_REQUIRED with the feature's message when the tier lacks it (docs/decisions/0033). */
export function requireFeature(tier: PlanTier, feature: AtlasFeature, message: string): void {
  if (!tierAllows(tier, feature)) throw new AppError(403, PLAN_TIER_ERROR_CODE, message)
}

export const FEATURE_MESSAGES = {
  customZips: ATLAS_MESSAGES.customZipsLocked,
  csvExport: ATLAS_MESSAGES.csvLocked,
  facilities: ATLAS_MESSAGES.facilitiesLocked,
  providers: ATLAS_MESSAGES.providersLocked,
  hcoPoints: ATLAS_MESSAGES.hcoPointsLocked,
} as const
