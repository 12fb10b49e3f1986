/** Client configuration, read once from Vite's environment (import.meta.env). */
function trimTrailingSlash(value: string): string {
  return value.length > 1 ? value.replace(/\/+$/, '') : value
}

export function resolveApiBaseUrl(raw: string | undefined): string {
  const value = raw?.trim()
  return value ? trimTrailingSlash(value) : '/api'
}

export const env = {
  apiBaseUrl: resolveApiBaseUrl(import.meta.env.VITE_API_BASE_URL),
  contactEmail: import.meta.env.VITE_CONTACT_EMAIL?.trim() || 'support@citrus.health',
} as const

/** Links of the account pages (spec 1 §2): Terms of Use and Sign-up for a Demo. */
export const links = {
  termsOfUse: '/terms-of-use.html',
  demo: `mailto:${env.contactEmail}?subject=${encodeURIComponent('Citrus demo request')}`,
} as const
