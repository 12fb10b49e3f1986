import { API_TOKEN_PREFIX } from '@citrus/contracts'
import { formatDateTime, formatIsoDate } from '../../../lib/format'
import type { ApiTokenRow } from '../api/api-tokens'
import { API_KEY_MESSAGES } from './messages'

const blank = (value: string | null | undefined): value is null | undefined | '' =>
  value === null || value === undefined || value.trim() === ''

/** Name column: 'Unnamed Token' when empty. */
export const tokenName = (token: Pick<ApiTokenRow, 'name'>) => (blank(token.name) ? API_KEY_MESSAGES.unnamed : token.name)

/** Secret Key column: 'sk-' + masked token + '...', or 'N/A'. */
export const secretKeyLabel = (token: Pick<ApiTokenRow, 'masked_token'>) =>
  blank(token.masked_token) ? API_KEY_MESSAGES.notAvailable : `${API_TOKEN_PREFIX}${token.masked_token}...`

/** Created column: yyyy-MM-dd (spec 1 §2; the viewer's calendar day), or 'Unknown'. */
export const createdLabel = (token: Pick<ApiTokenRow, 'created_at'>) => formatIsoDate(token.created_at) ?? API_KEY_MESSAGES.unknownDate

/** Last Used column: date and time in the user's locale; a value that is no date is shown as is; else 'Unused'. */
export const lastUsedLabel = (token: Pick<ApiTokenRow, 'last_used_at'>) =>
  blank(token.last_used_at) ? API_KEY_MESSAGES.unused : (formatDateTime(token.last_used_at) ?? token.last_used_at)
