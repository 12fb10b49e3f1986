import { COMPANY_MESSAGES } from '@citrus/contracts'

/** Super admin texts (spec 1 §2, §4, §5, §8). */
export const SUPER_ADMIN_MESSAGES = {
  fieldsRequired: COMPANY_MESSAGES.fieldsRequired,
  companiesMissing: 'Companies could not be fetched',
  companiesFailed: 'Failed to load companies.',
  companyFailed: 'Failed to load company details.',
  updateFailed: 'Failed to update company',
  createFailed: 'Failed to activate company',
  requestFailed: 'Failed to process the request.',
  usersFailed: 'Failed to fetch users',
  updated: COMPANY_MESSAGES.updated,
  activated: COMPANY_MESSAGES.activated,
  noCompanies: 'No companies found',
  noUsers: 'No users found for this company.',
  companyUsersTitle: (id: string | number) => `User Management for Company ${id}`,
} as const
