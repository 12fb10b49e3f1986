import { ROLES, type Role, type SessionRole } from '@citrus/contracts'

export type RoleIssue = 'none' | 'legacy' | 'unknown' | 'missing'

export interface RoleResolution {
  role: SessionRole
  issue: RoleIssue
}

const SESSION_ROLES: readonly SessionRole[] = [...ROLES, 'guest']

function isSessionRole(value: string): value is SessionRole {
  return (SESSION_ROLES as readonly string[]).includes(value)
}

/**
 * Role strings found in tokens (spec 1 §4): an exact value is accepted; legacy upper case (USER, ADMIN, ...)
 * is normalised and flagged; an unknown value or a missing role becomes guest.
 */
export function normalizeRole(raw: unknown): RoleResolution {
  if (raw === undefined || raw === null || raw === '') return { role: 'guest', issue: 'missing' }
  if (typeof raw !== 'string') return { role: 'guest', issue: 'unknown' }
  if (isSessionRole(raw)) return { role: raw, issue: 'none' }
  const lower = raw.toLowerCase()
  if (raw === raw.toUpperCase() && isSessionRole(lower)) return { role: lower, issue: 'legacy' }
  return { role: 'guest', issue: 'unknown' }
}

export function isSignedInRole(role: SessionRole): role is Role {
  return role !== 'guest'
}

/** One colour per role, for every role badge (team, company users, profile). */
export const ROLE_COLORS: Record<SessionRole, string> = {
  citrus: 'orange',
  admin: 'citrus',
  user: 'blue',
  member: 'grape',
  guest: 'gray',
}

/** The badge colour of a role string from the wire; legacy upper case is read as its role, anything else is gray. */
export function roleColor(raw: string | null | undefined): string {
  const { role, issue } = normalizeRole(raw)
  return issue === 'unknown' || issue === 'missing' ? ROLE_COLORS.guest : ROLE_COLORS[role]
}
