import { MESSAGES, isValidEmail, passwordStrength } from '@citrus/contracts'

export type FieldErrors<K extends string> = Partial<Record<K, string>>

/** Sign in (spec 1 §5). */
export function validateSignIn(values: { email: string; password: string }): FieldErrors<'email' | 'password'> {
  const errors: FieldErrors<'email' | 'password'> = {}
  const email = values.email.trim()
  if (email === '') errors.email = MESSAGES.emailRequired
  else if (!isValidEmail(email)) errors.email = MESSAGES.emailInvalid
  if (values.password === '') errors.password = MESSAGES.passwordRequired
  return errors
}

/** Submit is disabled until both fields are filled. */
export function canSubmitSignIn(values: { email: string; password: string }): boolean {
  return values.email.trim() !== '' && values.password !== ''
}

/** A weak or medium password is rejected (spec 1 §5). */
export function validateNewPassword(password: string): string | undefined {
  if (password === '') return MESSAGES.passwordRequired
  if (passwordStrength(password) !== 'Strong') return MESSAGES.passwordWeak
  return undefined
}

/** Sign up (spec 1 §5): 'Email is not valid' is displayed in lower case. */
export function validateSignUp(values: { email: string; password: string; activationKey: string }): FieldErrors<
  'email' | 'password' | 'activationKey'
> {
  const errors: FieldErrors<'email' | 'password' | 'activationKey'> = {}
  if (!isValidEmail(values.email.trim())) errors.email = MESSAGES.emailNotValid.toLowerCase()
  if (values.activationKey.trim() === '') errors.activationKey = MESSAGES.activationKeyRequired
  const password = validateNewPassword(values.password)
  if (password) errors.password = password
  return errors
}

/** Reset request (spec 1 §5): required and valid, messages as for sign in. */
export function validateResetEmail(email: string): string | undefined {
  const value = email.trim()
  if (value === '') return MESSAGES.emailRequired
  if (!isValidEmail(value)) return MESSAGES.emailInvalid
  return undefined
}
