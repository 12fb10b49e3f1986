import { describe, expect, it } from 'vitest'
import {
  ACTIVATION_KEY_PATTERN,
  isValidEmail,
  isValidZip,
  meetsServerPasswordRule,
  MESSAGES,
  normalizeUsPhone,
  passwordStrength,
} from './validation.js'
import { CLIENT_ROUTES, homePathFor } from './routes.js'

describe('shared validation rules (spec 1 §5)', () => {
  it('ZIP: 5 digits, optionally a dash and 4 digits', () => {
    expect(isValidZip('98101')).toBe(true)
    expect(isValidZip('98101-1234')).toBe(true)
    for (const bad of ['9810', '981011', '98101-123', 'abcde', '98101 1234', '']) expect(isValidZip(bad)).toBe(false)
  })

  it('e-mail: non-space text, an @ and a dotted domain', () => {
    expect(isValidEmail('a@b.co')).toBe(true)
    for (const bad of ['a@b', 'a b@c.de', '@c.de', 'a@.', '']) expect(isValidEmail(bad)).toBe(false)
  })

  it('password strength: Weak 0-2, Medium 3-4, Strong 5 criteria', () => {
    expect(passwordStrength('')).toBe('Weak')
    expect(passwordStrength('abcdef')).toBe('Weak') // length + lower
    expect(passwordStrength('abcdeF')).toBe('Medium') // length + lower + upper
    expect(passwordStrength('abcdF1')).toBe('Medium')
    expect(passwordStrength('abcF1#')).toBe('Strong')
    expect(passwordStrength('abc F1')).toBe('Strong') // space is one of the symbols
  })

  it('server password rule: 8+ characters and all five criteria', () => {
    expect(meetsServerPasswordRule('abcF1#')).toBe(false)
    expect(meetsServerPasswordRule('abcdeF1#')).toBe(true)
    expect(meetsServerPasswordRule('abcdefgh1#')).toBe(false)
  })

  it('US phone: 10 digits or 11 starting with 1, normalised to +1', () => {
    expect(normalizeUsPhone('(206) 555-0100')).toEqual({ ok: true, e164: '+12065550100' })
    expect(normalizeUsPhone('1-206-555-0100')).toEqual({ ok: true, e164: '+12065550100' })
    expect(normalizeUsPhone('')).toEqual({ ok: false, message: 'Phone number is required' })
    expect(normalizeUsPhone('2065550')).toEqual({ ok: false, message: MESSAGES.phoneInvalid })
    expect(normalizeUsPhone('22065550100')).toEqual({ ok: false, message: MESSAGES.phoneInvalid })
    expect(normalizeUsPhone('206555010a')).toEqual({ ok: false, message: MESSAGES.phoneInvalid })
    expect(MESSAGES.phoneInvalid).toBe('Invalid phone number format. Please enter a valid US phone number.')
  })

  it('activation key: exactly 43 characters of letters, digits, - and _', () => {
    expect(ACTIVATION_KEY_PATTERN.test('a'.repeat(43))).toBe(true)
    expect(ACTIVATION_KEY_PATTERN.test('A-_9'.repeat(10) + 'abc')).toBe(true)
    expect(ACTIVATION_KEY_PATTERN.test('a'.repeat(42))).toBe(false)
    expect(ACTIVATION_KEY_PATTERN.test('a'.repeat(44))).toBe(false)
    expect(ACTIVATION_KEY_PATTERN.test('a'.repeat(42) + '=')).toBe(false)
  })
})

describe('client route table', () => {
  it('registers every documented route once', () => {
    const paths = CLIENT_ROUTES.map((route) => route.path)
    expect(new Set(paths).size).toBe(paths.length)
    for (const documented of [
      '/',
      '/apps',
      '/sign-in',
      '/sign-up',
      '/password-reset-email',
      '/password-reset',
      '/data-dictionary',
      '/price-check',
      '/price-check/results',
      '/member-recommendations',
      '/provider-cost-transparency/:npi',
      '/atlas-search',
      '/care-connect-search',
      '/care-connect-results',
      '/atlas/generic',
      '/atlas/generic/results',
      '/nova-search',
      '/nova-results',
      '/user-settings',
      '/api-keys',
      '/team-management',
      '/citrus-admin',
      '/company/:companyId/users',
      '/not-authorized',
    ]) {
      expect(paths).toContain(documented)
    }
  })

  it('lands members on /price-check and everyone else on /apps', () => {
    expect(homePathFor('member')).toBe('/price-check')
    for (const role of ['admin', 'citrus', 'user'] as const) expect(homePathFor(role)).toBe('/apps')
  })
})

describe('shared input bounds (issue 9 §2)', () => {
  it('ids are positive int32 numbers, in bodies and in paths', async () => {
    const { idSchema, idParamSchema, int32Schema } = await import('./validation.js')
    expect(idSchema.parse(2147483647)).toBe(2147483647)
    expect(idParamSchema.parse('42')).toBe(42)
    const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
      result.error?.issues.map((issue) => issue.message)
    expect(messages(idSchema.safeParse(2147483648))).toEqual(['Must be at most 2147483647'])
    expect(messages(idParamSchema.safeParse('2147483648'))).toEqual(['Must be at most 2147483647'])
    expect(messages(idSchema.safeParse(0))).toEqual(['Must be a positive whole number'])
    expect(messages(idSchema.safeParse(1.5))).toEqual(['Must be a positive whole number'])
    expect(messages(idParamSchema.safeParse('abc'))).toEqual(['Must be a positive whole number'])
    expect(messages(int32Schema.safeParse(-2147483649))).toEqual(['Must be at least -2147483648'])
    expect(int32Schema.parse(-2147483648)).toBe(-2147483648)
  })

  it('text with NUL or a lone surrogate is bad; paired surrogates are fine', async () => {
    const { badTextReason } = await import('./validation.js')
    expect(badTextReason('a\u0000b')).toBe('nul')
    expect(badTextReason('a\ud800b')).toBe('surrogate')
    expect(badTextReason('\udfff')).toBe('surrogate')
    expect(badTextReason('smile \ud83d\ude00')).toBeNull()
    expect(badTextReason('plain')).toBeNull()
  })
})
