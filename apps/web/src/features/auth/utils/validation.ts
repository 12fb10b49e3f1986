import { MESSAGES, loginRequestSchema, passwordResetEmailRequestSchema, passwordStrength, signupRequestSchema } from '@citrus/contracts'
import type { FormErrors } from '@mantine/form'

/**
 * The account forms validate with the request schemas of the endpoints they call (spec 1 §5), adding
 * only what the screens require beyond the server: e-mail shape on sign in, a strong new password.
 */

/** Sign in: 'Email is required' / 'Please enter a valid email address', 'Password is required'. */
export const signInFormSchema = loginRequestSchema.extend({ email: passwordResetEmailRequestSchema.shape.email })

/** Submit is disabled until both fields are filled. */
export function canSubmitSignIn(values: { email: string; password: string }): boolean {
  return values.email.trim() !== '' && values.password !== ''
}

/** A weak or medium password is rejected (spec 1 §5); an empty one is 'Password is required'. */
export const strongPasswordSchema = signupRequestSchema.shape.password.refine(
  (password) => passwordStrength(password) === 'Strong',
  MESSAGES.passwordWeak,
)

/** Sign up: the sign-up request with a strong password. */
export const signUpFormSchema = signupRequestSchema.extend({ password: strongPasswordSchema })

/** Sign up shows 'Email is not valid' in lower case for a missing or malformed address (spec 1 §5). */
export function signUpErrors(errors: FormErrors): FormErrors {
  return errors.email ? { ...errors, email: MESSAGES.emailNotValid.toLowerCase() } : errors
}

/** Reset request: the reset-email request ('Email is required', 'Please enter a valid email address'). */
export const resetEmailFormSchema = passwordResetEmailRequestSchema

/** Set a new password: the strong password of sign up. */
export const newPasswordFormSchema = signupRequestSchema.pick({ password: true }).extend({ password: strongPasswordSchema })
