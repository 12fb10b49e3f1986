/**
 * The one place dates are turned into text: Intl with the browser's locales (navigator.languages), in the
 * viewer's time zone. Every screen that shows a date uses these, so a reader in Berlin sees 09.01.2024 and
 * one in Boston sees Jan 9, 2024.
 */
export type Locales = string | readonly string[] | undefined

/** The browser's preferred locales, or undefined (Intl's default) when there are none. */
export function userLocales(): Locales {
  if (typeof navigator === 'undefined') return undefined
  if (navigator.languages && navigator.languages.length > 0) return navigator.languages
  return navigator.language || undefined
}

function toDate(value: string | null | undefined): Date | null {
  if (typeof value !== 'string' || value.trim() === '') return null
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}

function formatter(locales: Locales, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locales as string | string[] | undefined, options)
  } catch {
    // a malformed language tag in the browser settings must not break the page
    return new Intl.DateTimeFormat(undefined, options)
  }
}

/** A calendar date in the user's locale (e.g. Jan 9, 2024 · 09.01.2024), or null for a missing or unreadable value. */
export function formatDate(value: string | null | undefined, locales: Locales = userLocales()): string | null {
  const date = toDate(value)
  return date ? formatter(locales, { dateStyle: 'medium' }).format(date) : null
}

/** Date and time in the user's locale (e.g. Jan 9, 2024, 7:05 AM · 09.01.2024, 07:05), or null. */
export function formatDateTime(value: string | null | undefined, locales: Locales = userLocales()): string | null {
  const date = toDate(value)
  return date ? formatter(locales, { dateStyle: 'medium', timeStyle: 'short' }).format(date) : null
}

/** A calendar date as yyyy-MM-dd in the viewer's time zone (where a spec fixes that form: spec 1 §2 API keys), or null. */
export function formatIsoDate(value: string | null | undefined): string | null {
  const date = toDate(value)
  if (!date) return null
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}
