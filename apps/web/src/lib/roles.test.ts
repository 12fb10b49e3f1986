import { describe, expect, it } from 'vitest'
import { normalizeRole } from './roles'

describe('normalizeRole (spec 1 §4)', () => {
  it.each(['admin', 'citrus', 'user', 'member', 'guest'] as const)('accepts the exact value %s', (role) => {
    expect(normalizeRole(role)).toEqual({ role, issue: 'none' })
  })

  it.each([
    ['ADMIN', 'admin'],
    ['CITRUS', 'citrus'],
    ['USER', 'user'],
    ['MEMBER', 'member'],
    ['GUEST', 'guest'],
  ] as const)('normalises legacy upper case %s to %s and flags it', (raw, role) => {
    expect(normalizeRole(raw)).toEqual({ role, issue: 'legacy' })
  })

  it.each(['superuser', 'Admin', 'ROOT', 42])('treats unknown value %s as guest', (raw) => {
    expect(normalizeRole(raw)).toEqual({ role: 'guest', issue: 'unknown' })
  })

  it.each([undefined, null, ''])('treats a missing role (%s) as guest', (raw) => {
    expect(normalizeRole(raw)).toEqual({ role: 'guest', issue: 'missing' })
  })
})

describe('role badge colours (one map for every badge)', () => {
  it('gives each role its own colour, legacy upper case the same one, unknown values gray', async () => {
    const { ROLE_COLORS, roleColor } = await import('./roles')
    expect(ROLE_COLORS).toEqual({ citrus: 'orange', admin: 'citrus', user: 'blue', member: 'grape', guest: 'gray' })
    expect(new Set(Object.values(ROLE_COLORS)).size).toBe(5)
    expect(roleColor('admin')).toBe('citrus')
    expect(roleColor('ADMIN')).toBe('citrus')
    expect(roleColor('member')).toBe('grape')
    expect(roleColor('superuser')).toBe('gray')
    expect(roleColor(null)).toBe('gray')
  })
})
