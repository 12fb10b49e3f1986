import { describe, expect, it } from 'vitest'
import { formatDateTime } from '../../../lib/format'
import { createdLabel, lastUsedLabel, secretKeyLabel, tokenName } from './format'

describe('API key columns (spec 1 §2)', () => {
  it("Name: the name, or 'Unnamed Token' when empty", () => {
    expect(tokenName({ name: 'CI' })).toBe('CI')
    expect(tokenName({ name: '' })).toBe('Unnamed Token')
    expect(tokenName({ name: '  ' })).toBe('Unnamed Token')
    expect(tokenName({ name: null })).toBe('Unnamed Token')
  })

  it("Secret Key: 'sk-' + masked token + '...', or 'N/A'", () => {
    expect(secretKeyLabel({ masked_token: 'AbCd' })).toBe('sk-AbCd...')
    expect(secretKeyLabel({ masked_token: '' })).toBe('N/A')
    expect(secretKeyLabel({ masked_token: null as unknown as string })).toBe('N/A')
  })

  it("Created: yyyy-MM-dd (spec 1 §2), or 'Unknown'", () => {
    expect(createdLabel({ created_at: '2024-03-05T12:00:00.000Z' })).toBe('2024-03-05')
    expect(createdLabel({ created_at: '2026-11-29T10:00:00.000Z' })).toBe('2026-11-29')
    // the viewer's calendar day of the instant
    const late = new Date(2024, 0, 9, 23, 30)
    expect(createdLabel({ created_at: late.toISOString() })).toBe('2024-01-09')
    expect(createdLabel({ created_at: 'garbage' })).toBe('Unknown')
    expect(createdLabel({ created_at: '' })).toBe('Unknown')
    expect(createdLabel({ created_at: null as unknown as string })).toBe('Unknown')
  })

  it("Last Used: date and time in the user's locale, text that is no date as is, or 'Unused'", () => {
    expect(lastUsedLabel({ last_used_at: '2024-04-01T08:30:00.000Z' })).toBe(formatDateTime('2024-04-01T08:30:00.000Z'))
    expect(lastUsedLabel({ last_used_at: 'yesterday' })).toBe('yesterday')
    expect(lastUsedLabel({ last_used_at: null })).toBe('Unused')
    expect(lastUsedLabel({ last_used_at: '' })).toBe('Unused')
  })
})
