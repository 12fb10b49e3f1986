import { describe, expect, it } from 'vitest'
import { ONBOARDING_CLIENT_MESSAGES, validateOnboarding } from './onboarding-email'

const KEY = 'A'.repeat(40) + '_-9'

describe('onboarding e-mail validation (spec 1 §5)', () => {
  it.each([
    ['email', { email: '', company_activation_key: KEY, role: 'user' as const }],
    ['email (spaces)', { email: '   ', company_activation_key: KEY, role: 'user' as const }],
    ['activation key', { email: 'new@example.com', company_activation_key: '', role: 'user' as const }],
    ['role', { email: 'new@example.com', company_activation_key: KEY, role: null }],
    ['everything', { email: '', company_activation_key: '', role: null }],
  ])("missing %s: 'All fields are required.'", (_, draft) => {
    expect(validateOnboarding(draft)).toEqual({ ok: false, message: 'All fields are required.' })
  })

  it.each(['new', 'new@example', 'new @example.com', '@example.com'])("'%s': 'Please enter a valid email address.'", (email) => {
    expect(validateOnboarding({ email, company_activation_key: 'bad', role: 'user' })).toEqual({
      ok: false,
      message: 'Please enter a valid email address.',
    })
  })

  it.each(['short', 'A'.repeat(42), 'A'.repeat(44), 'A'.repeat(42) + '!', 'A'.repeat(42) + '='])(
    "key '%s': 'Invalid activation key format.'",
    (key) => {
      expect(validateOnboarding({ email: 'new@example.com', company_activation_key: key, role: 'admin' })).toEqual({
        ok: false,
        message: 'Invalid activation key format.',
      })
    },
  )

  it('accepts 43 characters of letters, digits, hyphen and underscore and keeps the chosen role', () => {
    for (const role of ['user', 'admin', 'citrus'] as const) {
      expect(validateOnboarding({ email: ' new@example.com ', company_activation_key: KEY, role })).toEqual({
        ok: true,
        request: { email: 'new@example.com', company_activation_key: KEY, role, is_trial: false },
      })
    }
  })

  it('has the documented result texts', () => {
    expect(ONBOARDING_CLIENT_MESSAGES.failed).toBe('Failed to send the onboarding email. Please try again.')
    expect(ONBOARDING_CLIENT_MESSAGES.sent('a@b.co')).toBe('Onboarding email sent successfully to a@b.co')
    expect(ONBOARDING_CLIENT_MESSAGES.sentBody).toBe('An email has been sent to the user')
  })
})
