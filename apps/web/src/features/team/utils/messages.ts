import { env } from '../../../config/env'

/** Team Management texts (spec 1 §2). */
export const TEAM_MESSAGES = {
  noUsers: 'No users found',
  noUsage: 'No product usage data available',
  usersFailed: 'Failed to load users',
  usageFailed: 'Failed to load product usage',
  unlimited: 'Unlimited',
  limited: 'Limited',
} as const

/** The Contact us link for seat upgrades. */
export const seatUpgradeMailto = () => `mailto:${env.contactEmail}?subject=${encodeURIComponent('Seat upgrade request')}`
