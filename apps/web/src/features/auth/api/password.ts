import { endpoints, type EndpointInput, type EndpointOutput } from '@citrus/contracts'
import { api, isInvalidResponse } from '../../../lib/api-client'

/**
 * The account calls of spec 1 §7. Each resolves to null when the server answered without the field the
 * spec requires (the documented "not successful" case), and rejects on an error answer.
 */
async function orNotSuccessful<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call
  } catch (error) {
    if (isInvalidResponse(error)) return null
    throw error
  }
}

/** POST /users/user-signup → { message }. */
export function requestSignUp(
  body: EndpointInput<typeof endpoints.users.signup>['body'],
): Promise<EndpointOutput<typeof endpoints.users.signup> | null> {
  return orNotSuccessful(api(endpoints.users.signup, { body }))
}

/** POST /users/password-reset-email → { message_id }. */
export function requestResetEmail(email: string): Promise<EndpointOutput<typeof endpoints.users.passwordResetEmail> | null> {
  return orNotSuccessful(api(endpoints.users.passwordResetEmail, { body: { email } }))
}

/** POST /users/password-reset → { message_id }. */
export function requestPasswordReset(
  body: EndpointInput<typeof endpoints.users.passwordReset>['body'],
): Promise<EndpointOutput<typeof endpoints.users.passwordReset> | null> {
  return orNotSuccessful(api(endpoints.users.passwordReset, { body }))
}
