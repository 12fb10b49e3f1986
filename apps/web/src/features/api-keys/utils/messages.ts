import { API_TOKEN_MESSAGES } from '@citrus/contracts'

/** The API key screen's texts (spec 1 §2, §5, §8). */
export const API_KEY_MESSAGES = {
  nameRequired: API_TOKEN_MESSAGES.nameRequired,
  maxTokens: API_TOKEN_MESSAGES.maxTokens,
  createFailed: 'Failed to create the API token.',
  companyIdNotSet: 'Company ID not set',
  fetchNoCompany: 'Failed to fetch tokens - company id null',
  fetchFailed: 'Failed to fetch tokens',
  deleteFailed: 'Failed to delete the token',
  copied: 'API Key Copied!',
  deleted: API_TOKEN_MESSAGES.deleted,
  empty: 'No API keys found',
  unnamed: 'Unnamed Token',
  notAvailable: 'N/A',
  unknownDate: 'Unknown',
  unused: 'Unused',
} as const
