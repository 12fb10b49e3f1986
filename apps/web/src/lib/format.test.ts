import { describe, expect, it } from 'vitest'
import { formatDate, formatDateTime } from './format'

describe('date formats', () => {
  it('formats yyyy-MM-dd and yyyy-MM-dd HH:mm in local time', () => {
    const local = new Date(2024, 0, 9, 7, 5)
    expect(formatDate(local.toISOString())).toBe('2024-01-09')
    expect(formatDateTime(local.toISOString())).toBe('2024-01-09 07:05')
  })

  it('gives null for missing or unreadable values', () => {
    for (const value of [null, undefined, '', '  ', 'nope']) {
      expect(formatDate(value)).toBeNull()
      expect(formatDateTime(value)).toBeNull()
    }
  })
})
