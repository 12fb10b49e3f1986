import { z } from 'zod'

/** Roles as they appear in tokens and on the wire (spec 1 §3). */
export const ROLES = ['admin', 'citrus', 'user', 'member'] as const
export const roleSchema = z.enum(ROLES)
export type Role = z.infer<typeof roleSchema>
/** A session role: a signed-in role, or guest (no token, or a shareable-link session). */
export type SessionRole = Role | 'guest'

export const PRODUCT_GROUPS = ['ATLAS', 'SYNTHESIS', 'SEARCH', 'CARE_SELECT', 'NOVA'] as const
export const productGroupSchema = z.enum(PRODUCT_GROUPS)
export type ProductGroup = z.infer<typeof productGroupSchema>

/** Human names of product groups, used in access-denied messages. */
export const PRODUCT_NAMES: Record<ProductGroup, string> = {
  ATLAS: 'Atlas',
  SYNTHESIS: 'Synthesis',
  SEARCH: 'Search',
  CARE_SELECT: 'Care Connect',
  NOVA: 'Nova',
}

export const APP_VERSION = '2.3.0'
export const TOKEN_STORAGE_KEY = 'jwtToken'
