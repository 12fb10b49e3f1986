const pad = (value: number) => String(value).padStart(2, '0')

function toDate(value: string | null | undefined): Date | null {
  if (typeof value !== 'string' || value.trim() === '') return null
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}

/** yyyy-MM-dd in the viewer's time zone, or null for a missing or unreadable timestamp. */
export function formatDate(value: string | null | undefined): string | null {
  const date = toDate(value)
  if (!date) return null
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/** yyyy-MM-dd HH:mm in the viewer's time zone, or null. */
export function formatDateTime(value: string | null | undefined): string | null {
  const date = toDate(value)
  if (!date) return null
  return `${formatDate(value)} ${pad(date.getHours())}:${pad(date.getMinutes())}`
}
