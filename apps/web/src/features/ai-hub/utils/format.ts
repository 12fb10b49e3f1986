/** Document sizes as spec 2 §2 shows them: Bytes, KB, MB or GB (1024 steps, up to 2 decimals). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes'
  const units = ['Bytes', 'KB', 'MB', 'GB'] as const
  const index = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)))
  return `${parseFloat((bytes / 1024 ** index).toFixed(2))} ${units[index]}`
}

export const formatTokens = (tokens: number) => tokens.toLocaleString('en-US')

/** The name the greeting uses: the first part of the e-mail's local part, capitalised ('dana.smith@x' → 'Dana'). */
export function greetingName(email: string | null | undefined): string {
  const local = (email ?? '').split('@')[0] ?? ''
  const first = local.split(/[._+-]/).find((part) => part !== '') ?? ''
  return first ? first.charAt(0).toUpperCase() + first.slice(1) : 'there'
}

/** Moves one item of a list to another index (pinned-insight reordering). */
export function move<T>(items: readonly T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= items.length || to >= items.length) return [...items]
  const next = [...items]
  const [item] = next.splice(from, 1)
  next.splice(to, 0, item as T)
  return next
}
