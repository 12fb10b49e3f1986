import { afterEach, describe, expect, it, vi } from 'vitest'
import { formatDate, formatDateTime, userLocales } from './format'

const local = new Date(2024, 0, 9, 7, 5).toISOString()

describe('dates in the user locale', () => {
  afterEach(() => vi.restoreAllMocks())

  it('formats a date and a date-time per locale, in local time', () => {
    expect(formatDate(local, 'en-US')).toBe('Jan 9, 2024')
    expect(formatDate(local, 'de-DE')).toBe('09.01.2024')
    expect(formatDate(local, 'en-GB')).toBe('9 Jan 2024')
    expect(formatDateTime(local, 'de-DE')).toBe('09.01.2024, 07:05')
    expect(formatDateTime(local, 'en-US')?.replace(/\s/g, ' ')).toBe('Jan 9, 2024, 7:05 AM')
  })

  it("uses the browser's languages by default", () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['de-DE', 'en-US'])
    expect(userLocales()).toEqual(['de-DE', 'en-US'])
    expect(formatDate(local)).toBe('09.01.2024')
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['en-GB'])
    expect(formatDate(local)).toBe('9 Jan 2024')
  })

  it('survives a malformed language tag', () => {
    expect(formatDate(local, 'not a locale!!')).toBe(formatDate(local, undefined))
  })

  it('gives null for missing or unreadable values', () => {
    for (const value of [null, undefined, '', '  ', 'nope']) {
      expect(formatDate(value)).toBeNull()
      expect(formatDateTime(value)).toBeNull()
    }
  })
})
